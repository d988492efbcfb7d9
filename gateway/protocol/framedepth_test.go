package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// nested wraps inner in n arrays: nested(2, "1") is [[1]].
func nested(n int, inner string) string {
	return strings.Repeat("[", n) + inner + strings.Repeat("]", n)
}

// TestDecodeRequestTooDeep: a request nested past the limit comes back
// with its id and ErrTooDeep, wherever its id sits, so the server can
// answer it; a frame exactly at the limit decodes.
func TestDecodeRequestTooDeep(t *testing.T) {
	tooDeep := nested(MaxFrameDepth, "1") // inside the frame's own object: one level too many
	tests := []struct {
		name    string
		in      string
		wantErr error
		wantID  string // "" when no request comes back
		method  string
	}{
		{"deep params", `{"type":"req","id":"7:a","method":"health","params":` + tooDeep + `}`, ErrTooDeep, "7:a", "health"},
		{"id after the deep params", `{"params":{"x":` + tooDeep + `},"method":"chat.send","type":"req","id":"8:b"}`, ErrTooDeep, "8:b", "chat.send"},
		{"escaped id", `{"type":"req","id":"9:\"q\"","method":"m","params":` + tooDeep + `}`, ErrTooDeep, `9:"q"`, "m"},
		{"deep frame of another type", `{"type":"event","event":"tick","payload":` + tooDeep + `}`, ErrTooDeep, "", ""},
		{"deep frame without id", `{"type":"req","method":"m","params":` + tooDeep + `}`, ErrTooDeep, "", ""},
		{"deep id is no id", `{"type":"req","id":` + tooDeep + `,"method":"m"}`, ErrTooDeep, "", ""},
		{"deep top-level array", nested(MaxFrameDepth+1, ""), ErrTooDeep, "", ""},
		{"at the limit", `{"type":"req","id":"1","method":"m","params":` + nested(MaxFrameDepth-1, "") + `}`, nil, "1", "m"},
		{"shallow but broken stays noise", `{"type":"req","id":"1","method":"m","params":[}`, ErrNotJSON, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := DecodeRequest([]byte(tt.in))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.wantID == "" {
				if req != nil && req.ID != "" {
					t.Fatalf("got request %+v, want none", req)
				}
				return
			}
			if req == nil || req.ID != tt.wantID || req.Method != tt.method {
				t.Fatalf("got request %+v, want id %q method %q", req, tt.wantID, tt.method)
			}
		})
	}
	if !strings.Contains(ErrTooDeep.Error(), "10000") {
		t.Fatalf("the error does not name the limit: %v", ErrTooDeep)
	}
}

var skimCases = []string{
	`{"type":"req","id":"1:a","method":"health"}`,
	`{"id":"x","id":"y","type":"req"}`,
	`{"id":"x","id":2,"method":"m"}`,
	`{"id":{"a":"b"},"type":"req"}`,
	`{"a":["id","x"],"id":"real","b":{"id":"inner"}}`,
	`{"type":"req","id":"\u0031\\\"","method":"a\nb"}`,
	` {"type" : "req" , "id" : "1" }`,
	`{"ID":"x","type":"req"}`,
	`{}`,
	`[{"id":"x"}]`,
}

// TestSkimFrameAgreesWithEncodingJSON: on frames encoding/json can read,
// the skimmer finds the same top-level strings and the same depth.
func TestSkimFrameAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range skimCases {
		t.Run(in, func(t *testing.T) { checkSkim(t, []byte(in)) })
	}
}

// FuzzSkimFrame: the skimmer never panics on any input, and agrees with
// encoding/json wherever that can decode the input.
func FuzzSkimFrame(f *testing.F) {
	for _, in := range skimCases {
		f.Add([]byte(in))
	}
	for _, tt := range decodeCases {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		skimFrame(data)
		checkSkim(t, data)
	})
}

func checkSkim(t *testing.T, data []byte) {
	t.Helper()
	var v any
	if json.Unmarshal(data, &v) != nil {
		return
	}
	h := skimFrame(data)
	if d := tokenDepth(t, data); h.depth != d {
		t.Fatalf("skim depth of %q = %d, want %d", data, h.depth, d)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		if h.typ != "" || h.id != "" || h.method != "" {
			t.Fatalf("skim of a non-object %q found fields %+v", data, h)
		}
		return
	}
	for key, got := range map[string]string{"type": h.typ, "id": h.id, "method": h.method} {
		want, _ := obj[key].(string)
		if got != want {
			t.Fatalf("skim %s of %q = %q, want %q", key, data, got, want)
		}
	}
}

// tokenDepth is the nesting of valid JSON measured on encoding/json's
// token stream (a decoded map would lose duplicate keys' values).
func tokenDepth(t *testing.T, data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	depth, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return deepest
		}
		if err != nil {
			t.Fatalf("tokens of valid JSON %q: %v", data, err)
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			deepest = max(deepest, depth)
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}
