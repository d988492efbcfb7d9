package pluginhost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plugins.enabled, allow and deny decide which plugins may run at all;
// an entry's enabled can only turn a permitted one off.
func TestPluginAllowDeny(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"alpha", "beta", "gamma"} {
		pd := filepath.Join(dir, id)
		os.MkdirAll(pd, 0o755)
		if err := os.WriteFile(filepath.Join(pd, "openclaw.plugin.json"), []byte(`{"id": "`+id+`", "command": "./run"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, plugins string
		want          string // the enabled ids
		llmTask       bool
	}{
		{"defaults", ``, "alpha beta gamma", false},
		{"allowlist", `allow: ["alpha", "llm-task"], entries: {"llm-task": {enabled: true}},`, "alpha", true},
		{"deny wins over allow", `allow: ["alpha", "beta"], deny: ["beta"],`, "alpha", false},
		{"deny beats an enabled entry", `deny: ["gamma", "llm-task"], entries: {gamma: {enabled: true}, "llm-task": {enabled: true}},`, "alpha beta", false},
		{"an entry still turns a permitted plugin off", `entries: {beta: {enabled: false}},`, "alpha gamma", false},
		{"all off", `enabled: false, entries: {alpha: {enabled: true}, "llm-task": {enabled: true}},`, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := `{plugins: {` + tc.plugins + ` load: {paths: ["` + dir + `"]}}}`
			snap := parse(t, src)
			var on []string
			for _, p := range discoverPlugins(snap).plugins {
				if p.Enabled {
					on = append(on, p.Manifest.ID)
				}
			}
			if got := strings.Join(on, " "); got != tc.want {
				t.Fatalf("enabled %q, want %q", got, tc.want)
			}
			h, _, _ := newHost(t, src)
			if _, ok := h.LLMTaskTool(); ok != tc.llmTask {
				t.Fatalf("llm-task built=%v, want %v", ok, tc.llmTask)
			}
		})
	}
}
