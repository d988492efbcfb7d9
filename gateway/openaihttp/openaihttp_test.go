package openaihttp

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestSessionKeyOf(t *testing.T) {
	tests := []struct {
		name, header, user string
		want               string // prefix of the key; "" for an error
		fresh              bool
	}{
		{"stateless", "", "", "agent:main:openai:", true},
		{"a plain user", "", "Conv-42", "agent:main:openai-user:conv-42", false},
		{"a user with other characters is hashed", "", "ana smith/../x", "agent:main:openai-user:h", false},
		{"the header", "agent:main:app:thread-1", "ignored", "agent:main:app:thread-1", false},
		{"a sub-agent's session", "agent:main:subagent:abc", "", "", false},
		{"a job's", "CRON:nightly", "", "", false},
		{"acp", "agent:main:acp:x", "", "", false},
		{"two lines", "a\nb", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/v1/chat/completions", nil)
			if tt.header != "" {
				r.Header["X-Openclaw-Session-Key"] = []string{tt.header}
			}
			key, fresh, err := sessionKeyOf("main", r, tt.user)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("key %q accepted", key)
				}
				return
			}
			if err != nil || !strings.HasPrefix(key, tt.want) || fresh != tt.fresh {
				t.Fatalf("key %q fresh %v err %v, want %q fresh %v", key, fresh, err, tt.want, tt.fresh)
			}
		})
	}
}

func FuzzChatRequest(f *testing.F) {
	for _, s := range []string{
		`{"model":"openclaw","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"openclaw","messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"a"}]}],"stop":["x"],"temperature":1}`,
		`{"model":"x","messages":[{"role":"tool","content":null}],"tools":[{}]}`,
		`{"messages":[{"role":"user","content":{"a":1}}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var req chatRequest
		if json.Unmarshal([]byte(body), &req) != nil {
			return
		}
		if req.check() != nil {
			return
		}
		msg, _, err := prompt(req.Messages, true)
		if err == nil && strings.TrimSpace(msg) == "" {
			t.Fatalf("an empty turn was accepted from %q", body)
		}
	})
}
