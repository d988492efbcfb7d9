package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
)

// TestMemorySearchCommand: the query and limit reach memory_search,
// --min-score filters what comes back, and bad flags are refused before
// any call.
func TestMemorySearchCommand(t *testing.T) {
	isolate(t)
	hits := `{"results":[{"path":"MEMORY.md","startLine":3,"endLine":3,"snippet":"deploy on Tuesday","score":2.5},` +
		`{"path":"memory/old.md","startLine":1,"endLine":2,"snippet":"deploy maybe","score":0.4}]}`
	tests := []struct {
		name     string
		args     []string
		wantCall string
		wantOut  string
		wantNot  string
		wantErr  string
	}{
		{name: "positional", args: []string{"deploy"}, wantCall: `{"agentId":"","args":{"query":"deploy"}}`, wantOut: "MEMORY.md:3-3"},
		{name: "flags", args: []string{"--query", "deploy", "--agent", "ops", "--max-results", "5", "--min-score", "1"},
			wantCall: `{"agentId":"ops","args":{"limit":5,"query":"deploy"}}`, wantOut: "MEMORY.md", wantNot: "old.md"},
		{name: "json", args: []string{"deploy", "--json"}, wantCall: `{"agentId":"","args":{"query":"deploy"}}`, wantOut: `"startLine": 3`},
		{name: "no query", args: nil, wantErr: "needs a query"},
		{name: "both", args: []string{"a", "--query", "b"}, wantErr: "not both"},
		{name: "too many", args: []string{"a", "--max-results", "99"}, wantErr: "want 1 to 50"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			var got string
			srv.Handle("tools.invoke", func(_ context.Context, call *clienttest.Call) (any, error) {
				var p struct {
					Name    string          `json:"name"`
					AgentID string          `json:"agentId"`
					Args    json.RawMessage `json:"args"`
				}
				json.Unmarshal(call.Params, &p)
				if p.Name != "memory_search" {
					t.Errorf("tool %q", p.Name)
				}
				got = `{"agentId":"` + p.AgentID + `","args":` + string(p.Args) + `}`
				return map[string]any{"ok": true, "output": hits}, nil
			})
			out, _, err := runCLI(t, append(append([]string{"memory", "search"}, tc.args...), "--url", srv.URL(), "--token", testToken)...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || got != "" {
					t.Fatalf("err = %v (call %s), want %q and no call", err, got, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.wantCall {
				t.Errorf("call %s, want %s", got, tc.wantCall)
			}
			if !strings.Contains(out, tc.wantOut) || (tc.wantNot != "" && strings.Contains(out, tc.wantNot)) {
				t.Errorf("output (want %q, not %q):\n%s", tc.wantOut, tc.wantNot, out)
			}
		})
	}
}
