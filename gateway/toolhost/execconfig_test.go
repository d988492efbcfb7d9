package toolhost

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/policy/execpolicy"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/execapprovals"
)

func parseExecConfig(t *testing.T, src string) *config.Config {
	t.Helper()
	return parseExecSnapshot(t, src).Config
}

func parseExecSnapshot(t *testing.T, src string) *config.Snapshot {
	t.Helper()
	snap, err := config.Parse("openclaw.json", []byte(src), config.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestExecPolicyLayering: tools.exec over the exec approvals file, as
// OpenClaw layers them (the file only tightens; mode beats security/ask),
// with our default where neither says anything.
func TestExecPolicyLayering(t *testing.T) {
	for _, tc := range []struct {
		name     string
		exec     string // tools.exec
		file     string // exec approvals file defaults
		security execpolicy.Security
		ask      execpolicy.Ask
	}{
		{"nothing configured: our default", `{}`, `{}`, "allowlist", "on-miss"},
		{"security full, ask off", `{security: "full", ask: "off"}`, `{}`, "full", "off"},
		{"mode full", `{mode: "full"}`, `{}`, "full", "off"},
		{"mode deny", `{mode: "deny"}`, `{}`, "deny", "off"},
		{"mode allowlist", `{mode: "allowlist"}`, `{}`, "allowlist", "off"},
		{"mode ask", `{mode: "ask"}`, `{}`, "allowlist", "on-miss"},
		{"mode auto asks a person", `{mode: "auto"}`, `{}`, "allowlist", "on-miss"},
		{"mode beats security and ask", `{mode: "deny", security: "full", ask: "off"}`, `{}`, "deny", "off"},
		{"the file tightens security", `{mode: "full"}`, `{"security":"allowlist"}`, "allowlist", "off"},
		{"the file tightens ask", `{mode: "full"}`, `{"ask":"always"}`, "full", "always"},
		{"the file cannot loosen", `{mode: "ask"}`, `{"security":"full","ask":"off"}`, "allowlist", "on-miss"},
		{"the file alone still opens exec", `{}`, `{"security":"full","ask":"off"}`, "full", "off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := parseExecConfig(t, `{tools: {exec: `+tc.exec+`}}`)
			var f execapprovals.File
			if err := json.Unmarshal([]byte(`{"version":1,"defaults":`+tc.file+`}`), &f); err != nil {
				t.Fatal(err)
			}
			p := f.PolicyWith("main", configuredExec(cfg.Tools.Exec))
			if p.Security != tc.security || p.Ask != tc.ask {
				t.Fatalf("security %s, ask %s; want %s, %s", p.Security, p.Ask, tc.security, tc.ask)
			}
		})
	}
	t.Run("safe bins, trusted dirs and profiles reach the policy", func(t *testing.T) {
		cfg := parseExecConfig(t, `{tools: {exec: {safeBins: ["head", "myfilter"], safeBinTrustedDirs: ["/opt/bin"],
			safeBinProfiles: {MyFilter: {minPositional: 1, allowedValueFlags: ["-n"], deniedFlags: ["-f"]}, head: {maxPositional: 0}}}}}`)
		p := execapprovals.File{}.PolicyWith("main", configuredExec(cfg.Tools.Exec))
		if !slices.Equal(p.SafeBins, []string{"head", "myfilter"}) || !slices.Contains(p.SafeBinTrustedDirs, "/opt/bin") || !slices.Contains(p.SafeBinTrustedDirs, "/usr/bin") {
			t.Fatalf("%+v", p)
		}
		mf := p.SafeBinProfiles["myfilter"]
		if mf.MinPositional != 1 || mf.MaxPositional != -1 || !slices.Equal(mf.ValueFlags, []string{"-n"}) || !slices.Equal(mf.DeniedFlags, []string{"-f"}) {
			t.Fatalf("myfilter %+v", mf)
		}
		if p.SafeBinProfiles["head"].MaxPositional != 0 {
			t.Fatalf("head %+v", p.SafeBinProfiles["head"])
		}
	})
}

// TestExecRunSettings: timeoutSeconds, backgroundMs, notifyOnExit,
// pathPrepend and cleanupMs, defaults and set.
func TestExecRunSettings(t *testing.T) {
	def := execSettings(parseExecConfig(t, `{}`).Tools.Exec)
	if def.Timeout.Seconds() != 1800 || def.Yield.Milliseconds() != 10000 || !def.NotifyOnExit || def.Keep.Milliseconds() != 1800000 || def.PathPrepend != nil {
		t.Fatalf("defaults %+v", def)
	}
	set := execSettings(parseExecConfig(t, `{tools: {exec: {timeoutSeconds: 0, backgroundMs: 250, notifyOnExit: false, pathPrepend: ["/opt/bin", "~/bin"], cleanupMs: 60000}}}`).Tools.Exec)
	if set.Timeout != 0 || set.Yield.Milliseconds() != 250 || set.NotifyOnExit || set.Keep.Milliseconds() != 60000 || len(set.PathPrepend) != 2 || set.PathPrepend[0] != "/opt/bin" || set.PathPrepend[1] == "~/bin" {
		t.Fatalf("set %+v", set)
	}
}

// TestElevatedAllowed: tools.elevated.enabled and allowFrom, per channel,
// and the agent's own gate, which can only narrow.
func TestElevatedAllowed(t *testing.T) {
	el := parseExecConfig(t, `{tools: {elevated: {enabled: true, allowFrom: {telegram: ["4242", "id:77"], discord: ["*"]}}},
	  agents: {entries: {shut: {tools: {elevated: {enabled: false}}}, narrow: {tools: {elevated: {allowFrom: {telegram: ["77"]}}}}}}}`)
	off := parseExecConfig(t, `{tools: {elevated: {allowFrom: {telegram: ["4242"]}}}, agents: {entries: {main: {tools: {elevated: {enabled: true}}}}}}`)
	for _, tc := range []struct {
		name string
		cfg  *config.Config
		who  tools.Who
		want bool
	}{
		{"listed sender", el, tools.Who{Channel: "telegram", SenderID: "4242"}, true},
		{"id: prefix", el, tools.Who{Channel: "telegram", SenderID: "77"}, true},
		{"unlisted sender", el, tools.Who{Channel: "telegram", SenderID: "6666"}, false},
		{"other channel", el, tools.Who{Channel: "slack", SenderID: "4242"}, false},
		{"star", el, tools.Who{Channel: "discord", SenderID: "1"}, true},
		{"owner is not a sender", el, tools.Who{Owner: true}, false},
		{"global gate off", off, tools.Who{Channel: "telegram", SenderID: "4242"}, false},
		{"agent enabled cannot open the global gate", off, tools.Who{AgentID: "main", Channel: "telegram", SenderID: "4242"}, false},
		{"agent gate off", el, tools.Who{AgentID: "shut", Channel: "telegram", SenderID: "4242"}, false},
		{"agent list narrows: listed in both", el, tools.Who{AgentID: "narrow", Channel: "telegram", SenderID: "77"}, true},
		{"agent list narrows: only global", el, tools.Who{AgentID: "narrow", Channel: "telegram", SenderID: "4242"}, false},
		{"agent list narrows: channel it lacks", el, tools.Who{AgentID: "narrow", Channel: "discord", SenderID: "1"}, false},
	} {
		if got := elevatedAllowed(tc.cfg, tc.who); got != tc.want {
			t.Errorf("%s: %+v: %v, want %v", tc.name, tc.who, got, tc.want)
		}
	}
}

// TestConfigGate: applyPatch.enabled/allowModels and web.*.enabled take
// the tools away.
func TestConfigGate(t *testing.T) {
	cfg := parseExecConfig(t, `{tools: {exec: {applyPatch: {allowModels: ["gpt-5.4", "anthropic/claude-x"]}}, web: {fetch: {enabled: false}}}}`)
	off := parseExecConfig(t, `{tools: {exec: {applyPatch: {enabled: false}}, web: {search: {enabled: false}}}}`)
	for _, tc := range []struct {
		cfg  *config.Config
		who  tools.Who
		tool string
		want bool
	}{
		{cfg, tools.Who{Provider: "openai", Model: "gpt-5.4"}, "apply_patch", true},
		{cfg, tools.Who{Provider: "anthropic", Model: "claude-x"}, "apply_patch", true},
		{cfg, tools.Who{Provider: "openai", Model: "gpt-4o"}, "apply_patch", false},
		{cfg, tools.Who{}, "web_fetch", false},
		{cfg, tools.Who{}, "web_search", true},
		{off, tools.Who{Model: "any"}, "apply_patch", false},
		{off, tools.Who{}, "web_search", false},
		{off, tools.Who{}, "web_fetch", true},
		{off, tools.Who{}, "exec", true},
	} {
		if ok, why := configGate(tc.cfg, tc.who, tc.tool); ok != tc.want {
			t.Errorf("%s for %+v: %v (%s), want %v", tc.tool, tc.who, ok, why, tc.want)
		}
	}
}

// TestGatewayToolCannotOpenExec: a prompt-injected model using the
// gateway tool to set tools.exec (or tools.elevated) waits for a person:
// none of these keys is free to change.
func TestGatewayToolCannotOpenExec(t *testing.T) {
	cur := parseExecSnapshot(t, `{}`)
	for _, src := range []string{
		`{tools: {exec: {security: "full", ask: "off"}}}`,
		// Keys not implemented yet: no effect today, but they would have
		// one the day they are, so planting them needs a person too.
		`{tools: {exec: {strictInlineEval: false}}}`,
		`{tools: {exec: {host: "node", node: "attacker-box"}}}`,
		`{tools: {exec: {mode: "full"}}}`,
		`{tools: {exec: {safeBins: ["sh"]}}}`,
		`{tools: {exec: {pathPrepend: ["/tmp/evil"]}}}`,
		`{tools: {elevated: {enabled: true, allowFrom: {telegram: ["*"]}}}}`,
	} {
		if keys := configChangesNeedingApproval(cur, parseExecSnapshot(t, src)); len(keys) == 0 {
			t.Errorf("%s needs no approval", src)
		}
	}
}
