package e2e

import (
	"os"
	"strings"
	"testing"
)

// TestSecretsAuditCLI: the built binary's `secrets audit` exits as the
// real CLI's does (1 with --check on plaintext, 2 on an unresolved
// reference) and never prints a secret's value.
func TestSecretsAuditCLI(t *testing.T) {
	bin := needOurBin(t)
	t.Parallel()
	env, _, cfgPath := isolatedEnv(t, t.TempDir())
	const token = "tok-e2e-7d1f3b5a9c2e4f6a8b0d"
	for _, tc := range []struct {
		cfg      string
		wantCode int
		want     string
	}{
		{`{ gateway: { auth: { token: "` + token + `" } } }`, 1, "PLAINTEXT_FOUND"},
		{`{ gateway: { auth: { token: "${OPENCLAW_E2E_UNSET_TOKEN}" } } }`, 2, "REF_UNRESOLVED"},
	} {
		if err := os.WriteFile(cfgPath, []byte(tc.cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		r := runCmd(t, env, "", bin, "secrets", "audit", "--check")
		if r.Code != tc.wantCode || !strings.Contains(r.Stdout, tc.want) || strings.Contains(r.Stdout+r.Stderr, token) {
			t.Fatalf("secrets audit --check, want exit %d and %s:\n%s", tc.wantCode, tc.want, r)
		}
	}
}
