package agents

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// waitHeld waits until the fake model holds n requests.
func (f *fixture) waitHeld(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for f.model.Held() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the model holds %d requests, want %d", f.model.Held(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitRun waits for the end of a run this service knows.
func (f *fixture) waitRun(t *testing.T, runID string) RunResult {
	t.Helper()
	run, ok := f.svc.Lookup(runID)
	if !ok {
		t.Fatalf("no run %s", runID)
	}
	select {
	case <-run.Done():
	case <-time.After(20 * time.Second):
		t.Fatalf("run %s did not finish", runID)
	}
	return run.Result()
}

func chatSend(t *testing.T, c *client.Client, key, text, idem string) {
	t.Helper()
	var out map[string]any
	if err := c.Call(context.Background(), "chat.send", map[string]any{"sessionKey": key, "message": text, "idempotencyKey": idem}, &out); err != nil {
		t.Fatalf("chat.send %q: %v", text, err)
	}
	if out["status"] != "started" {
		t.Fatalf("chat.send %q: %v", text, out)
	}
}

// TestQueuedTurnsAnswerTheirOwnMessage: the attack is three chat.send on
// one session in quick succession, the second and third accepted (and
// stored) while the first is still at the model. With the fake model
// echoing the last user message it is given, the answers must be "1",
// "2", "3": each run's context ends at its own message (with the earlier
// turns' answers before it). Loading the whole transcript answered
// "1, 3, 3", and in a session several senders share, a reply carrying the
// next sender's words.
func TestQueuedTurnsAnswerTheirOwnMessage(t *testing.T) {
	f := newFixture(t, "", nil)
	c := serveRPC(t, f)(protocol.ScopeWrite, protocol.ScopeRead)
	const key = "agent:main:main"
	f.model.Hold()
	chatSend(t, c, key, "1", "q1")
	f.waitHeld(t, 1) // run 1 is at the model
	chatSend(t, c, key, "2", "q2")
	chatSend(t, c, key, "3", "q3")
	f.model.Release()

	for i, id := range []string{"q1", "q2", "q3"} {
		want := fmt.Sprintf("echo: %d", i+1)
		if res := f.waitRun(t, id); res.Status != "ok" || res.Text != want {
			t.Errorf("run %s answered %q (%s), want %q", id, res.Text, res.Status, want)
		}
	}
	// What each run showed the model: the turns before it, answered, then
	// its own message; never a later one.
	reqs := f.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	wantSeen := []string{"user:1", "user:1 assistant:echo: 1 user:2", "user:1 assistant:echo: 1 user:2 assistant:echo: 2 user:3"}
	for i, r := range reqs {
		var seen []string
		for _, m := range r.Messages {
			seen = append(seen, m.Role+":"+m.Text)
		}
		if got := strings.Join(seen, " "); got != wantSeen[i] {
			t.Errorf("run %d showed the model %q, want %q", i+1, got, wantSeen[i])
		}
	}
}

// TestQueuedTurnCompactionKeepsLaterMessages: run 2 of three queued long
// messages fills the window and compacts. Its context (u1 a1 u2) is not
// the transcript (u1 u2 u3 a1), so its summary may cover u1 only: one
// covering a1's seq would hide u2 and u3 from every later context, and
// run 3 would answer without its own message.
func TestQueuedTurnCompactionKeepsLaterMessages(t *testing.T) {
	// Mode "default": one summary request, no audit. The echo model's summary repeats what it
	// summarises, which safeguard's guard rightly refuses; this test is about the queue.
	f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"small", contextWindow:2000}]}}}, agents:{defaults:{model:"fake/small", compaction:{mode:"default"}}}}`, nil)
	c := serveRPC(t, f)(protocol.ScopeWrite, protocol.ScopeRead)
	long := strings.TrimSpace(strings.Repeat("lorem ipsum dolor sit amet ", 80)) // ~540 tokens
	f.model.Hold()
	chatSend(t, c, "agent:main:main", "one "+long, "c1")
	f.waitHeld(t, 1)
	chatSend(t, c, "agent:main:main", "two "+long, "c2")
	chatSend(t, c, "agent:main:main", "three "+long, "c3")
	f.model.Release()
	for _, tc := range []struct{ id, want string }{{"c1", "one"}, {"c2", "two"}, {"c3", "three"}} {
		if res := f.waitRun(t, tc.id); res.Status != "ok" || res.Text != "echo: "+tc.want+" "+long {
			t.Errorf("run %s answered %q (%s), want the echo of %q", tc.id, clip(res.Text, 40), res.Status, tc.want)
		}
	}
	compacted := false
	for _, r := range f.model.Requests() {
		if len(r.Messages) > 0 && strings.HasPrefix(r.Messages[0].Text, "[Summary of the earlier conversation]") {
			compacted = true
		}
	}
	if !compacted {
		t.Fatal("no run compacted: the test did not fill the window")
	}
}
