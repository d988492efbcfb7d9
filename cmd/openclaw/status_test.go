package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
)

// sessionsWithTokens is a sessions.list answer with token counts.
var sessionsWithTokens = map[string]any{"ts": 1700000000000, "sessions": []any{
	map[string]any{"key": "agent:main:main", "agentId": "main", "modelProvider": "anthropic", "model": "claude-x", "inputTokens": 100, "outputTokens": 20},
	map[string]any{"key": "agent:main:telegram:dm:1", "agentId": "main", "modelProvider": "anthropic", "model": "claude-x", "inputTokens": 5, "outputTokens": 5},
	map[string]any{"key": "agent:ops:main", "agentId": "ops", "modelProvider": "openai", "model": "gpt-y", "inputTokens": 300, "outputTokens": 1},
}}

// TestStatusFlags checks what --all, --deep, --usage, --agent and
// --verbose ask the gateway for and add to the report.
func TestStatusFlags(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCalls  map[string]string // method -> params ("" none); each must be sent
		noCalls    []string          // methods that must not be sent
		wantKeys   []string          // JSON keys added to the status report
		wantStdout []string
		wantStderr []string
		wantErr    string
	}{
		{name: "plain", args: []string{"status", "--json"}, wantCalls: map[string]string{"status": `{"includeCliProjection":true}`},
			noCalls: []string{"health", "sessions.list"}},
		{name: "deep probes", args: []string{"status", "--deep", "--json"},
			wantCalls: map[string]string{"status": `{"includeCliProjection":true}`, "health": `{"probe":true}`},
			noCalls:   []string{"sessions.list"}, wantKeys: []string{"health", "securityAudit"}},
		{name: "all reads cached health and runs the doctor", args: []string{"status", "--all", "--json"},
			wantCalls: map[string]string{"health": ""}, wantKeys: []string{"health", "securityAudit", "diagnosis"}},
		{name: "usage", args: []string{"status", "--usage", "--json"}, wantCalls: map[string]string{"sessions.list": `{}`},
			noCalls: []string{"health"}, wantKeys: []string{"usage"},
			wantStdout: []string{`"totalTokens": 431`, `"providers": []`, "not tracked by this gateway"}},
		{name: "usage of one agent", args: []string{"status", "--usage", "--agent", "Ops", "--json"},
			wantCalls: map[string]string{"sessions.list": `{"agentId":"ops"}`}, wantKeys: []string{"usage"}},
		{name: "usage text", args: []string{"status", "--usage"},
			wantStdout: []string{"Usage: 431 tokens (405 in / 26 out) in 3 sessions", "not tracked by this gateway",
				"openai     gpt-y     1         300  1    301", "anthropic  claude-x  2         105  25   130",
				"agent:ops:main            ops    openai/gpt-y        301"}},
		{name: "deep text", args: []string{"status", "--deep"}, wantStdout: []string{"Gateway health: ok", "OpenClaw security audit"}},
		{name: "verbose names the target on stderr", args: []string{"status", "--debug", "--json"}, wantStderr: []string{"Gateway target: ws://127.0.0.1:"}},
		{name: "agent without usage", args: []string{"status", "--agent", "ops"}, wantErr: "--agent is only valid with --usage"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Reply("status", fixture(t, "status.json"))
			srv.Reply("health", map[string]any{"ok": true, "durationMs": 3})
			srv.Reply("sessions.list", sessionsWithTokens)
			stdout, stderr, err := runCLI(t, append(tc.args, "--url", srv.URL(), "--token", testToken)...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(stderr+stdout, tc.wantErr) {
					t.Fatalf("err %v stdout %q stderr %q; want %q", err, stdout, stderr, tc.wantErr)
				}
				if len(srv.Requests()) != 0 {
					t.Errorf("sent %v before refusing the command line", srv.Requests())
				}
				return
			}
			if err != nil {
				t.Fatalf("run: %v\nstderr: %s", err, stderr)
			}
			sent := map[string][]string{}
			for _, r := range srv.Requests() {
				sent[r.Method] = append(sent[r.Method], string(r.Params))
			}
			for m, p := range tc.wantCalls {
				if !containsParams(sent[m], p) {
					t.Errorf("%s sent with %q, want one with %q", m, sent[m], p)
				}
			}
			for _, m := range tc.noCalls {
				if len(sent[m]) > 0 {
					t.Errorf("%s sent, want not", m)
				}
			}
			if strings.Contains(strings.Join(tc.args, " "), "--json") {
				var report map[string]json.RawMessage
				if err := json.Unmarshal([]byte(stdout), &report); err != nil {
					t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
				}
				for _, k := range tc.wantKeys {
					if _, ok := report[k]; !ok {
						t.Errorf("JSON lacks %q", k)
					}
				}
				for _, k := range []string{"health", "securityAudit", "diagnosis", "usage"} {
					if _, ok := report[k]; ok && !slices.Contains(tc.wantKeys, k) {
						t.Errorf("JSON has %q unasked", k)
					}
				}
			}
			for _, w := range tc.wantStdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tc.wantStderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

func containsParams(sent []string, want string) bool {
	for _, s := range sent {
		if s == want || (want == "" && (s == "" || s == "null")) {
			return true
		}
	}
	return false
}

// TestHealthVerbose checks --verbose and --debug ask for a live probe and
// name the target on stderr, leaving --json one document.
func TestHealthVerbose(t *testing.T) {
	tests := []struct {
		args       []string
		wantParams string
		verbose    bool
	}{
		{[]string{"health", "--json"}, "", false},
		{[]string{"health", "--verbose", "--json"}, `{"probe":true}`, true},
		{[]string{"health", "--debug"}, `{"probe":true}`, true},
		{[]string{"gateway", "health", "--verbose"}, `{"probe":true}`, true},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Reply("health", map[string]any{"ok": true, "agents": []any{map[string]any{"agentId": "main",
				"sessions": map[string]any{"path": "/s", "count": 1, "recent": []any{map[string]any{"key": "agent:main:main", "age": 61000}}}}}})
			stdout, stderr, err := runCLI(t, append(tc.args, "--url", srv.URL(), "--token", testToken)...)
			if err != nil {
				t.Fatalf("run: %v\nstderr: %s", err, stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || !containsParams([]string{string(reqs[0].Params)}, tc.wantParams) {
				t.Fatalf("requests %+v, want one health with %q", reqs, tc.wantParams)
			}
			if got := strings.Contains(stderr, "Gateway target: ws://127.0.0.1:"); got != tc.verbose {
				t.Errorf("stderr %q: target named = %v, want %v", stderr, got, tc.verbose)
			}
			if slices.Contains(tc.args, "--json") {
				if !json.Valid([]byte(stdout)) {
					t.Errorf("stdout is not JSON: %s", stdout)
				}
			} else if tc.verbose && !strings.Contains(stdout, "agent:main:main  1m1s ago") {
				t.Errorf("verbose text lacks the recent session:\n%s", stdout)
			}
		})
	}
}
