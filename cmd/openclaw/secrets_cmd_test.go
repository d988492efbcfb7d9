package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretsAuditCommand: the real CLI's exit codes (--check: 1 on
// findings; 2 on an unresolved reference either way) and no value
// printed.
func TestSecretsAuditCommand(t *testing.T) {
	const plain = `{ gateway: { auth: { token: "tok-5e3c1a9f7b2d4e6f8a0c" } } }`
	const unresolved = `{ gateway: { auth: { token: "${NOT_SET_ANYWHERE}" } } }`
	const clean = `{ gateway: { auth: { token: "${GW_TOKEN_FOR_TEST}" } } }`
	tests := []struct {
		name     string
		cfg      string
		args     []string
		wantCode int
		wantOut  string
	}{
		{name: "findings without check", cfg: plain, wantCode: 0, wantOut: "PLAINTEXT_FOUND  gateway.auth.token"},
		{name: "findings with check", cfg: plain, args: []string{"--check"}, wantCode: 1, wantOut: "Secrets audit: findings"},
		{name: "unresolved", cfg: unresolved, wantCode: 2, wantOut: "REF_UNRESOLVED"},
		{name: "unresolved json", cfg: unresolved, args: []string{"--json"}, wantCode: 2, wantOut: `"status": "unresolved"`},
		{name: "clean with check", cfg: clean, args: []string{"--check"}, wantCode: 0, wantOut: "1 references checked"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := isolate(t)
			t.Setenv("GW_TOKEN_FOR_TEST", "tok-from-the-environment-123456")
			os.MkdirAll(filepath.Join(home, ".openclaw"), 0o700)
			os.WriteFile(filepath.Join(home, ".openclaw", "openclaw.json"), []byte(tc.cfg), 0o600)
			out, _, err := runCLI(t, append([]string{"secrets", "audit"}, tc.args...)...)
			if got := exitCode(err); got != tc.wantCode {
				t.Fatalf("exit %d (%v), want %d\n%s", got, err, tc.wantCode, out)
			}
			if !strings.Contains(out, tc.wantOut) {
				t.Errorf("output lacks %q:\n%s", tc.wantOut, out)
			}
			for _, secret := range []string{"tok-5e3c1a9f7b2d4e6f8a0c", "tok-from-the-environment"} {
				if strings.Contains(out, secret) {
					t.Fatalf("the audit printed a secret:\n%s", out)
				}
			}
		})
	}
}
