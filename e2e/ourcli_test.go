package e2e

import (
	"strings"
	"testing"
)

// TestOurCLI runs our own CLI against the gateway with the gateway's own
// environment: no --url and no --token, so it finds the port in
// OPENCLAW_GATEWAY_PORT and the token in OPENCLAW_GATEWAY_TOKEN.
func TestOurCLI(t *testing.T) {
	needOurBin(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{})

	tests := []struct {
		name  string
		args  []string
		check check // nil: exit 0 with some output is enough
	}{
		{"health --json", []string{"health", "--json"}, objectWith("ok", true)},
		{"health", []string{"health"}, nil},
		{"status", []string{"status"}, nil},
		{"status --json", []string{"status", "--json"}, isObject},
		{"gateway call health", []string{"gateway", "call", "health", "--params", "{}"}, nil},
		{"gateway call health --json", []string{"gateway", "call", "health", "--params", "{}", "--json"}, objectWith("ok", true)},
		{"gateway call system-presence --json", []string{"gateway", "call", "system-presence", "--json"}, presenceList},
		{"logs", []string{"logs"}, nil},
		// The real CLI prints JSON lines here; ours may print the logs.tail
		// result as one object. Either is machine-readable.
		{"logs --json", []string{"logs", "--json", "--limit", "5"}, jsonOutput},
		{"devices list", []string{"devices", "list"}, nil},
		{"devices list --json", []string{"devices", "list", "--json"}, deviceLists},
		{"system presence --json", []string{"system", "presence", "--json"}, presenceList},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := ourClient(t, g).run(t, tc.args...)
			r.mustSucceed(t)
			if tc.check != nil {
				tc.check(t, r)
			} else if strings.TrimSpace(r.Stdout) == "" {
				t.Fatalf("no output:\n%s", r)
			}
		})
	}
}

// TestOurCLIWrongToken: our CLI reports the refusal by its code and the
// gateway keeps serving.
func TestOurCLIWrongToken(t *testing.T) {
	needOurBin(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{})
	c := ourClient(t, g)

	r := c.run(t, "gateway", "call", "health", "--token", "wrong-"+g.Token, "--json")
	if r.Code == 0 {
		t.Fatalf("wrong token: command succeeded:\n%s", r)
	}
	if !strings.Contains(r.Stdout+r.Stderr, "AUTH_TOKEN_MISMATCH") {
		t.Errorf("wrong token: output does not mention AUTH_TOKEN_MISMATCH:\n%s", r)
	}
	r = c.run(t, "health", "--json")
	r.mustSucceed(t)
	objectWith("ok", true)(t, r)
}
