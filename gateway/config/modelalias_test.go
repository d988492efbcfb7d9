package config

import (
	"strings"
	"testing"
)

// TestModelAliasResolution: aliases in agents.defaults.models stand for
// their model in every chain; a bare name that is no alias is refused.
func TestModelAliasResolution(t *testing.T) {
	models := `models:{"anthropic/claude-sonnet-4-6":{alias:"Sonnet"}, "openai/gpt-5":{alias:"gpt"}}`
	cases := []struct {
		name, src     string
		primary, fall string
		err           string
	}{
		{"alias primary", `{agents:{defaults:{model:"sonnet", ` + models + `}}}`, "anthropic/claude-sonnet-4-6", "", ""},
		{"alias fallback", `{agents:{defaults:{model:{primary:"openai/gpt-5", fallbacks:["Sonnet"]}, ` + models + `}}}`, "openai/gpt-5", "anthropic/claude-sonnet-4-6", ""},
		{"alias image model", `{agents:{defaults:{imageModel:"gpt", ` + models + `}}}`, "", "", ""},
		{"full ref kept", `{agents:{defaults:{model:"ollama/llama3", ` + models + `}}}`, "ollama/llama3", "", ""},
		{"unknown bare name", `{agents:{defaults:{model:"haiku", ` + models + `}}}`, "", "", `"haiku" is not a model reference nor an alias`},
		{"empty provider", `{agents:{defaults:{model:"/x"}}}`, "", "", "is not a model reference"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snap, errs, _ := parseTest(t, tc.src, nil)
			if tc.err != "" {
				if !strings.Contains(strings.Join(errs, "\n"), tc.err) {
					t.Fatalf("errors %q, want %q", errs, tc.err)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("errors: %q", errs)
			}
			if tc.name == "alias image model" {
				if got := snap.Config.Agents.Defaults.ImageModel.Primary; got != "openai/gpt-5" {
					t.Fatalf("image model %q, want openai/gpt-5", got)
				}
				return
			}
			m := snap.Config.Agents.Defaults.Model
			if m.Primary != tc.primary || (tc.fall != "" && (len(m.Fallbacks) != 1 || m.Fallbacks[0] != tc.fall)) {
				t.Fatalf("model %+v, want primary %q fallback %q", m, tc.primary, tc.fall)
			}
		})
	}
}

// TestModelAllowed: a non-empty agents.defaults.models limits choices to
// its entries and "provider/*" prefixes, and the refusal names the list.
func TestModelAllowed(t *testing.T) {
	cfg := &Config{}
	cfg.Agents.Defaults.Models = map[string]AgentModel{"openai/gpt-5": {}, "openrouter/meta/*": {}}
	cases := []struct {
		ref string
		ok  bool
	}{
		{"openai/gpt-5", true},
		{"openai/gpt-4o", false},
		{"openrouter/meta/llama-3", true},
		{"openrouter/mistral/large", false},
		{"anthropic/claude", false},
	}
	for _, tc := range cases {
		err := cfg.ModelAllowed("main", tc.ref)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v, want ok=%v", tc.ref, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "agents.defaults.models (allowed: openai/gpt-5, openrouter/meta/*)") {
			t.Errorf("%s: %v does not name the allowlist", tc.ref, err)
		}
	}
	if err := (&Config{}).ModelAllowed("main", "any/model"); err != nil {
		t.Errorf("an empty map should allow any model: %v", err)
	}
}

// TestModelCostDecodes: prices are numbers not below zero.
func TestModelCostDecodes(t *testing.T) {
	snap, errs, _ := parseTest(t, `{models:{providers:{p:{models:[{id:"m", cost:{input:0.15, output:0.6, cacheRead:0.075}, reasoning:true}]}}}}`, nil)
	if len(errs) > 0 {
		t.Fatalf("errors: %q", errs)
	}
	m := snap.Config.Models.Providers["p"].Models[0]
	if m.Cost != (ModelCost{Input: 0.15, Output: 0.6, CacheRead: 0.075}) || !m.Reasoning {
		t.Fatalf("model %+v", m)
	}
	_, errs, _ = parseTest(t, `{models:{providers:{p:{models:[{id:"m", cost:{input:-1}}]}}}}`, nil)
	if !strings.Contains(strings.Join(errs, "\n"), "cost.input: must be at least 0, got -1") {
		t.Fatalf("errors %q, want a negative price refused", errs)
	}
}

// TestAgentEntryModelAlias: an agent's own model may be an alias too.
func TestAgentEntryModelAlias(t *testing.T) {
	snap, errs, _ := parseTest(t, `{agents:{defaults:{models:{"openai/gpt-5":{alias:"gpt"}}}, entries:{work:{model:{primary:"GPT"}}}}}`, nil)
	if len(errs) > 0 {
		t.Fatalf("errors: %q", errs)
	}
	if got := snap.Config.PrimaryModel("work"); got != "openai/gpt-5" {
		t.Fatalf("work's model %q, want openai/gpt-5", got)
	}
}

// TestModelPolicyAllow: agents.defaults.modelPolicy.allow replaces the
// agents.defaults.models allowlist (aliases and prefixes accepted), an
// agent's own policy replaces the defaults', and [] allows any model.
func TestModelPolicyAllow(t *testing.T) {
	src := `{agents: {
	  defaults: {models: {"openai/gpt-5": {alias: "gpt"}, "anthropic/claude": {}}, modelPolicy: {allow: ["gpt", "openrouter/*"]}},
	  entries: {main: {}, free: {modelPolicy: {allow: []}}, narrow: {modelPolicy: {allow: ["anthropic/claude"]}}}}}`
	snap, errs, warns := parseTest(t, src, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, w := range warns {
		if strings.Contains(w, "modelPolicy") {
			t.Errorf("warning: %s", w)
		}
	}
	cfg := snap.Config
	cases := []struct {
		agent, ref string
		ok         bool
		names      string
	}{
		{"main", "openai/gpt-5", true, ""},                                       // by its alias
		{"main", "openrouter/meta/llama", true, ""},                              // by prefix
		{"main", "anthropic/claude", false, "agents.defaults.modelPolicy.allow"}, // in models, but the policy wins
		{"free", "anything/at-all", true, ""},
		{"narrow", "anthropic/claude", true, ""},
		{"narrow", "openai/gpt-5", false, "agents.entries.narrow.modelPolicy.allow"},
	}
	for _, tc := range cases {
		err := cfg.ModelAllowed(tc.agent, tc.ref)
		if (err == nil) != tc.ok || (err != nil && !strings.Contains(err.Error(), tc.names)) {
			t.Errorf("%s %s: %v; want ok=%v naming %s", tc.agent, tc.ref, err, tc.ok, tc.names)
		}
	}
	if got := strings.Join(cfg.ModelAllowlist(), ","); got != "openai/gpt-5,openrouter/*" {
		t.Errorf("ModelAllowlist = %s", got)
	}
	// An empty defaults policy opens what agents.defaults.models would close.
	snap, _, _ = parseTest(t, `{agents: {defaults: {models: {"openai/gpt-5": {}}, modelPolicy: {allow: []}}}}`, nil)
	if err := snap.Config.ModelAllowed("main", "x/y"); err != nil {
		t.Errorf("allow [] must allow any model: %v", err)
	}
}
