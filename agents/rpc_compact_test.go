package agents

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// compactFixture holds three turns in agent:main:main and returns the
// fixture and its session id.
func compactFixture(t *testing.T) (*fixture, string) {
	t.Helper()
	f := newFixture(t, "", nil)
	for i, text := range []string{"first question", "second question", "third question"} {
		f.model.Script(fakemodel.Reply{Text: "answer " + text})
		if res := f.run(t, StartRequest{Message: text, RunID: "r" + string(rune('1'+i))}); res.Status != "ok" {
			t.Fatalf("turn %d: %+v", i, res)
		}
	}
	sess, err := f.store.Get(context.Background(), "agent:main:main")
	if err != nil {
		t.Fatal(err)
	}
	return f, sess.SessionID
}

// contextTexts is what the model would be sent next: role and text of
// each message of the session's context.
func contextTexts(t *testing.T, f *fixture, sessionID string) []string {
	t.Helper()
	msgs, err := f.store.Context(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		out = append(out, m.Role+":"+m.Text)
	}
	return out
}

// TestSessionsCompact: sessions.compact summarises all but the last
// message with the session's model, or with maxLines keeps the last
// lines; the transcript keeps every message either way.
func TestSessionsCompact(t *testing.T) {
	tests := []struct {
		name        string
		params      map[string]any
		wantKept    int // 0: a summary
		wantContext []string
	}{
		{"summary", map[string]any{}, 0, []string{"system:the summary", "assistant:answer third question"}},
		{"max lines", map[string]any{"maxLines": 3}, 3,
			[]string{"system:" + truncatedNote, "assistant:answer second question", "user:third question", "assistant:answer third question"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, sid := compactFixture(t)
			dial := serveRPC(t, f)
			f.model.Script(fakemodel.Reply{Text: "the summary"})
			params := map[string]any{"key": "agent:main:main"}
			for k, v := range tc.params {
				params[k] = v
			}
			var out struct {
				OK, Compacted bool
				Key           string
				Kept          *int
				Result        *struct{ TokensBefore, TokensAfter int }
			}
			if err := dial(protocol.ScopeAdmin).Call(context.Background(), "sessions.compact", params, &out); err != nil {
				t.Fatal(err)
			}
			if !out.OK || !out.Compacted || out.Key != "agent:main:main" {
				t.Fatalf("answer = %+v", out)
			}
			if tc.wantKept > 0 {
				if out.Kept == nil || *out.Kept != tc.wantKept || out.Result != nil {
					t.Errorf("kept = %v, result = %v; want kept %d", out.Kept, out.Result, tc.wantKept)
				}
				if n := len(f.model.Requests()); n != 3 {
					t.Errorf("a truncation called the model: %d requests, want the 3 turns'", n)
				}
			} else {
				if out.Result == nil || out.Result.TokensAfter >= out.Result.TokensBefore || out.Kept != nil {
					t.Errorf("result = %+v, kept = %v; want fewer tokens after", out.Result, out.Kept)
				}
				reqs := f.model.Requests()
				last := reqs[len(reqs)-1]
				if !strings.HasPrefix(last.System, compactPrompt) || !strings.Contains(last.Messages[0].Text, "[user] first question") ||
					strings.Contains(last.Messages[0].Text, "answer third question") {
					t.Errorf("summary request = system %q, text %q; want the compaction prompt over all but the last message", last.System, last.Messages[0].Text)
				}
			}
			if got := contextTexts(t, f, sid); strings.Join(got, "|") != strings.Join(tc.wantContext, "|") {
				t.Errorf("context = %q, want %q", got, tc.wantContext)
			}
			hist, _ := f.store.History(context.Background(), sid, sessions.HistoryQuery{})
			if n := len(hist); n != 7 {
				t.Errorf("transcript holds %d messages, want the 6 of the turns and the summary", n)
			}
			if ch := f.rec.changes(); len(ch) == 0 || ch[len(ch)-1] != "compact agent:main:main" {
				t.Errorf("sessions.changed = %v, want a compact last", ch)
			}
		})
	}
}

// TestSessionsCompactRefuses: what sessions.compact refuses, or does not
// do, leaves the context as it was.
func TestSessionsCompactRefuses(t *testing.T) {
	tests := []struct {
		name     string
		scope    protocol.Scope
		params   map[string]any
		reply    *fakemodel.Reply
		wantCode string // "" = answered ok, not compacted
		wantText string // in the error or the reason
	}{
		{"write scope", protocol.ScopeWrite, map[string]any{"key": "agent:main:main"}, nil, protocol.CodeForbidden, "operator.admin"},
		{"read scope", protocol.ScopeRead, map[string]any{"key": "agent:main:main", "maxLines": 1}, nil, protocol.CodeForbidden, "operator.admin"},
		{"no key", protocol.ScopeAdmin, map[string]any{}, nil, protocol.CodeInvalidRequest, "key is required"},
		{"zero lines", protocol.ScopeAdmin, map[string]any{"key": "agent:main:main", "maxLines": 0}, nil, protocol.CodeInvalidRequest, "maxLines must be at least 1"},
		{"unknown session", protocol.ScopeAdmin, map[string]any{"key": "agent:main:nope"}, nil, protocol.CodeInvalidRequest, `no session "agent:main:nope"`},
		{"other agent", protocol.ScopeAdmin, map[string]any{"key": "agent:main:main", "agentId": "work"}, nil, protocol.CodeInvalidRequest, `belongs to agent "main"`},
		{"model fails", protocol.ScopeAdmin, map[string]any{"key": "agent:main:main"}, &fakemodel.Reply{Status: 401}, protocol.CodeUnavailable, "compact \"agent:main:main\""},
		{"empty summary", protocol.ScopeAdmin, map[string]any{"key": "agent:main:main"}, &fakemodel.Reply{Text: "  "}, protocol.CodeUnavailable, "empty summary"},
		{"lines to spare", protocol.ScopeAdmin, map[string]any{"key": "agent:main:main", "maxLines": 6}, nil, "", "holds 6 messages"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, sid := compactFixture(t)
			dial := serveRPC(t, f)
			before := contextTexts(t, f, sid)
			if tc.reply != nil {
				f.model.Script(*tc.reply)
			}
			var out struct {
				OK, Compacted bool
				Reason        string
			}
			err := dial(tc.scope).Call(context.Background(), "sessions.compact", tc.params, &out)
			if tc.wantCode == "" {
				if err != nil || !out.OK || out.Compacted || !strings.Contains(out.Reason, tc.wantText) {
					t.Fatalf("answer = %+v, %v; want ok, not compacted, reason with %q", out, err, tc.wantText)
				}
			} else {
				var perr *protocol.Error
				if !errors.As(err, &perr) || perr.Code != tc.wantCode || !strings.Contains(perr.Message, tc.wantText) {
					t.Fatalf("error = %v, answer %+v; want %s with %q", err, out, tc.wantCode, tc.wantText)
				}
			}
			if after := contextTexts(t, f, sid); strings.Join(after, "|") != strings.Join(before, "|") {
				t.Errorf("context changed: %q, was %q", after, before)
			}
		})
	}
}

// TestSessionsCompactEmpty: a session with nothing to summarise answers
// ok, not compacted, and does not call the model.
func TestSessionsCompactEmpty(t *testing.T) {
	f := newFixture(t, "", nil)
	dial := serveRPC(t, f)
	if _, _, err := f.store.Ensure(context.Background(), "agent:main:empty", sessions.Init{AgentID: "main"}); err != nil {
		t.Fatal(err)
	}
	var out struct {
		OK, Compacted bool
		Reason        string
	}
	if err := dial(protocol.ScopeAdmin).Call(context.Background(), "sessions.compact", map[string]any{"key": "agent:main:empty"}, &out); err != nil {
		t.Fatal(err)
	}
	if !out.OK || out.Compacted || out.Reason == "" || len(f.model.Requests()) != 0 {
		t.Fatalf("answer = %+v, model requests %d; want ok, not compacted, a reason, no model call", out, len(f.model.Requests()))
	}
}
