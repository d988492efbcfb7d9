package e2e

import (
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
)

// TestAgentDeliverTelegram: `openclaw agent --deliver` from a script
// sends the agent's reply to a Telegram chat through the real client
// library in the real binary, says so in --json, and a run with nowhere
// to deliver exits 1.
func TestAgentDeliverTelegram(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	const token = "123456:TEST-token-deliver"
	tg := telegramtest.New(t, token)
	g := startGateway(t, gatewayOpts{Config: telegramConfig(model.URL(), tg.URL(), token, "")})
	c := ourClient(t, g)

	// Nobody has talked to the agent on a channel yet: no last chat.
	nowhere := c.run(t, "agent", "-m", "anyone there?", "--deliver")
	if nowhere.Code != 1 || !strings.Contains(nowhere.Stderr, "not delivered") {
		t.Fatalf("delivery with no chat:\n%s", nowhere)
	}

	r := c.run(t, "agent", "--message", "status update", "--deliver", "--channel", "telegram", "--to", "2001", "--json")
	r.mustSucceed(t)
	if !strings.Contains(r.Stdout, `"deliveryStatus"`) || !strings.Contains(r.Stdout, `"status": "sent"`) {
		t.Fatalf("agent --deliver --json:\n%s", r)
	}
	sent := waitSentWhere(t, tg, "with the agent's reply", func(m telegramtest.Message) bool {
		return strings.Contains(m.Text, "echo: status update")
	})
	if sent.ChatID != "2001" {
		t.Errorf("delivered to chat %s, want 2001", sent.ChatID)
	}
}

// TestAgentDeliverUnderSendPolicy is an attack test: a script's run for
// an agent whose sessions session.sendPolicy closes must not reach the chat
// through --deliver, while another agent's delivery still goes out.
func TestAgentDeliverUnderSendPolicy(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	const token = "123456:TEST-token-policy"
	tg := telegramtest.New(t, token)
	cfg := strings.Replace(telegramConfig(model.URL(), tg.URL(), token, `session: { sendPolicy: { rules: [{ action: "deny", match: { keyPrefix: "agent:ops:" } }] } },`),
		`agents: { defaults: { model: "fake/echo-1" } },`,
		`agents: { defaults: { model: "fake/echo-1" }, list: [{ id: "main", default: true }, { id: "ops" }] },`, 1)
	g := startGateway(t, gatewayOpts{Config: cfg})
	c := ourClient(t, g)

	denied := c.run(t, "agent", "--agent", "ops", "--message", "the secret plan", "--deliver", "--channel", "telegram", "--to", "2001", "--json")
	if !strings.Contains(denied.Stdout, `"status": "suppressed"`) || !strings.Contains(denied.Stdout, `"reason": "send_policy_denied"`) {
		t.Fatalf("agent --deliver under a deny policy:\n%s", denied)
	}
	ok := c.run(t, "agent", "--message", "all clear", "--deliver", "--channel", "telegram", "--to", "2002", "--json")
	ok.mustSucceed(t)
	waitSentWhere(t, tg, "with the allowed reply", func(m telegramtest.Message) bool {
		return strings.Contains(m.Text, "echo: all clear")
	})
	// Sends go out in order and the denied run had ended first.
	for _, m := range tg.Sent() {
		if strings.Contains(m.Text, "secret") {
			t.Fatalf("the denied reply reached chat %s: %q", m.ChatID, m.Text)
		}
	}
}
