package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	gwclient "github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// TestOurSessionsLifecycle: turns with the fake model make a session;
// `openclaw sessions` lists it, compacts it with the model, tails it
// without its text, refuses the main session and deletes it.
func TestOurSessionsLifecycle(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	const key = "agent:main:e2e-scratch"
	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	ours := ourClient(t, g)

	model.Script(fakemodel.Reply{Text: "first answer"}, fakemodel.Reply{Text: "second answer"}, fakemodel.Reply{Text: "main answer"})
	ours.run(t, "agent", "--session-key", key, "--message", "first private question").mustSucceed(t)
	ours.run(t, "agent", "--session-key", key, "--message", "second private question").mustSucceed(t)
	ours.run(t, "agent", "--message", "to the main session").mustSucceed(t)

	listed := func() map[string]bool {
		r := ours.run(t, "sessions", "--json")
		r.mustSucceed(t)
		var out struct{ Sessions []struct{ Key string } }
		if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
			t.Fatalf("sessions --json: %v\n%s", err, r)
		}
		keys := map[string]bool{}
		for _, s := range out.Sessions {
			keys[s.Key] = true
		}
		return keys
	}
	if keys := listed(); !keys[key] || !keys["agent:main:main"] {
		t.Fatalf("sessions lists %v, want %s and the main session", keys, key)
	}

	model.Script(fakemodel.Reply{Text: "SUMMARY: two private questions were asked"})
	r := ours.run(t, "sessions", "compact", key, "--json")
	r.mustSucceed(t)
	var compact struct {
		OK, Compacted bool
		Result        struct{ TokensBefore, TokensAfter int }
	}
	if err := json.Unmarshal([]byte(r.Stdout), &compact); err != nil || !compact.OK || !compact.Compacted || compact.Result.TokensAfter >= compact.Result.TokensBefore {
		t.Fatalf("sessions compact = %+v, %v\n%s", compact, err, r)
	}
	reqs := model.Requests()
	if last := reqs[len(reqs)-1]; !strings.HasPrefix(last.System, "Summarise the conversation") || !strings.Contains(last.Messages[0].Text, "first private question") {
		t.Errorf("the summary request = %q / %q, want the compaction prompt over the session's messages", last.System, last.Messages[0].Text)
	}
	// The next turn is sent the summary, not the summarised messages.
	model.Script(fakemodel.Reply{Text: "third answer"})
	ours.run(t, "agent", "--session-key", key, "--message", "third").mustSucceed(t)
	reqs = model.Requests()
	var sent []string
	for _, m := range reqs[len(reqs)-1].Messages {
		sent = append(sent, m.Text)
	}
	if joined := strings.Join(sent, "|"); !strings.Contains(joined, "SUMMARY: two private questions") || strings.Contains(joined, "first private question") {
		t.Errorf("the turn after compaction sent %q, want the summary instead of the first question", sent)
	}

	tail := ours.run(t, "sessions", "tail", "--session-key", key)
	tail.mustSucceed(t)
	if !strings.Contains(tail.Stdout, "compaction summary") || !strings.Contains(tail.Stdout, "fake/echo-1 done") || strings.Contains(tail.Stdout, "private question") {
		t.Errorf("sessions tail shows:\n%s\nwant progress lines without the messages' text", tail.Stdout)
	}

	main := ours.run(t, "sessions", "delete", "agent:main:main", "--yes", "--json")
	if main.Code == 0 || !strings.Contains(main.Stdout, `"status": "protected"`) {
		t.Errorf("deleting the main session:\n%s\nwant a non-zero exit and status protected", main)
	}
	ours.run(t, "sessions", "delete", key, "--yes").mustSucceed(t)
	if keys := listed(); keys[key] || !keys["agent:main:main"] {
		t.Errorf("after delete sessions lists %v, want the main session only", keys)
	}
}

// TestOurApprovalsScopes: setting the gateway's exec approvals is an
// admin's; a write-scoped operator (what a paired app or a chat-facing
// tool holds) is refused FORBIDDEN and the policy stays as it was. Our
// CLI, with admin, sets it, and the file stays private.
func TestOurApprovalsScopes(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{})
	ours := ourClient(t, g)
	get := func() string {
		r := ours.run(t, "approvals", "get", "--gateway", "--json")
		r.mustSucceed(t)
		var snap struct{ Hash string }
		if err := json.Unmarshal([]byte(r.Stdout), &snap); err != nil || snap.Hash == "" {
			t.Fatalf("approvals get: %v\n%s", err, r)
		}
		return snap.Hash
	}
	before := get()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	writer, err := gwclient.Dial(ctx, gwclient.Options{URL: g.URL, Token: g.Token, Role: protocol.RoleOperator, Version: "e2e",
		Scopes: []string{string(protocol.ScopeRead), string(protocol.ScopeWrite)}})
	if err != nil {
		t.Fatalf("write-scoped connect: %v", err)
	}
	defer writer.Close()
	attacks := []struct {
		method string
		params map[string]any
	}{
		{"exec.approvals.set", map[string]any{"file": map[string]any{"version": 1, "defaults": map[string]any{"security": "full", "ask": "off"}}}},
		{"exec.approvals.get", map[string]any{}},
		{"sessions.compact", map[string]any{"key": "agent:main:main", "maxLines": 1}},
	}
	for _, at := range attacks {
		err := writer.Call(ctx, at.method, at.params, nil)
		var perr *protocol.Error
		if !errors.As(err, &perr) || perr.Code != protocol.CodeForbidden {
			t.Errorf("%s by a write-scoped operator: %v, want FORBIDDEN", at.method, err)
		}
	}
	if after := get(); after != before {
		t.Fatalf("the approvals changed (%s → %s) after a refused set", before, after)
	}

	file := filepath.Join(t.TempDir(), "approvals.json5")
	writeFile(t, file, "{ version: 1, defaults: { security: 'allowlist', ask: 'always' } }\n")
	ours.run(t, "approvals", "set", "--gateway", "--file", file).mustSucceed(t)
	ours.run(t, "approvals", "allowlist", "add", "/usr/bin/uptime", "--gateway").mustSucceed(t)
	r := ours.run(t, "approvals", "get", "--gateway", "--json")
	r.mustSucceed(t)
	if !strings.Contains(r.Stdout, `"ask": "always"`) || !strings.Contains(r.Stdout, `"/usr/bin/uptime"`) {
		t.Errorf("approvals after set and allowlist add:\n%s", r.Stdout)
	}
	st, err := os.Stat(filepath.Join(g.StateDir, "exec-approvals.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the gateway's approvals file: %v, %v; want mode 0600", st, err)
	}
}
