package doctor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// TestSecretsAudit: plaintext secrets and references that resolve to
// nothing are found by path, references that resolve are counted and
// not reported, exec references are skipped unless allowed, and no
// secret value appears anywhere in the report.
func TestSecretsAudit(t *testing.T) {
	tests := []struct {
		name       string
		cfg        string
		env        map[string]string
		allowExec  bool
		wantStatus string
		wantCodes  []string // code=path, in order
		wantRefs   int
		wantSkip   int
	}{
		{name: "clean", cfg: `{ gateway: { auth: { token: "${GW_TOKEN}" } } }`, env: map[string]string{"GW_TOKEN": testToken},
			wantStatus: "clean", wantRefs: 1},
		{name: "plaintext", cfg: `{ gateway: { auth: { token: "` + testToken + `" } }, channels: { telegram: { botToken: "123456:AAAA-plain-bot-token" } } }`,
			wantStatus: "findings", wantCodes: []string{"PLAINTEXT_FOUND=channels.telegram.botToken", "PLAINTEXT_FOUND=gateway.auth.token"}},
		{name: "unresolved wins", cfg: `{ gateway: { auth: { token: "` + testToken + `" } }, channels: { telegram: { botToken: "${TG_TOKEN}" } } }`,
			wantStatus: "unresolved", wantCodes: []string{"PLAINTEXT_FOUND=gateway.auth.token", "REF_UNRESOLVED=channels.telegram.botToken"}, wantRefs: 1},
		{name: "exec ref skipped", cfg: `{ secrets: { providers: { vault: { source: "exec", command: "/usr/bin/true" } } },
			gateway: { auth: { token: { source: "exec", provider: "vault", id: "gw" } } } }`, wantStatus: "clean", wantRefs: 0, wantSkip: 1},
		{name: "exec ref allowed", cfg: `{ secrets: { providers: { vault: { source: "exec", command: "/usr/bin/true" } } },
			gateway: { auth: { token: { source: "exec", provider: "vault", id: "gw" } } } }`, allowExec: true, wantStatus: "clean", wantRefs: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := newInstall(t, tc.cfg)
			in = Load(in.Paths, envOf(tc.env))
			rep := SecretsAudit(in, tc.allowExec)
			var codes []string
			for _, f := range rep.Findings {
				codes = append(codes, f.Code+"="+f.Path)
			}
			if rep.Status != tc.wantStatus || strings.Join(codes, " ") != strings.Join(tc.wantCodes, " ") {
				t.Fatalf("status %s findings %v, want %s %v", rep.Status, codes, tc.wantStatus, tc.wantCodes)
			}
			if rep.Resolution.RefsChecked != tc.wantRefs || rep.Resolution.SkippedExecRefs != tc.wantSkip {
				t.Errorf("resolution %+v, want %d checked, %d skipped", rep.Resolution, tc.wantRefs, tc.wantSkip)
			}
			raw, _ := json.Marshal(rep)
			for _, secret := range []string{testToken, "AAAA-plain-bot-token"} {
				if strings.Contains(string(raw), secret) {
					t.Fatalf("the report holds a secret: %s", raw)
				}
			}
		})
	}
}

// A config that does not exist is clean, not an error.
func TestSecretsAuditNoConfig(t *testing.T) {
	dir := t.TempDir()
	in := Load(config.Paths{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json")}, envOf(nil))
	if _, err := os.Stat(in.Paths.ConfigPath); err == nil {
		t.Fatal("config exists")
	}
	if rep := SecretsAudit(in, false); rep.Status != "clean" || len(rep.Findings) != 0 {
		t.Fatalf("%+v", rep)
	}
}
