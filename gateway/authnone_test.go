package gateway

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuthNoneRefusedBeyondLoopback: whoever starts the gateway (a
// service file, a container's entrypoint, a copied command line) asks for
// no auth on a bind that reaches the network, by the flag or the file.
// The gateway must refuse to start rather than open the bus to anyone.
func TestAuthNoneRefusedBeyondLoopback(t *testing.T) {
	for _, tc := range []struct {
		name, config, bind, auth, want string
	}{
		{"flags", `{ gateway: { mode: "local" } }`, "lan", "none", `--auth "none" is refused`},
		{"file", `{ gateway: { mode: "local", bind: "lan", auth: { mode: "none" } } }`, "", "", `auth mode "none" is only allowed with a loopback bind`},
		{"flag bind, file auth", `{ gateway: { mode: "local", auth: { mode: "none" } } }`, "auto", "", `gateway.auth.mode "none" is refused`},
		{"custom host", `{ gateway: { mode: "local", bind: "custom", customBindHost: "0.0.0.0" } }`, "", "none", `--auth "none" is refused`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := filepath.Join(dir, "openclaw.json")
			if err := os.WriteFile(cfg, []byte(tc.config), 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			err := Run(ctx, Options{
				StateDir: dir, ConfigPath: cfg, Port: -1, Bind: tc.bind, AuthMode: tc.auth,
				Getenv: func(string) string { return "" }, Stderr: io.Discard,
				Ready: func(addr string) {
					t.Errorf("the gateway listened on %s without auth", addr)
					cancel()
				},
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestAuthNoneOnLoopbackStarts: on loopback, --auth none is the user's
// call and the gateway starts.
func TestAuthNoneOnLoopbackStarts(t *testing.T) {
	startGatewayWith(t, t.TempDir(), nil, func(o *Options) { o.AuthMode = "none" })
}
