package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/cmd/openclaw/internal/tui"
	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// TestTUIEventOfGateway: the gateway's events become the TUI's.
func TestTUIEventOfGateway(t *testing.T) {
	tests := []struct {
		name, event, payload string
		want                 tui.Event
		drop                 bool
	}{
		{name: "delta", event: "chat", payload: `{"runId":"r","sessionKey":"k","state":"delta","deltaText":"he"}`,
			want: tui.Event{Kind: tui.EventDelta, RunID: "r", SessionKey: "k", Text: "he"}},
		{name: "replace", event: "chat", payload: `{"runId":"r","sessionKey":"k","state":"delta","deltaText":"","replace":true}`,
			want: tui.Event{Kind: tui.EventDelta, RunID: "r", SessionKey: "k", Replace: true}},
		{name: "final with its message", event: "chat",
			payload: `{"runId":"r","sessionKey":"k","state":"final","message":{"role":"assistant","content":[{"type":"text","text":"Session: k"}]}}`,
			want:    tui.Event{Kind: tui.EventFinal, RunID: "r", SessionKey: "k", Text: "Session: k"}},
		{name: "aborted", event: "chat", payload: `{"runId":"r","sessionKey":"k","state":"aborted"}`,
			want: tui.Event{Kind: tui.EventAborted, RunID: "r", SessionKey: "k"}},
		{name: "error", event: "chat", payload: `{"runId":"r","sessionKey":"k","state":"error","errorMessage":"boom"}`,
			want: tui.Event{Kind: tui.EventError, RunID: "r", SessionKey: "k", Text: "boom"}},
		{name: "tool start", event: "agent",
			payload: `{"runId":"r","sessionKey":"k","stream":"tool","data":{"phase":"start","name":"exec","toolCallId":"c1","args":"{\"command\":\"ls\"}"}}`,
			want:    tui.Event{Kind: tui.EventToolStart, RunID: "r", SessionKey: "k", ToolID: "c1", ToolName: "exec", ToolArgs: `{"command":"ls"}`}},
		{name: "tool args as an object", event: "agent",
			payload: `{"runId":"r","sessionKey":"k","stream":"tool","data":{"phase":"start","name":"exec","toolCallId":"c1","args":{"command":"ls"}}}`,
			want:    tui.Event{Kind: tui.EventToolStart, RunID: "r", SessionKey: "k", ToolID: "c1", ToolName: "exec", ToolArgs: `{"command":"ls"}`}},
		{name: "tool result", event: "agent",
			payload: `{"runId":"r","sessionKey":"k","stream":"tool","data":{"phase":"result","name":"exec","toolCallId":"c1","isError":true,"result":"denied"}}`,
			want:    tui.Event{Kind: tui.EventToolResult, RunID: "r", SessionKey: "k", ToolID: "c1", ToolName: "exec", ToolError: true, Text: "denied"}},
		{name: "assistant stream is the chat's", event: "agent", payload: `{"runId":"r","stream":"assistant","data":{"delta":"x"}}`, drop: true},
		{name: "approval", event: "exec.approval.requested",
			payload: `{"id":"a1","expiresAtMs":5,"request":{"tool":"exec","args":"rm x","reason":"guarded","sessionKey":"k"}}`,
			want: tui.Event{Kind: tui.EventApproval, SessionKey: "k",
				Approval: tui.Approval{ID: "a1", SessionKey: "k", Tool: "exec", Args: "rm x", Reason: "guarded", ExpiresAtMs: 5}}},
		{name: "approval without id", event: "exec.approval.requested", payload: `{"request":{}}`, drop: true},
		{name: "resolved", event: "exec.approval.resolved", payload: `{"id":"a1","decision":"deny"}`,
			want: tui.Event{Kind: tui.EventApprovalResolved, Text: "deny", Approval: tui.Approval{ID: "a1"}}},
		{name: "other events", event: "presence", payload: `{}`, drop: true},
		{name: "bad json", event: "chat", payload: `{`, drop: true},
	}
	for _, tt := range tests {
		got, ok := tuiEvent(tt.event, []byte(tt.payload))
		if ok == tt.drop {
			t.Errorf("%s: kept = %v, want %v", tt.name, ok, !tt.drop)
			continue
		}
		if !tt.drop && got != tt.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
}

// chatGateway is a fake gateway for chats: one agent, an empty
// history, and chat.send answered by streaming "echo: <message>".
func chatGateway(t *testing.T) *clienttest.Server {
	t.Helper()
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	srv.Reply("agents.list", map[string]any{"defaultId": "main", "mainKey": "main", "agents": []any{map[string]any{"id": "main"}}})
	srv.Reply("chat.history", map[string]any{"messages": []any{}})
	srv.Reply("sessions.patch", map[string]any{"ok": true})
	srv.Reply("exec.approval.resolve", map[string]any{"id": "a1"})
	srv.Handle("agent", func(ctx context.Context, call *clienttest.Call) (any, error) {
		var p struct{ SessionKey, Message string }
		call.Decode(&p)
		if err := call.Accept(map[string]any{"runId": "agent-run"}); err != nil {
			return nil, err
		}
		call.Conn.Event("chat", map[string]any{"runId": "agent-run", "sessionKey": p.SessionKey, "state": "delta", "deltaText": "delivered: " + p.Message})
		call.Conn.Event("chat", map[string]any{"runId": "agent-run", "sessionKey": p.SessionKey, "state": "final"})
		return map[string]any{"runId": "agent-run", "status": "ok"}, nil
	})
	srv.Handle("chat.send", func(ctx context.Context, call *clienttest.Call) (any, error) {
		var p struct {
			SessionKey, Message, IdempotencyKey string
		}
		call.Decode(&p)
		go func() {
			for _, piece := range []string{"echo: ", p.Message} {
				call.Conn.Event("chat", map[string]any{"runId": "run-1", "sessionKey": p.SessionKey, "state": "delta", "deltaText": piece})
			}
			call.Conn.Event("chat", map[string]any{"runId": "run-1", "sessionKey": p.SessionKey, "state": "final"})
		}()
		return map[string]any{"runId": "run-1", "status": "started"}, nil
	})
	return srv
}

func requestsOf(srv *clienttest.Server, method string) []map[string]any {
	var out []map[string]any
	for _, r := range srv.Requests() {
		if r.Method == method {
			var p map[string]any
			json.Unmarshal(r.Params, &p)
			out = append(out, p)
		}
	}
	return out
}

// TestChatLineMode: `openclaw chat` reading a pipe, and `chat --plain`,
// chat line by line: the streamed answer is printed, --session names
// the session and --message is sent first.
func TestChatLineMode(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		stdin     string
		wantKey   string
		want      []string
		wantPatch string // thinkingLevel kept on the session
		wantAgent string // message sent by the agent method (delivered)
	}{
		{name: "piped stdin", args: []string{"chat"}, stdin: "hello\n", wantKey: "agent:main:main", want: []string{"echo: hello"}},
		{name: "plain", args: []string{"chat", "--plain"}, stdin: "hi there\n/quit\n", wantKey: "agent:main:main", want: []string{"echo: hi there"}},
		{name: "session and message", args: []string{"chat", "--plain", "--session", "side", "--message", "first"}, stdin: "",
			wantKey: "agent:main:side", want: []string{"echo: first"}},
		{name: "full session key", args: []string{"chat", "agent:ops:x"}, stdin: "q\n", wantKey: "agent:ops:x", want: []string{"echo: q"}},
		{name: "deliver and thinking", args: []string{"chat", "--plain", "--deliver", "--thinking", "high"}, stdin: "out\n/status\n",
			wantKey: "agent:main:main", want: []string{"delivered: out", "echo: /status"}, wantPatch: "high", wantAgent: "out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolate(t)
			srv := chatGateway(t)
			stdout, stderr, err := runCLIStdin(t, tt.stdin, append(tt.args, "--url", srv.URL(), "--token", testToken)...)
			if err != nil {
				t.Fatalf("chat: %v\n%s", err, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q: %q", w, stdout)
				}
			}
			sends := requestsOf(srv, "chat.send")
			if len(sends) == 0 || sends[0]["sessionKey"] != tt.wantKey {
				t.Fatalf("chat.send calls %v, want session %s", sends, tt.wantKey)
			}
			if p := requestsOf(srv, "sessions.patch"); tt.wantPatch != "" && (len(p) != 1 || p[0]["thinkingLevel"] != tt.wantPatch) {
				t.Errorf("sessions.patch calls %v, want thinkingLevel %s", p, tt.wantPatch)
			}
			if p := requestsOf(srv, "agent"); tt.wantAgent != "" && (len(p) != 1 || p[0]["message"] != tt.wantAgent || p[0]["deliver"] != true) {
				t.Errorf("agent calls %v, want %q delivered", p, tt.wantAgent)
			} else if tt.wantAgent == "" && len(p) != 0 {
				t.Errorf("agent calls %v, want none", p)
			}
		})
	}
}

// TestTUIRefusals: what OpenClaw's tui refuses, and a TUI without a
// terminal, are clear errors before anything is dialled.
func TestTUIRefusals(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"tui", "--local"}, "--local"},
		{[]string{"chat", "--local"}, "--local"},
		{[]string{"tui", "ws://example.test/x"}, "URL target is not supported"},
		{[]string{"tui", "main", "--session", "x"}, "cannot combine with --session"},
		{[]string{"tui", "--thinking", "galaxy"}, `--thinking "galaxy": one of off`},
		{[]string{"tui", "--history-limit", "-1"}, "--history-limit"},
		{[]string{"tui", "a", "b"}, "accepts at most 1 arg"},
		{[]string{"tui"}, "needs a terminal; use `openclaw chat --plain`"},
		{[]string{"terminal"}, "needs a terminal"},
	}
	for _, tt := range tests {
		isolate(t)
		_, stderr, err := runCLI(t, tt.args...)
		if err == nil || !strings.Contains(err.Error()+stderr, tt.want) {
			t.Errorf("%q: err %v, stderr %q; want %q", tt.args, err, stderr, tt.want)
		}
	}
}

// TestTUIBackendCalls: the gateway-backed Backend asks for the approvals
// scope, sends --thinking (kept on the session once) and --deliver (by
// the agent method, which delivers), and answers approvals with
// exec.approval.resolve.
func TestTUIBackendCalls(t *testing.T) {
	isolate(t)
	srv := chatGateway(t)
	a := &app{stdout: &strings.Builder{}, stderr: &strings.Builder{}}
	ctx := context.Background()
	g := &gatewayFlags{url: srv.URL(), token: testToken, timeoutMs: 5000}
	s, err := a.connect(ctx, g, chatScopes)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if c, _ := srv.LastConnect(); !slices.Contains(c.Params.Scopes, string(protocol.ScopeApprovals)) {
		t.Fatalf("connect scopes %v lack %s", c.Params.Scopes, protocol.ScopeApprovals)
	}
	b := newGatewayBackend(s, &tuiFlags{thinking: "high", timeoutMs: 30_000})
	for range 2 {
		if _, err := b.Send(ctx, "agent:main:main", "hi"); err != nil {
			t.Fatal(err)
		}
	}
	if p := requestsOf(srv, "sessions.patch"); len(p) != 1 || p[0]["thinkingLevel"] != "high" {
		t.Fatalf("sessions.patch calls %v, want one with thinkingLevel high", p)
	}
	if p := requestsOf(srv, "chat.send"); len(p) != 2 || p[0]["thinking"] != "high" || p[0]["timeoutMs"] != float64(30_000) {
		t.Fatalf("chat.send calls %v", p)
	}
	d := newGatewayBackend(s, &tuiFlags{deliver: true})
	if id, err := d.Send(ctx, "agent:main:main", "deliver me"); err != nil || id != "agent-run" {
		t.Fatalf("deliver send: %q %v", id, err)
	}
	if p := requestsOf(srv, "agent"); len(p) != 1 || p[0]["deliver"] != true || p[0]["message"] != "deliver me" {
		t.Fatalf("agent calls %v", p)
	}
	if _, err := d.Send(ctx, "agent:main:main", "/status"); err != nil {
		t.Fatal(err)
	}
	if p := requestsOf(srv, "chat.send"); len(p) != 3 || p[2]["message"] != "/status" {
		t.Fatalf("a command with --deliver should go by chat.send: %v", p)
	}
	if err := b.ResolveApproval(ctx, "a1", "allow-once"); err != nil {
		t.Fatal(err)
	}
	if p := requestsOf(srv, "exec.approval.resolve"); len(p) != 1 || p[0]["id"] != "a1" || p[0]["decision"] != "allow-once" {
		t.Fatalf("exec.approval.resolve calls %v", p)
	}
}
