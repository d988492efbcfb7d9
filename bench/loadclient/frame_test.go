package main

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestParseFrame(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want frame
		bad  bool
	}{
		{name: "response", in: `{"type":"res","id":"7:bench","ok":true,"payload":{"a":[1,"}",{"b":"\""}]}}`,
			want: frame{Type: "res", ID: "7:bench", OK: true, Payload: []byte(`{"a":[1,"}",{"b":"\""}]}`)}},
		{name: "error first, spaces", in: ` { "error" : {"code":"INVALID_REQUEST"} , "ok" : false, "id":"1", "type":"res" } `,
			want: frame{Type: "res", ID: "1", ErrorRaw: []byte(`{"code":"INVALID_REQUEST"}`)}},
		{name: "escaped key and id", in: `{"t\u0079pe":"event","event":"tick","id":"a\"b"}`,
			want: frame{Type: "event", Event: "tick", ID: `a"b`}},
		{name: "empty object", in: `{}`},
		{name: "not an object", in: `[1]`, bad: true},
		{name: "unterminated payload", in: `{"type":"res","payload":{"a":1`, bad: true},
		{name: "unterminated string", in: `{"type":"res`, bad: true},
		{name: "missing colon", in: `{"type" "res"}`, bad: true},
		{name: "trailing comma junk", in: `{"type":"res",}`, bad: true},
		{name: "ok not a bool", in: `{"ok":"yes"}`, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFrame([]byte(tt.in))
			if tt.bad {
				if err == nil {
					t.Fatalf("parseFrame(%q) = %+v, want an error", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseFrame(%q): %v", tt.in, err)
			}
			if got.Type != tt.want.Type || got.ID != tt.want.ID || got.OK != tt.want.OK || got.Event != tt.want.Event ||
				string(got.Payload) != string(tt.want.Payload) || string(got.ErrorRaw) != string(tt.want.ErrorRaw) {
				t.Fatalf("parseFrame(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzParseFrame checks the skimmer against encoding/json: on any input
// encoding/json takes as a frame, the fields must agree.
func FuzzParseFrame(f *testing.F) {
	for _, s := range []string{
		`{"type":"res","id":"1","ok":true,"payload":{"x":[1,2,{"y":"]"}]}}`,
		`{"type":"event","event":"tick","payload":null,"seq":3}`,
		`{"type":"res","id":"2","ok":false,"error":{"code":"X","message":"m"}}`,
		`{"id":"\u0031","type":"r\\es"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := parseFrame(b)
		var want struct {
			Type    string          `json:"type"`
			ID      string          `json:"id"`
			OK      bool            `json:"ok"`
			Event   string          `json:"event"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(b, &want) != nil {
			return // not a frame encoding/json reads; any answer will do, short of a panic
		}
		if err != nil {
			// encoding/json folds keys case-insensitively and takes the
			// last of duplicate keys; the skimmer need not.
			return
		}
		if !json.Valid(b) || !utf8.Valid(b) {
			return // encoding/json replaces invalid UTF-8; the skimmer keeps the bytes
		}
		if got.Type != want.Type && !caseFolded(b) {
			t.Fatalf("type %q, encoding/json %q in %q", got.Type, want.Type, b)
		}
		if got.ID != want.ID && !caseFolded(b) {
			t.Fatalf("id %q, encoding/json %q in %q", got.ID, want.ID, b)
		}
		if got.Payload != nil && !json.Valid(got.Payload) {
			t.Fatalf("payload %q is not a JSON value", got.Payload)
		}
	})
}

// caseFolded reports whether b has a key that only encoding/json's
// case-insensitive matching takes for one of the frame's.
func caseFolded(b []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return true
	}
	for k := range m {
		switch k {
		case "type", "id", "ok", "event", "payload", "error":
		default:
			for _, w := range []string{"type", "id", "ok", "event", "payload", "error"} {
				if len(k) == len(w) && equalFold(k, w) {
					return true
				}
			}
		}
	}
	return false
}

func equalFold(a, b string) bool {
	for i := range len(a) {
		x, y := a[i]|0x20, b[i]|0x20
		if x != y {
			return false
		}
	}
	return true
}
