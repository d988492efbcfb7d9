package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// TestApprovalsLocal: without --gateway the commands edit the approvals
// file in this machine's state folder.
func TestApprovalsLocal(t *testing.T) {
	tests := []struct {
		name     string
		existing string // the file before, "" for none
		stdin    string
		args     []string
		wantErr  string
		wantOut  []string
		notOut   []string
		wantFile []string // in the file after; nil: the file is as it was
	}{
		{name: "get, no file", args: []string{"get"}, wantOut: []string{"not written yet", "security=allowlist (default)"}},
		{name: "get json redacts the socket token", existing: `{"version":1,"socket":{"path":"/s","token":"sock-secret"},"defaults":{"security":"full"}}`,
			args: []string{"get", "--json"}, wantOut: []string{`"security": "full"`, `"exists": true`, "__OPENCLAW_REDACTED__"}, notOut: []string{"sock-secret"}},
		{name: "set from stdin, JSON5", stdin: "{ version: 1, defaults: { security: 'full', ask: 'off', askFallback: 'full' }, // yolo\n}",
			args: []string{"set", "--stdin"}, wantOut: []string{"Exec approvals replaced"}, wantFile: []string{`"security": "full"`, `"askFallback": "full"`}},
		{name: "set refuses an unknown field", existing: `{"version":1}`, stdin: `{version: 1, defaults: {securty: "full"}}`,
			args: []string{"set", "--stdin"}, wantErr: `unknown field "securty"`},
		{name: "set refuses a bad value", existing: `{"version":1}`, stdin: `{version: 1, defaults: {security: "yolo"}}`,
			args: []string{"set", "--stdin"}, wantErr: "approvals set: stdin"},
		{name: "set needs one source", args: []string{"set"}, wantErr: "either --file PATH or --stdin"},
		{name: "set not both", args: []string{"set", "--stdin", "--file", "x.json"}, wantErr: "either --file PATH or --stdin"},
		{name: "allowlist add", existing: `{"version":1,"agents":{"main":{"security":"allowlist"}}}`,
			args: []string{"allowlist", "add", "/usr/bin/uptime", "--agent", "main"}, wantOut: []string{"Allowed for agent main: /usr/bin/uptime"},
			wantFile: []string{`"pattern": "/usr/bin/uptime"`, `"security": "allowlist"`}},
		{name: "allowlist add present", existing: `{"version":1,"agents":{"*":{"allowlist":[{"pattern":"/bin/ls"}]}}}`,
			args: []string{"allowlist", "add", "/bin/ls"}, wantOut: []string{"Already allowed for agent *"}},
		{name: "allowlist remove", existing: `{"version":1,"agents":{"*":{"allowlist":[{"pattern":"/bin/ls"},{"pattern":"/bin/cat"}]}}}`,
			args: []string{"allowlist", "remove", "/bin/ls"}, wantOut: []string{"Removed from the allowlist of agent *: /bin/ls"}, wantFile: []string{`"/bin/cat"`}},
		{name: "allowlist remove missing, json", existing: `{"version":1}`,
			args: []string{"allowlist", "remove", "/bin/ls", "--json"}, wantOut: []string{`"hash"`}},
		{name: "node not yet", args: []string{"get", "--node", "mac"}, wantErr: "--node is not supported yet"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := isolate(t)
			path := filepath.Join(home, ".openclaw", approvalsFileName)
			if tc.existing != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tc.existing), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			stdout, _, err := runCLIStdin(t, tc.stdin, append([]string{"approvals"}, tc.args...)...)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("err = %v\nstdout: %s", err, stdout)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tc.notOut {
				if strings.Contains(stdout, w) {
					t.Errorf("stdout shows %q:\n%s", w, stdout)
				}
			}
			data, _ := os.ReadFile(path)
			if tc.wantFile == nil {
				if string(data) != tc.existing {
					t.Errorf("the file changed:\n%s\nwas:\n%s", data, tc.existing)
				}
				return
			}
			for _, w := range tc.wantFile {
				if !strings.Contains(string(data), w) {
					t.Errorf("file lacks %q:\n%s", w, data)
				}
			}
			if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("file mode = %v, %v; want 0600", st.Mode(), err)
			}
		})
	}
}

// approvalsGateway fakes the gateway's approval methods.
func approvalsGateway(t *testing.T, status, decision string) *clienttest.Server {
	t.Helper()
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	srv.Reply("exec.approvals.get", map[string]any{"path": "/gw/exec-approvals.json", "exists": true, "hash": "h1",
		"file": map[string]any{"version": 1, "agents": map[string]any{"main": map[string]any{"allowlist": []any{map[string]any{"pattern": "/bin/ls"}}}}}})
	srv.Handle("exec.approvals.set", func(_ context.Context, c *clienttest.Call) (any, error) {
		var p struct {
			File     json.RawMessage
			BaseHash string
		}
		_ = json.Unmarshal(c.Params, &p)
		if p.BaseHash != "h1" {
			return nil, protocol.Errorf(protocol.CodeInvalidRequest, "stale")
		}
		return map[string]any{"path": "/gw/exec-approvals.json", "exists": true, "hash": "h2", "file": p.File}, nil
	})
	srv.Reply("exec.approval.list", map[string]any{"approvals": []any{map[string]any{
		"id": "8f14e45f-ceea-4e7a-9f6b-0c4a1b2c3d4e", "tool": "exec", "args": "{\"command\":\"rm -rf /tmp/x\x1b[2K\"}",
		"agentId": "main", "sessionKey": "agent:main:main", "createdAtMs": 1, "expiresAtMs": 2}}})
	var dec any
	if decision != "" {
		dec = decision
	}
	srv.Handle("approval.get", func(_ context.Context, c *clienttest.Call) (any, error) {
		var p struct{ ID string }
		_ = json.Unmarshal(c.Params, &p)
		if p.ID != "A1" {
			return nil, protocol.Errorf(protocol.CodeApprovalNotFound, "no approval %q", p.ID)
		}
		return map[string]any{"id": "A1", "status": status, "decision": dec}, nil
	})
	srv.Handle("exec.approval.resolve", clienttest.Echo)
	return srv
}

// TestApprovalsGateway: --gateway, pending and resolve go to the gateway.
func TestApprovalsGateway(t *testing.T) {
	tests := []struct {
		name             string
		status, decision string // of approval A1
		args             []string
		stdin            string
		wantErr          string
		wantOut          []string
		notOut           []string
		wantCalls        string
		wantParams       string // in the last request
		wantScope        string // asked for at connect
	}{
		{name: "get", args: []string{"get", "--gateway"}, wantOut: []string{"/gw/exec-approvals.json", "main", "/bin/ls"},
			wantCalls: "exec.approvals.get", wantScope: "operator.admin"},
		{name: "set sends the hash it read", args: []string{"set", "--gateway", "--stdin"}, stdin: `{version: 1, defaults: {ask: "always"}}`,
			wantOut: []string{"Exec approvals replaced"}, wantCalls: "exec.approvals.get exec.approvals.set", wantParams: `"baseHash":"h1"`, wantScope: "operator.admin"},
		{name: "allowlist add keeps the rest", args: []string{"allowlist", "add", "/bin/cat", "--agent", "main", "--gateway"},
			wantCalls: "exec.approvals.get exec.approvals.set", wantParams: `"allowlist":[{"pattern":"/bin/ls"},{"pattern":"/bin/cat","source":"cli"}]`},
		{name: "pending", args: []string{"pending"}, wantOut: []string{"8f14e45f-ceea-4e7a-9f6b-0c4a1b2c3d4e", "Full request text", `rm -rf /tmp/x\u{001b}[2K`},
			notOut: []string{"\x1b"}, wantCalls: "exec.approval.list", wantScope: "operator.approvals"},
		{name: "pending json", args: []string{"pending", "--json"}, wantOut: []string{`"approvals": [`, `"createdAtMs": 1`}, wantCalls: "exec.approval.list"},
		{name: "resolve", status: "pending", args: []string{"resolve", "A1", "allow-once", "--reason", "expected"},
			wantOut: []string{"Approval A1 resolved: allow-once", "Note (local only, not sent): expected"}, notOut: []string{"already"},
			wantCalls: "approval.get exec.approval.resolve", wantParams: `{"decision":"allow-once","id":"A1"}`, wantScope: "operator.approvals"},
		{name: "resolve again, same", status: "approved", decision: "allow-once", args: []string{"resolve", "A1", "allow-once", "--json"},
			wantOut: []string{`"alreadyResolved": true`}, wantCalls: "approval.get"},
		{name: "resolve again, other", status: "denied", decision: "deny", args: []string{"resolve", "A1", "allow-always"},
			wantErr: "already denied (deny)", wantCalls: "approval.get"},
		{name: "resolve unknown", args: []string{"resolve", "B2", "deny"}, wantErr: `no approval "B2"`, wantCalls: "approval.get"},
		{name: "resolve bad decision", args: []string{"resolve", "A1", "yes"}, wantErr: "decision must be allow-once, allow-always or deny"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := approvalsGateway(t, tc.status, tc.decision)
			stdout, stderr, err := runCLIStdin(t, tc.stdin, append(append([]string{"approvals"}, tc.args...), "--url", srv.URL(), "--token", testToken)...)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("err = %v\nstderr: %s", err, stderr)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tc.notOut {
				if strings.Contains(stdout, w) {
					t.Errorf("stdout shows %q:\n%s", w, stdout)
				}
			}
			if got := strings.Join(methodsCalled(srv), " "); got != tc.wantCalls {
				t.Errorf("methods called = %q, want %q", got, tc.wantCalls)
			}
			if tc.wantParams != "" {
				reqs := srv.Requests()
				if last := string(reqs[len(reqs)-1].Params); !strings.Contains(last, tc.wantParams) {
					t.Errorf("last params = %s, want %s in them", last, tc.wantParams)
				}
			}
			if tc.wantScope != "" {
				c, _ := srv.LastConnect()
				if strings.Join(c.Params.Scopes, ",") != tc.wantScope {
					t.Errorf("connect scopes = %v, want [%s]", c.Params.Scopes, tc.wantScope)
				}
			}
		})
	}
}
