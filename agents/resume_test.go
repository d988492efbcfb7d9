package agents

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// restart opens a new service on the fixture's database file, as a new
// process would, and resumes the accepted runs. The old service is left
// as it is: after crash it can no longer write.
func (f *fixture) restart(t *testing.T) int {
	t.Helper()
	old := f.svc
	t.Cleanup(old.Close)
	f.open(t, old.config(), nil)
	n, err := f.svc.Resume(context.Background())
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	return n
}

// crash cuts the service off from its database mid-run, as kill -9
// does: nothing it does afterwards is stored.
func (f *fixture) crash(t *testing.T) {
	t.Helper()
	if err := f.db.Close(); err != nil {
		t.Fatal(err)
	}
}

// transcriptOf is the key's current transcript as "role:text" lines.
func (f *fixture) transcriptOf(t *testing.T, key string) []string {
	t.Helper()
	sess, err := f.store.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := f.store.History(context.Background(), sess.SessionID, sessions.HistoryQuery{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role + ":" + m.Text
	}
	return out
}

func (f *fixture) acceptedRuns(t *testing.T) int {
	t.Helper()
	runs, err := f.store.AcceptedRuns(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return len(runs)
}

// TestAcceptedChatSendIsAnsweredAfterACrash: a client's chat.send was
// acknowledged, then the gateway died (kill -9) while the model was
// still answering. The next process on the same database must run that
// turn again and answer it exactly once: one user message, one answer,
// and nothing left to resume.
func TestAcceptedChatSendIsAnsweredAfterACrash(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(f *fixture, t *testing.T)
	}{
		{"kill -9", (*fixture).crash},
		{"shutdown mid-turn", func(f *fixture, t *testing.T) { f.svc.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", nil)
			c := serveRPC(t, f)(protocol.ScopeWrite)
			f.model.Hold()
			chatSend(t, c, "agent:main:main", "are you there?", "k1")
			f.waitHeld(t, 1)
			tc.stop(f, t)

			if n := f.restart(t); n != 1 {
				t.Fatalf("resumed %d runs, want 1", n)
			}
			f.model.Release()
			if res := f.waitRun(t, "k1"); res.Status != "ok" || res.Text != "echo: are you there?" {
				t.Fatalf("resumed run ended %s %q (%s)", res.Status, res.Text, res.Error)
			}
			want := "user:are you there? assistant:echo: are you there?"
			if got := strings.Join(f.transcriptOf(t, "agent:main:main"), " "); got != want {
				t.Fatalf("transcript %q, want %q", got, want)
			}
			if n := f.acceptedRuns(t); n != 0 {
				t.Fatalf("%d runs still accepted after the answer", n)
			}
			// Another restart finds nothing to do.
			if n := f.restart(t); n != 0 {
				t.Fatalf("second restart resumed %d runs", n)
			}
		})
	}
}

// TestEndedRunsAreNotResumed: what ended stays ended across a restart.
// An answered run, a run a person aborted, and an answered run whose
// accepted row outlived it (a crash between the two writes) are not run
// again; a client repeating an answered chat.send after a restart gets
// the answer, not a second turn.
func TestEndedRunsAreNotResumed(t *testing.T) {
	f := newFixture(t, "", nil)
	c := serveRPC(t, f)(protocol.ScopeWrite)
	ctx := context.Background()
	chatSend(t, c, "agent:main:main", "first", "done-1")
	f.waitRun(t, "done-1")

	f.model.Script(fakemodel.Reply{Text: "too late", Delay: time.Minute})
	chatSend(t, c, "agent:main:ops", "stop me", "stop-1")
	for deadline := time.Now().Add(20 * time.Second); len(f.model.Requests()) < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the run never reached the model")
		}
	}
	if !f.svc.Abort("agent:main:ops", "stop-1") {
		t.Fatal("abort found no run")
	}
	if res := f.waitRun(t, "stop-1"); res.Status != "aborted" {
		t.Fatalf("aborted run ended %s", res.Status)
	}

	// A crash right after the answer was stored, before the run was
	// marked ended.
	sess, _ := f.store.Get(ctx, "agent:main:main")
	if _, err := f.db.DB.ExecContext(ctx, `INSERT INTO accepted_runs (run_id, session_key, session_id, agent_id, accepted_at)
		VALUES ('done-1', 'agent:main:main', ?, 'main', 0)`, sess.SessionID); err != nil {
		t.Fatal(err)
	}
	asked := len(f.model.Requests())
	f.svc.Close()
	if n := f.restart(t); n != 0 {
		t.Fatalf("resumed %d ended runs", n)
	}
	if n := f.acceptedRuns(t); n != 0 {
		t.Fatalf("%d runs still accepted", n)
	}

	// The client did not hear the answer and sends again with the same
	// idempotency key.
	c = serveRPC(t, f)(protocol.ScopeWrite)
	var out map[string]any
	if err := c.Call(ctx, "chat.send", map[string]any{"sessionKey": "agent:main:main", "message": "first", "idempotencyKey": "done-1"}, &out); err != nil {
		t.Fatal(err)
	}
	if out["status"] != "ok" {
		t.Fatalf("repeat after restart: %v", out)
	}
	if res := f.waitRun(t, "done-1"); res.Text != "echo: first" {
		t.Fatalf("repeat answered %q", res.Text)
	}
	if n := len(f.model.Requests()); n != asked {
		t.Fatalf("the model was asked %d more times after the restart", n-asked)
	}
	if got := f.transcriptOf(t, "agent:main:main"); len(got) != 2 {
		t.Fatalf("transcript %q: want one message and one answer", got)
	}
}
