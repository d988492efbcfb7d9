package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestWhatsAppUnlinkedIsAState: a configured but never linked WhatsApp
// account is a state in `openclaw channels status` that says how to link
// it, not a crash or a reconnect loop.
func TestWhatsAppUnlinkedIsAState(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{Config: `{
  gateway: { mode: "local" },
  channels: { whatsapp: { allowFrom: ["+4917612345678"] } },
}`})
	// The account starts after the gateway is ready; it says "starting"
	// until it has looked for a link.
	var st result
	settled := poll(30*time.Second, func() bool {
		st = ourClient(t, g).run(t, "channels", "status")
		st.mustSucceed(t)
		return !strings.Contains(st.Stdout, "starting")
	})
	if !settled || !strings.Contains(st.Stdout, "WhatsApp") || !strings.Contains(st.Stdout, "logged-out") || !strings.Contains(st.Stdout, "channels login --channel whatsapp") {
		t.Fatalf("channels status:\n%s", st.Stdout)
	}
	// Still serving.
	ourClient(t, g).run(t, "health").mustSucceed(t)
}
