package main

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// sessionsGateway fakes the gateway's session methods over three
// sessions: the main one, a scratch one and an archived one.
func sessionsGateway(t *testing.T) *clienttest.Server {
	t.Helper()
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	rows := map[string]map[string]any{
		"agent:main:main":    {"key": "agent:main:main", "agentId": "main", "kind": "direct", "isMain": true, "modelProvider": "fake", "model": "echo-1", "totalTokens": 1500, "updatedAt": 1},
		"agent:main:scratch": {"key": "agent:main:scratch", "agentId": "main", "kind": "direct", "isMain": true, "totalTokens": 12, "updatedAt": 1, "label": "Scratch"},
		"agent:main:old":     {"key": "agent:main:old", "agentId": "main", "kind": "direct", "archived": true},
	}
	srv.Handle("sessions.list", func(_ context.Context, c *clienttest.Call) (any, error) {
		var p struct{ Limit int }
		_ = json.Unmarshal(c.Params, &p)
		list := []any{rows["agent:main:main"], rows["agent:main:scratch"]}
		if p.Limit == 1 {
			list = list[:1]
		}
		return map[string]any{"count": len(list), "totalCount": 2, "hasMore": p.Limit == 1, "sessions": list,
			"defaults": map[string]any{"agentId": "main", "mainKey": "main"}}, nil
	})
	srv.Handle("sessions.describe", func(_ context.Context, c *clienttest.Call) (any, error) {
		var p struct{ Key string }
		_ = json.Unmarshal(c.Params, &p)
		if r, ok := rows[p.Key]; ok {
			return map[string]any{"session": r}, nil
		}
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "no session %q", p.Key)
	})
	srv.Handle("sessions.delete", func(_ context.Context, c *clienttest.Call) (any, error) {
		var p struct{ Key string }
		_ = json.Unmarshal(c.Params, &p)
		return map[string]any{"ok": true, "key": p.Key, "deleted": true}, nil
	})
	srv.Handle("sessions.patch", clienttest.Echo)
	srv.Handle("chat.history", func(context.Context, *clienttest.Call) (any, error) {
		return map[string]any{"messages": []any{
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "my secret plan"}}, "timestamp": 1},
			map[string]any{"role": "assistant", "provider": "fake", "model": "echo-1", "stopReason": "toolUse",
				"content": []any{map[string]any{"type": "toolCall", "name": "exec", "arguments": map[string]any{"command": "cat /etc/shadow"}}}},
			map[string]any{"role": "toolResult", "toolName": "exec", "isError": true, "content": []any{map[string]any{"type": "text", "text": "permission denied"}}},
			map[string]any{"role": "assistant", "provider": "fake", "model": "echo-1", "stopReason": "stop", "content": []any{map[string]any{"type": "text", "text": "the answer"}}},
		}}, nil
	})
	return srv
}

// methodsCalled lists the methods the fake heard, in order.
func methodsCalled(srv *clienttest.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		out = append(out, r.Method)
	}
	return out
}

func TestSessionsCommands(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantErr    string   // in the error, or "" for success
		wantOut    []string // in stdout
		notOut     []string // not in stdout
		wantStderr []string
		wantCalls  string // the methods called, joined by spaces
		wantParams string // in the last request's params
	}{
		{name: "list json", args: []string{"sessions", "--json", "--active", "30", "--limit", "5"},
			wantOut:   []string{`"limitApplied": 5`, `"activeMinutes": 30`, `"model": "fake/echo-1"`, `"path": null`, `"count": 2`},
			wantCalls: "sessions.list sessions.list", wantParams: `"agentId":"main"`},
		{name: "list all agents", args: []string{"sessions", "list", "--all-agents", "--limit", "all", "--json"},
			wantOut: []string{`"limitApplied": null`, `"allAgents": true`}, wantCalls: "sessions.list"},
		{name: "list table", args: []string{"sessions"},
			wantOut: []string{"Sessions (agent main): 2", "agent:main:main", "fake/echo-1", "1.5k", "main", "label:Scratch"}, wantCalls: "sessions.list sessions.list"},
		{name: "limit zero", args: []string{"sessions", "--limit", "0"}, wantErr: `--limit must be a positive number or "all"`},
		{name: "store", args: []string{"sessions", "--store", "./s.json"}, wantErr: "drop --store"},
		{name: "blank agent", args: []string{"sessions", "--agent", " "}, wantErr: "--agent must not be blank"},
		{name: "agent and all", args: []string{"sessions", "--agent", "main", "--all-agents"}, wantErr: "cannot be combined"},

		{name: "delete needs yes", args: []string{"sessions", "delete", "agent:main:scratch"}, wantErr: "pass --yes"},
		{name: "delete json needs yes", args: []string{"sessions", "delete", "agent:main:scratch", "--json"}, wantErr: "pass --yes"},
		{name: "delete", args: []string{"sessions", "delete", "agent:main:scratch", "--yes"},
			wantOut: []string{"agent:main:scratch: deleted"}, wantCalls: "sessions.list sessions.describe sessions.delete", wantParams: `"key":"agent:main:scratch"`},
		{name: "delete protects main", args: []string{"sessions", "delete", "agent:main:main", "agent:main:scratch", "agent:main:nope", "--yes", "--json"},
			wantErr: "a key failed",
			wantOut: []string{`"ok": false`, `"operation": "delete"`, `"status": "protected"`, `"status": "deleted"`, `"status": "not_found"`},
			// main is never deleted: one delete, for scratch.
			wantCalls: "sessions.list sessions.describe sessions.describe sessions.delete sessions.describe"},
		{name: "delete dry run", args: []string{"sessions", "delete", "agent:main:scratch", "--dry-run", "--json"},
			wantOut: []string{`"dryRun": true`, `"status": "would_delete"`, `"ok": true`}, wantCalls: "sessions.list sessions.describe"},
		{name: "delete other agent", args: []string{"sessions", "delete", "agent:main:scratch", "--agent", "work", "--yes"},
			wantErr: "a key failed", wantStderr: []string{`belongs to agent "main", not "work"`}, wantCalls: "sessions.list sessions.describe"},
		{name: "archive", args: []string{"sessions", "archive", "agent:main:scratch", "agent:main:old"},
			wantOut: []string{"agent:main:scratch: archived", "agent:main:old: already archived"}, wantCalls: "sessions.list sessions.describe sessions.patch sessions.describe",
			wantParams: `"key":"agent:main:old"`},

		{name: "tail redacts", args: []string{"sessions", "tail", "--session-key", "agent:main:main"},
			wantOut:   []string{"user      message (14 chars)", "tool      exec {...redacted...}", "result    exec error", "model     fake/echo-1 done"},
			notOut:    []string{"secret plan", "shadow", "permission denied", "the answer"},
			wantCalls: "chat.history"},
		{name: "tail latest, last two", args: []string{"sessions", "tail", "--tail", "2"},
			wantOut: []string{"result    exec error", "model     fake/echo-1 done"}, notOut: []string{"user "},
			wantCalls: "sessions.list chat.history", wantParams: `"sessionKey":"agent:main:main"`},
		{name: "tail negative", args: []string{"sessions", "tail", "--tail", "-1"}, wantErr: "--tail must be 0 or more"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := sessionsGateway(t)
			stdout, stderr, err := runCLI(t, append(tc.args, "--url", srv.URL(), "--token", testToken)...)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("err = %v\nstdout: %s\nstderr: %s", err, stdout, stderr)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q\nstdout: %s", err, tc.wantErr, stdout)
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
			for _, w := range tc.wantStderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
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
		})
	}
}

func TestSessionsCompactCommand(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		reply      any
		fail       *protocol.Error
		wantErr    string
		wantOut    string
		wantStderr string
		wantParams string
	}{
		{name: "summary", args: []string{"agent:main:main"},
			reply:   map[string]any{"ok": true, "key": "agent:main:main", "compacted": true, "result": map[string]any{"tokensBefore": 900, "tokensAfter": 120}},
			wantOut: "Compacted session agent:main:main (900 → 120 tokens).", wantParams: `{"key":"agent:main:main"}`},
		{name: "truncate", args: []string{"agent:work:main", "--max-lines", "200", "--agent", "work"},
			reply:   map[string]any{"ok": true, "key": "agent:work:main", "compacted": true, "kept": 200},
			wantOut: "Compacted session agent:work:main (kept 200 lines).", wantParams: `"maxLines":200`},
		{name: "nothing to do", args: []string{"agent:main:main"},
			reply:   map[string]any{"ok": true, "key": "agent:main:main", "compacted": false, "reason": "no messages since the last compaction"},
			wantOut: "No compaction needed for session agent:main:main (no messages since the last compaction)."},
		{name: "json passes the payload", args: []string{"agent:main:main", "--json"},
			reply:   map[string]any{"ok": true, "key": "agent:main:main", "compacted": true, "kept": 3},
			wantOut: `"kept": 3`},
		{name: "ok false exits non-zero", args: []string{"agent:main:main"},
			reply:   map[string]any{"ok": false, "key": "agent:main:main", "reason": "busy"},
			wantErr: "compaction failed", wantStderr: "Compaction failed for session agent:main:main: busy."},
		{name: "gateway refuses", args: []string{"agent:main:main"},
			fail: protocol.MissingScope(protocol.ScopeAdmin), wantErr: "missing scope: operator.admin"},
		{name: "zero lines", args: []string{"agent:main:main", "--max-lines", "0"}, wantErr: "--max-lines must be a positive number"},
		{name: "no key", args: []string{}, wantErr: "accepts 1 arg"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			if tc.fail != nil {
				srv.Fail("sessions.compact", tc.fail)
			} else {
				srv.Reply("sessions.compact", tc.reply)
			}
			stdout, stderr, err := runCLI(t, append(append([]string{"sessions", "compact"}, tc.args...), "--url", srv.URL(), "--token", testToken)...)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("err = %v\nstderr: %s", err, stderr)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if !strings.Contains(stdout, tc.wantOut) || !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("stdout = %q (want %q), stderr = %q (want %q)", stdout, tc.wantOut, stderr, tc.wantStderr)
			}
			if tc.wantParams != "" {
				reqs := srv.Requests()
				if len(reqs) != 1 || !strings.Contains(string(reqs[0].Params), tc.wantParams) {
					t.Errorf("requests = %+v, want params with %s", reqs, tc.wantParams)
				}
			}
			if c, ok := srv.LastConnect(); ok && tc.wantParams != "" && !strings.Contains(strings.Join(c.Params.Scopes, ","), "operator.admin") {
				t.Errorf("connect scopes = %v, want operator.admin (sessions.compact's)", c.Params.Scopes)
			}
		})
	}
}

// TestSessionsTailFollow: --follow prints the messages a finished turn
// added, once each, and only for its session.
func TestSessionsTailFollow(t *testing.T) {
	isolate(t)
	const key = "agent:main:main"
	msg := func(role, text string, ts int) map[string]any {
		return map[string]any{"role": role, "timestamp": ts, "provider": "fake", "model": "echo-1",
			"content": []any{map[string]any{"type": "text", "text": text}}}
	}
	first := []any{msg("user", "one", 1), msg("assistant", "a1", 2)}
	second := append(append([]any{}, first...), msg("user", "second question", 3), msg("assistant", "a2", 4))
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	var calls atomic.Int32
	srv.Handle("chat.history", func(_ context.Context, c *clienttest.Call) (any, error) {
		switch calls.Add(1) {
		case 1:
			go func() {
				_ = c.Conn.Event("chat", map[string]any{"sessionKey": "agent:main:other", "state": "final"})
				_ = c.Conn.Event("chat", map[string]any{"sessionKey": key, "state": "delta"})
				_ = c.Conn.Event("chat", map[string]any{"sessionKey": key, "state": "final"})
			}()
			return map[string]any{"messages": first}, nil
		case 2:
			go func() { _ = c.Conn.Event("chat", map[string]any{"sessionKey": key, "state": "final"}) }()
			return map[string]any{"messages": second}, nil
		}
		// The third fetch ends the command, which otherwise follows forever.
		return nil, protocol.Errorf(protocol.CodeUnavailable, "stop here")
	})
	stdout, _, err := runCLI(t, "sessions", "tail", "--follow", "--session-key", key, "--url", srv.URL(), "--token", testToken)
	if err == nil || !strings.Contains(err.Error(), "stop here") {
		t.Fatalf("err = %v, want the third fetch's", err)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	want := []string{"message (3 chars)", "fake/echo-1 done", "message (15 chars)", "fake/echo-1 done"}
	if len(lines) != len(want) {
		t.Fatalf("printed %d lines, want %d (each message once):\n%s", len(lines), len(want), stdout)
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d = %q, want %q in it", i, lines[i], w)
		}
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("chat.history fetched %d times, want 3 (start, then one per final of this session)", n)
	}
}
