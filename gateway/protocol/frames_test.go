package protocol

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

var decodeCases = []struct {
	name    string
	in      string
	wantErr error  // sentinel, when one applies
	errText string // otherwise a fragment of the message
	method  string
	params  string
}{
	{"cli health without params", `{"type":"req","id":"2:591ab0f2","method":"health"}`, nil, "", "health", ""},
	{"gateway call with empty params", `{"type":"req","id":"2:x","method":"health","params":{}}`, nil, "", "health", "{}"},
	{"null params", `{"type":"req","id":"2:x","method":"health","params":null}`, nil, "", "health", ""},
	{"extra fields ignored", `{"type":"req","id":"1","method":"m","future":1}`, nil, "", "m", ""},
	{"not json", `hello`, ErrNotJSON, "", "", ""},
	{"json array", `[1,2]`, ErrNotJSON, "", "", ""},
	{"event frame", `{"type":"event","event":"tick"}`, ErrNotRequest, "", "", ""},
	{"missing id", `{"type":"req","method":"health"}`, nil, "id must be", "", ""},
	{"missing method", `{"type":"req","id":"1"}`, nil, "method must be", "", ""},
	{"long traceparent", `{"type":"req","id":"1","method":"m","traceparent":"` + strings.Repeat("a", 129) + `"}`, nil, "traceparent", "", ""},
}

func TestDecodeRequest(t *testing.T) {
	for _, tt := range decodeCases {
		t.Run(tt.name, func(t *testing.T) {
			req, err := DecodeRequest([]byte(tt.in))
			switch {
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
			case tt.errText != "":
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("err = %v, want containing %q", err, tt.errText)
				}
			default:
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if req.Method != tt.method || string(req.Params) != tt.params {
					t.Fatalf("got method %q params %q", req.Method, req.Params)
				}
			}
		})
	}
}

// FuzzDecodeRequest: the decoder never panics, and whatever it accepts
// re-encodes to a frame it accepts again with the same id and method.
func FuzzDecodeRequest(f *testing.F) {
	for _, tt := range decodeCases {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := DecodeRequest(data)
		if err != nil {
			return
		}
		if req.ID == "" || req.Method == "" {
			t.Fatalf("accepted a request without id or method: %q", data)
		}
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		again, err := DecodeRequest(b)
		if err != nil || again.ID != req.ID || again.Method != req.Method {
			t.Fatalf("round trip of %q: %v %+v", data, err, again)
		}
	})
}

func TestSatisfies(t *testing.T) {
	tests := []struct {
		granted []string
		need    Scope
		want    bool
	}{
		{[]string{"operator.admin"}, ScopePairing, true},
		{[]string{"operator.write"}, ScopeRead, true},
		{[]string{"operator.write"}, ScopeAdmin, false},
		{[]string{"operator.read"}, ScopeWrite, false},
		{[]string{"operator.read"}, ScopeSessionsRead, true},
		{[]string{"operator.sessions.write"}, ScopeSessionsRead, true},
		{[]string{"operator.pairing"}, ScopeRead, false},
		{nil, ScopeNone, true},
		{nil, ScopeRead, false},
	}
	for _, tt := range tests {
		if got := Satisfies(tt.granted, tt.need); got != tt.want {
			t.Errorf("Satisfies(%v, %s) = %v", tt.granted, tt.need, got)
		}
	}
}

func TestMethodScopeCatalog(t *testing.T) {
	tests := map[string]Scope{
		"health": ScopeRead, "config.set": ScopeAdmin, "device.pair.list": ScopePairing,
		"node.invoke.result": ScopeNode, "agent": ScopeDynamic, "config.never.heard": ScopeAdmin,
	}
	for m, want := range tests {
		if got, _ := MethodScope(m); got != want {
			t.Errorf("MethodScope(%s) = %s, want %s", m, got, want)
		}
	}
}
