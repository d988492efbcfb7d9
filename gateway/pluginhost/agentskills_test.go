package pluginhost

import (
	"os"
	"path/filepath"
	"testing"
)

// agents.defaults.skills and an agent's own skills decide which skills the
// agent sees: the others are unavailable to its directory and its skill
// tools, whatever folder they were found in.
func TestAgentSkillAllowlist(t *testing.T) {
	cases := []struct {
		name, config string
		want         map[string]bool
	}{
		{"unset: every skill", `{}`, map[string]bool{"github": true, "weather": true, "secret": true}},
		{"defaults limit", `{agents: {defaults: {skills: ["github", "weather"]}}}`, map[string]bool{"github": true, "weather": true, "secret": false}},
		{"the agent's own list replaces the defaults", `{agents: {defaults: {skills: ["github", "weather"]}, entries: {main: {skills: ["secret"]}}}}`,
			map[string]bool{"github": false, "weather": false, "secret": true}},
		{"an empty list gives none", `{agents: {defaults: {skills: ["github"]}, entries: {main: {skills: []}}}}`,
			map[string]bool{"github": false, "weather": false, "secret": false}},
		{"another agent's list does not apply", `{agents: {entries: {main: {}, docs: {skills: []}}}}`,
			map[string]bool{"github": true, "weather": true, "secret": true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, _, ag := newHost(t, tc.config)
			for _, name := range []string{"github", "weather", "secret"} {
				dir := filepath.Join(ag.dir, "main", WorkspaceSkills, name)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				md := "---\nname: " + name + "\ndescription: the " + name + " skill\n---\nbody\n"
				if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got := map[string]bool{}
			for _, e := range h.skillCatalog("main").Available() {
				got[e.Name] = true
			}
			for name, want := range tc.want {
				if got[name] != want {
					t.Errorf("%s available=%v, want %v (got %v)", name, got[name], want, got)
				}
			}
		})
	}
}
