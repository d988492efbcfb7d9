package doctor

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

func auditOf(t *testing.T, in *Install) *AuditReport {
	t.Helper()
	return Audit(context.Background(), AuditOptions{Install: in})
}

func findingsOf(rep *AuditReport, id string) []AuditFinding {
	var out []AuditFinding
	for _, f := range rep.Findings {
		if f.CheckID == id {
			out = append(out, f)
		}
	}
	return out
}

// TestAuditAttacks: each weak setup yields its finding with the right
// severity, and no output holds the secret.
func TestAuditAttacks(t *testing.T) {
	for _, tc := range []struct {
		name, cfg string
		prep      func(in *Install)
		id        string
		sev       Severity
		secret    string
	}{
		{name: "4-char token", cfg: `{ gateway: { auth: { token: "abcd" } } }`, id: "gateway.token_too_short", sev: SeverityWarn, secret: "abcd"},
		{name: "placeholder token", cfg: `{ gateway: { auth: { token: "undefined" } } }`, id: "gateway.token_placeholder_value", sev: SeverityCritical},
		{name: "long but not random", cfg: `{ gateway: { auth: { token: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" } } }`, id: "gateway.token_weak", sev: SeverityWarn, secret: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
		{name: "short password", cfg: `{ gateway: { auth: { mode: "password", password: "hunter2" } } }`, id: "gateway.password_too_short", sev: SeverityWarn, secret: "hunter2"},
		{name: "auth none on lan", cfg: `{ gateway: { bind: "lan", auth: { mode: "none" } } }`, id: "gateway.bind_no_auth", sev: SeverityCritical},
		{name: "auth none on loopback", cfg: `{ gateway: { auth: { mode: "none" } } }`, id: "gateway.loopback_no_auth", sev: SeverityCritical},
		{name: "lan without TLS", cfg: `{ gateway: { bind: "lan", auth: { token: "` + testToken + `" } } }`, id: "gateway.bind_no_tls", sev: SeverityWarn, secret: testToken},
		{name: "world-readable config", cfg: `{ gateway: { auth: { token: "` + testToken + `" } } }`, prep: func(in *Install) { os.Chmod(in.Paths.ConfigPath, 0o644) }, id: "fs.config.perms_world_readable", sev: SeverityCritical, secret: testToken},
		{name: "group-writable config", cfg: `{}`, prep: func(in *Install) { os.Chmod(in.Paths.ConfigPath, 0o660) }, id: "fs.config.perms_writable", sev: SeverityCritical},
		{name: "world-writable state dir", cfg: `{}`, prep: func(in *Install) { os.Chmod(in.Paths.StateDir, 0o777) }, id: "fs.state_dir.perms_world_writable", sev: SeverityCritical},
		{name: "readable database", cfg: `{}`, prep: func(in *Install) { os.WriteFile(in.DBPath(), nil, 0o644) }, id: "fs.sessions_store.perms_readable", sev: SeverityWarn},
		{name: "open DM policy", cfg: `{ channels: { telegram: { botToken: "123:abc", dmPolicy: "open", allowFrom: ["*"] } } }`, id: "channels.telegram.dm.open", sev: SeverityCritical, secret: "123:abc"},
		{name: "open DM without wildcard", cfg: `{ channels: { discord: { accounts: { work: { dmPolicy: "open" } } } } }`, id: "channels.discord.dm.open_invalid", sev: SeverityWarn},
		{name: "open groups", cfg: `{ channels: { slack: { groupPolicy: "open" } } }`, id: "channels.slack.group.open", sev: SeverityWarn},
		{name: "open groups by default", cfg: `{ channels: { defaults: { groupPolicy: "open" }, telegram: {} } }`, id: "channels.telegram.group.open", sev: SeverityWarn},
		{name: "exec full", cfg: `{ tools: { exec: { mode: "full" } } }`, id: "tools.exec.security_full_configured", sev: SeverityWarn},
		{name: "exec full and open DMs", cfg: `{ tools: { exec: { mode: "full" } }, channels: { telegram: { dmPolicy: "open", allowFrom: ["*"] } } }`, id: "tools.exec.security_full_configured", sev: SeverityCritical},
		{name: "open DMs reach exec", cfg: `{ channels: { telegram: { dmPolicy: "open", allowFrom: ["*"] } } }`, id: "security.exposure.open_channels_with_exec", sev: SeverityWarn},
		{name: "elevated to anyone", cfg: `{ tools: { elevated: { enabled: true, allowFrom: { telegram: ["*"] } } } }`, id: "tools.elevated.allowFrom.telegram.wildcard", sev: SeverityCritical},
		{name: "dangerous flag", cfg: `{ browser: { ssrfPolicy: { dangerouslyAllowPrivateNetwork: true } } }`, id: "config.insecure_or_dangerous_flags", sev: SeverityWarn},
		{name: "hooks token is the gateway token", cfg: `{ gateway: { auth: { token: "` + testToken + `" } }, hooks: { enabled: true, token: "` + testToken + `" } }`, id: "hooks.token_reuse_gateway_token", sev: SeverityCritical, secret: testToken},
		{name: "short hooks token", cfg: `{ hooks: { enabled: true, token: "hk-1" } }`, id: "hooks.token_too_short", sev: SeverityWarn, secret: "hk-1"},
		{name: "hooks token in config", cfg: `{ hooks: { enabled: true, token: "hook-secret-value-0123456789abcdef" } }`, id: "config.secrets.hooks_token_in_config", sev: SeverityWarn, secret: "hook-secret-value-0123456789abcdef"},
		{name: "plaintext provider key", cfg: `{ models: { providers: { openai: { apiKey: "sk-plain-0123456789" } } } }`, id: "config.secrets.plaintext_in_config", sev: SeverityWarn, secret: "sk-plain-0123456789"},
		{name: "control UI origin wildcard on lan", cfg: `{ gateway: { bind: "lan", controlUi: { allowedOrigins: ["*"] }, auth: { token: "` + testToken + `" } } }`, id: "gateway.control_ui.allowed_origins_wildcard", sev: SeverityCritical},
		{name: "trusted proxy without proxies", cfg: `{ gateway: { auth: { mode: "trusted-proxy", trustedProxy: { userHeader: "x-user" } } } }`, id: "gateway.trusted_proxy_no_proxies", sev: SeverityCritical},
		{name: "wildcard exec allowlist", cfg: `{}`, prep: func(in *Install) {
			os.WriteFile(in.ExecApprovalsPath(), []byte(`{"version":1,"agents":{"main":{"allowlist":[{"pattern":"**"}]}}}`), 0o600)
		}, id: "tools.exec.allowlist_wildcard", sev: SeverityWarn},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := newInstall(t, tc.cfg)
			if tc.prep != nil {
				tc.prep(in)
				*in = *Load(in.Paths, in.Getenv)
			}
			rep := auditOf(t, in)
			got := findingsOf(rep, tc.id)
			if len(got) == 0 {
				var ids []string
				for _, f := range rep.Findings {
					ids = append(ids, f.CheckID)
				}
				t.Fatalf("no %s finding; got %v", tc.id, ids)
			}
			if got[0].Severity != tc.sev {
				t.Fatalf("%s is %s, want %s", tc.id, got[0].Severity, tc.sev)
			}
			noSecret(t, mustJSON(t, rep), tc.secret)
		})
	}
}

// TestAuditQuietOnASafeInstall: a private loopback install with a long
// token in an env variable has no warn or critical finding.
func TestAuditQuietOnASafeInstall(t *testing.T) {
	in := newInstall(t, `{ gateway: { auth: { token: "${OPENCLAW_GATEWAY_TOKEN}" } }, hooks: { enabled: true, token: "${HOOKS_TOKEN}", defaultSessionKey: "hook:in", allowedAgentIds: ["main"] } }`)
	in.Getenv = envOf(map[string]string{"OPENCLAW_GATEWAY_TOKEN": testToken, "HOOKS_TOKEN": "hk-9f8e7d6c5b4a39281706f5e4d3c2b1a0"})
	*in = *Load(in.Paths, in.Getenv)
	rep := auditOf(t, in)
	for _, f := range rep.Findings {
		if f.Severity != SeverityInfo {
			t.Errorf("unexpected %s %s: %s", f.Severity, f.CheckID, f.Detail)
		}
	}
	if rep.Summary.Critical+rep.Summary.Warn != 0 || rep.Findings[0].CheckID != "summary.attack_surface" {
		t.Fatalf("%+v", rep.Summary)
	}
}

// TestFirstRunTokenIsInfo: the config the gateway writes at first start
// keeps its token inline; that is worth knowing, not a warning.
func TestFirstRunTokenIsInfo(t *testing.T) {
	rep := auditOf(t, newInstall(t, goodConfig))
	f := findingsOf(rep, "config.secrets.plaintext_in_config")
	if len(f) != 1 || f[0].Severity != SeverityInfo || !strings.Contains(f[0].Detail, "gateway.auth.token") {
		t.Fatalf("%+v", f)
	}
}

// TestFixSecurity: --fix tightens modes and open group policies, never
// touches auth, DM policy or secrets, and never loosens a mode.
func TestFixSecurity(t *testing.T) {
	if !permsApply {
		t.Skip("POSIX modes")
	}
	cfg := `{
  // comments survive
  gateway: { bind: "lan", auth: { mode: "token", token: "abcd" } },
  channels: { telegram: { dmPolicy: "open", allowFrom: ["*"], groupPolicy: "open", accounts: { b: { groupPolicy: "open" } } } },
}
`
	in := newInstall(t, cfg)
	os.Chmod(in.Paths.ConfigPath, 0o644)
	os.Chmod(in.Paths.StateDir, 0o755)
	os.WriteFile(in.ExecApprovalsPath(), []byte(`{"version":1}`), 0o400)
	*in = *Load(in.Paths, in.Getenv)

	fix := FixSecurity(in)
	if !fix.OK || !fix.ConfigWritten || len(fix.Changes) != 2 {
		t.Fatalf("%+v", fix)
	}
	b, _ := os.ReadFile(in.Paths.ConfigPath)
	text := string(b)
	for _, want := range []string{"// comments survive", `token: "abcd"`, `mode: "token"`, `bind: "lan"`, `dmPolicy: "open"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the fix changed %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, `groupPolicy: "open"`) {
		t.Errorf("open group policy left:\n%s", text)
	}
	for path, want := range map[string]os.FileMode{in.Paths.StateDir: 0o700, in.Paths.ConfigPath: 0o600, in.ExecApprovalsPath(): 0o400, in.Paths.ConfigPath + ".bak": 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want %o", path, fi.Mode().Perm(), err, want)
		}
	}
	noSecret(t, mustJSON(t, fix), "abcd")
	rep := auditOf(t, in)
	if len(findingsOf(rep, "fs.config.perms_world_readable")) != 0 || len(findingsOf(rep, "channels.telegram.group.open")) != 0 {
		t.Fatal("findings the fix addresses remain")
	}
	if len(findingsOf(rep, "channels.telegram.dm.open")) == 0 || len(findingsOf(rep, "gateway.token_too_short")) == 0 {
		t.Fatal("the fix changed DM policy or auth")
	}
	noSecret(t, mustJSON(t, rep), "abcd")
}

func TestFixSecurityLeavesAnInvalidConfig(t *testing.T) {
	in := newInstall(t, `{ channels: { telegram: { groupPolicy: "open" } }, gateway: { port: "x" } }`)
	before, _ := os.ReadFile(in.Paths.ConfigPath)
	fix := FixSecurity(in)
	after, _ := os.ReadFile(in.Paths.ConfigPath)
	if fix.OK || fix.ConfigWritten || string(before) != string(after) {
		t.Fatalf("%+v", fix)
	}
}

func TestAuditDeep(t *testing.T) {
	in := newInstall(t, goodConfig)
	for _, tc := range []struct {
		name  string
		probe *fakeGateway
		id    string
	}{
		{"unreachable", &fakeGateway{err: errors.New("dial tcp: connection refused")}, "gateway.probe_failed"},
		{"accepts anonymous", &fakeGateway{answers: map[string]string{"health": `{"ok":true}`}}, "gateway.probe_unauthenticated_accepted"},
		{"refuses anonymous", &fakeGateway{answers: map[string]string{"health": `{"ok":true}`}, anonErr: errors.New("unauthorized")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := Audit(context.Background(), AuditOptions{Install: in, Deep: true, Probe: tc.probe})
			if rep.Deep == nil || !rep.Deep.Gateway.Attempted {
				t.Fatalf("%+v", rep.Deep)
			}
			var deep []string
			for _, f := range rep.Findings {
				if strings.HasPrefix(f.CheckID, "gateway.probe") {
					deep = append(deep, f.CheckID)
				}
			}
			if tc.id == "" && len(deep) > 0 || tc.id != "" && !slices.Contains(deep, tc.id) {
				t.Fatalf("deep findings %v, want %q", deep, tc.id)
			}
		})
	}
}
