package gateway

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Trusted-proxy auth believes a header any client can write, so the
// gateway refuses to start in that mode unless it knows which addresses
// the header may come from and which header it is.
func TestTrustedProxyModeNeedsProxiesAndHeader(t *testing.T) {
	cases := []struct{ name, config, want string }{
		{"no trusted proxies on a public bind", `{gateway: {bind: "lan", auth: {mode: "trusted-proxy", trustedProxy: {userHeader: "x-forwarded-user"}}}}`, "needs gateway.trustedProxies"},
		{"no trusted proxies on loopback", `{gateway: {auth: {mode: "trusted-proxy", trustedProxy: {userHeader: "x-forwarded-user"}}}}`, "needs gateway.trustedProxies"},
		{"no user header", `{gateway: {trustedProxies: ["10.0.0.1"], auth: {mode: "trusted-proxy"}}}`, "needs gateway.auth.trustedProxy.userHeader"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := filepath.Join(dir, "openclaw.json")
			if err := os.WriteFile(cfg, []byte(tc.config), 0o600); err != nil {
				t.Fatal(err)
			}
			err := Run(context.Background(), Options{StateDir: dir, ConfigPath: cfg, Port: -1,
				Getenv: func(string) string { return "" }, Stderr: io.Discard, Ready: func(string) { t.Error("gateway started") }})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run: %v, want an error with %q", err, tc.want)
			}
		})
	}
}
