package security

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
	"github.com/openclaw-go/openclaw/e2e/harness"
)

// pairingCode waits for the pairing code the bot sent to a stranger.
func pairingCode(t *testing.T, tg *telegramtest.Server, chatID string) string {
	t.Helper()
	m := waitSent(t, tg, "with a pairing code for "+chatID, func(m telegramtest.Message) bool {
		return m.ChatID == chatID && strings.Contains(m.Text, "pairing code")
	})
	code := regexp.MustCompile(`[A-HJ-NP-Z2-9]{8}`).FindString(m.Text)
	if code == "" {
		t.Fatalf("no code in %q", m.Text)
	}
	return code
}

// TestOwnerBootstrapOnlyOnce: on a gateway without an owner, the first
// sender the operator approves becomes the owner (OpenClaw's first-run
// bootstrap); every later approval grants DM access only, so a second
// stranger who gets paired never gains owner rights. A client holding
// only operator.pairing cannot make anyone the owner.
func TestOwnerBootstrapOnlyOnce(t *testing.T) {
	t.Parallel()
	model := fakemodel.New(t)
	const token = "5007:TEST-owner"
	tg := telegramtest.New(t, token)
	g := harness.Start(t, harness.Opts{Config: fmt.Sprintf(`{
  gateway: { mode: "local" },
  models: { providers: { fake: { baseUrl: %q, models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1" } },
  channels: { telegram: { botToken: %q, apiRoot: %q, dmPolicy: "pairing" } },
}
`, model.URL()+"/v1", token, tg.URL())})
	ann := telegramtest.User{ID: 1001, Username: "ann", FirstName: "Ann"}
	bob := telegramtest.User{ID: 1002, Username: "bob", FirstName: "Bob"}
	tg.AddPrivateText(ann, "hi")
	first := g.CLI(t, "pairing", "approve", "telegram", pairingCode(t, tg, "1001"))
	if first.Code != 0 || !strings.Contains(first.Stdout, "Command owner configured: telegram:1001") {
		t.Fatalf("first approval:\n%s", first)
	}

	tg.AddPrivateText(bob, "hi")
	code := pairingCode(t, tg, "1002")
	pairer := g.Dial(t, "operator.pairing")
	if _, err := harness.Call(t, pairer, "channels.pairing.approve", map[string]any{"channel": "telegram", "requestId": code, "bootstrapCommandOwner": true}); err == nil || !strings.Contains(err.Error(), "operator.admin") {
		t.Fatalf("a pairing-scoped client asked to bootstrap an owner: %v", err)
	}
	second := g.CLI(t, "pairing", "approve", "telegram", code)
	if second.Code != 0 || strings.Contains(second.Stdout, "owner") {
		t.Fatalf("second approval:\n%s", second)
	}
	cfg, _ := os.ReadFile(g.ConfigPath)
	if !strings.Contains(string(cfg), `"telegram:1001"`) || strings.Contains(string(cfg), "1002") {
		t.Fatalf("owners after two approvals:\n%s", cfg)
	}
}
