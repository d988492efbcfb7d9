package e2e

import (
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// TestRealTUIConversation drives OpenClaw's own terminal UI, in tmux,
// against our gateway: it connects, shows the session and streams an
// answer to a typed message.
func TestRealTUIConversation(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	_, waitScreen, keys := realTUI(t, g) // waits until connected to session main
	keys("hello from the tui", "Enter")
	waitScreen("echo: hello from the tui")
}
