package security

import (
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/e2e/harness"
)

// TestAcceptedChatSendSurvivesACrash: a client sends a chat message and
// is told it was accepted; the gateway then dies (kill -9, or a stop)
// while the model is still writing the answer. The client cannot tell
// the turn was lost, so the restarted gateway must run it again and
// answer it exactly once: one user message, one answer in chat.history,
// and a repeat of the same chat.send (same idempotency key) gets that
// answer instead of a second turn.
func TestAcceptedChatSendSurvivesACrash(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		stop func(g *harness.Gateway, t *testing.T)
	}{
		{"kill -9", func(g *harness.Gateway, t *testing.T) { g.Kill(); g.Restart(t) }},
		{"SIGTERM", func(g *harness.Gateway, t *testing.T) { g.Restart(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			model := fakemodel.New(t)
			g := harness.Start(t, harness.Opts{Config: echoConfig(model.URL(), "")})
			const key = "agent:main:main"
			model.Hold()
			c := g.Dial(t, "operator.write", "operator.read")
			send := map[string]any{"sessionKey": key, "message": "are you still there?", "idempotencyKey": "resume-1"}
			if out := harness.MustCall(t, c, "chat.send", send); out["status"] != "started" {
				t.Fatalf("chat.send: %v", out)
			}
			if !harness.Poll(60*time.Second, func() bool { return model.Held() == 1 }) {
				t.Fatal("the turn never reached the model")
			}
			tc.stop(g, t)
			model.Release()

			c = g.Dial(t, "operator.write", "operator.read")
			if !harness.Poll(90*time.Second, func() bool { _, a := userMessages(t, c, key); return a > 0 }) {
				t.Fatalf("the accepted message was never answered after the restart:\n%s", harness.Clip(g.Log()))
			}
			users, answers := userMessages(t, c, key)
			if users != 1 || answers != 1 {
				t.Fatalf("history holds %d messages and %d answers, want one of each", users, answers)
			}
			h := harness.MustCall(t, c, "chat.history", map[string]any{"sessionKey": key})
			if !strings.Contains(harness.JSON(t, h["messages"]), "echo: are you still there?") {
				t.Fatalf("the answer is not the echo of the message: %v", h["messages"])
			}
			// The dead process's request may reach the fake too; its answer
			// went nowhere. A repeat must not ask the model again.
			asked := len(model.Requests())
			out := harness.MustCall(t, c, "chat.send", send)
			if out["status"] != "ok" {
				t.Fatalf("repeat of the answered chat.send: %v", out)
			}
			if users, answers := userMessages(t, c, key); users != 1 || answers != 1 {
				t.Fatalf("after the repeat: %d messages and %d answers, want one of each", users, answers)
			}
			if n := len(model.Requests()); n != asked {
				t.Fatalf("the repeat asked the model again (%d requests, then %d)", asked, n)
			}
		})
	}
}
