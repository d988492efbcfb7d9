package main

import (
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
)

// TestAuditCommand: the real CLI's filters reach audit.list as its
// params, the ledgers this gateway does not keep are refused with why,
// and the table shows what ran.
func TestAuditCommand(t *testing.T) {
	isolate(t)
	page := map[string]any{"events": []any{map[string]any{
		"occurredAt": 1782864000000, "kind": "tool_action", "status": "blocked", "agentId": "main", "runId": "r1",
		"action": "tool.action.finished", "toolName": "exec", "errorCode": "tool_blocked"}}, "nextCursor": "41"}
	tests := []struct {
		name       string
		args       []string
		wantParams string // "" = no call
		wantOut    string
		wantErr    string
	}{
		{name: "plain", args: nil, wantParams: `{}`, wantOut: "tool.action.finished exec (tool_blocked)"},
		{name: "filters", args: []string{"--agent", "main", "--status", "failed", "--session", "agent:main:main", "--run", "r1", "--kind", "tool_action", "--limit", "50", "--cursor", "9"},
			wantParams: `{"agentId":"main","sessionKey":"agent:main:main","runId":"r1","kind":"tool_action","status":"failed","limit":50,"cursor":"9"}`, wantOut: "--cursor 41"},
		{name: "iso after", args: []string{"--after", "2026-07-01T00:00:00Z", "--before", "1782864000001"},
			wantParams: `{"after":1782864000000,"before":1782864000001}`},
		{name: "json", args: []string{"--json"}, wantParams: `{}`, wantOut: `"nextCursor": "41"`},
		{name: "bad time", args: []string{"--after", "yesterday"}, wantErr: "--after \"yesterday\": want an ISO timestamp"},
		{name: "bad limit", args: []string{"--limit", "501"}, wantErr: "want 1 to 500"},
		{name: "bad kind", args: []string{"--kind", "chat"}, wantErr: "want agent_run, tool_action or message"},
		{name: "explain", args: []string{"--run", "r1", "--explain"}, wantErr: "no execution identity"},
		{name: "messages", args: []string{"--kind", "message", "--direction", "outbound"}, wantErr: "no message records"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Reply("audit.list", page)
			out, _, err := runCLI(t, append(append([]string{"audit"}, tc.args...), "--url", srv.URL(), "--token", testToken)...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if len(srv.Requests()) != 0 {
					t.Fatalf("a refused query reached the gateway: %+v", srv.Requests())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got string
			for _, r := range srv.Requests() {
				if r.Method == "audit.list" {
					got = string(r.Params)
				}
			}
			if got != tc.wantParams {
				t.Errorf("params %s, want %s", got, tc.wantParams)
			}
			if !strings.Contains(out, tc.wantOut) {
				t.Errorf("output lacks %q:\n%s", tc.wantOut, out)
			}
		})
	}
}
