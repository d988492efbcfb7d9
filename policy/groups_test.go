package policy_test

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/policy"
)

// The tables below restate protocol reference §4.3 and §4.4 literally, so a
// change to the catalog has to change a fact here too.

func TestCoreGroupsAreTheReference(t *testing.T) {
	want := map[string]string{
		"group:fs":         "ls read write edit apply_patch",
		"group:runtime":    "exec process code_execution secrets",
		"group:web":        "web_search web_fetch x_search",
		"group:memory":     "memory_search memory_get",
		"group:sessions":   "sessions sessions_list sessions_history sessions_search conversations_list conversations_send conversations_turn sessions_send sessions_spawn github_identity_status github_publish agents_wait sessions_yield subagents session_status suggest_task dismiss_task",
		"group:ui":         "browser screen theme dashboard terminal portal canvas show_widget",
		"group:messaging":  "message",
		"group:automation": "heartbeat_respond automations gateway plugins openclaw",
		"group:nodes":      "nodes computer mobile_ui",
		"group:agents":     "agents_list get_goal create_goal update_goal progress_card ask_user skill_workshop",
		"group:media":      "view_image image_generate music_generate video_generate tts pdf",
	}
	got := policy.CoreGroups()
	for name, members := range want {
		if g := strings.Join(got[name], " "); g != members {
			t.Errorf("%s = %s, want %s", name, g, members)
		}
	}
	// group:openclaw: every built-in tool but the fs/runtime primitives and canvas.
	excluded := strings.Fields("read write edit apply_patch exec process ls canvas")
	oc := got[policy.GroupOpenClaw]
	for _, tool := range policy.CoreTools() {
		if in := slices.Contains(oc, tool); in == slices.Contains(excluded, tool) {
			t.Errorf("group:openclaw contains %s = %v", tool, in)
		}
	}
	if len(got) != len(want)+1 {
		t.Errorf("CoreGroups has %d groups, want %d", len(got), len(want)+1)
	}
	if _, ok := got[policy.GroupPlugins]; ok {
		t.Error("group:plugins is computed per resolution, not a core group")
	}
}

func TestProfilesAreTheReference(t *testing.T) {
	want := map[string]string{
		"minimal":   "session_status gateway",
		"coding":    "ls read write edit apply_patch exec process code_execution secrets web_search web_fetch x_search memory_search memory_get sessions sessions_list sessions_history sessions_search conversations_list conversations_send conversations_turn sessions_send sessions_spawn github_identity_status github_publish agents_wait sessions_yield subagents session_status suggest_task dismiss_task screen theme dashboard terminal portal automations gateway plugins get_goal create_goal update_goal progress_card ask_user skill_workshop view_image image_generate music_generate video_generate bundle-mcp",
		"messaging": "secrets sessions sessions_list sessions_history sessions_search conversations_list conversations_send conversations_turn sessions_send sessions_spawn sessions_yield subagents session_status theme message gateway ask_user bundle-mcp",
		"full":      "",
	}
	if got := strings.Join(policy.Profiles(), " "); got != "coding full messaging minimal" {
		t.Errorf("Profiles() = %s", got)
	}
	for name, list := range want {
		got, ok := policy.ProfileTools(" " + strings.ToUpper(name))
		if !ok || strings.Join(got, " ") != list {
			t.Errorf("ProfileTools(%s) = %v, %v; want %s", name, got, ok, list)
		}
	}
	if _, ok := policy.ProfileTools("standard"); ok {
		t.Error(`ProfileTools("standard") exists`)
	}
}

func TestNormalizeName(t *testing.T) {
	for in, want := range map[string]string{
		"bash": "exec", " BASH ": "exec", "apply-patch": "apply_patch", "Cron": "automations",
		"exec": "exec", "Web_Fetch": "web_fetch", "group:FS": "group:fs", "": "",
	} {
		if got := policy.NormalizeName(in); got != want {
			t.Errorf("NormalizeName(%q) = %q, want %q", in, got, want)
		}
	}
	if !policy.IsCoreTool("BASH") || policy.IsCoreTool("lobster") || policy.IsCoreTool("group:fs") {
		t.Error("IsCoreTool is wrong")
	}
}

func TestSubagentDenied(t *testing.T) {
	cases := []struct {
		depth, max int
		leaf       bool
		n          int
	}{
		{1, 0, true, 9}, {1, 1, true, 9}, {1, 2, false, 5}, {2, 2, true, 9}, {3, 2, true, 9},
	}
	for _, tc := range cases {
		deny, leaf := policy.SubagentDenied(tc.depth, tc.max)
		if leaf != tc.leaf || len(deny) != tc.n {
			t.Errorf("SubagentDenied(%d, %d) = %v, %v", tc.depth, tc.max, deny, leaf)
		}
	}
}

func TestConfigValidateAll(t *testing.T) {
	c := policy.Config{
		Tools: policy.ToolsConfig{Profile: "coding"},
		Agents: policy.AgentsConfig{Entries: map[string]policy.AgentEntry{
			"a": {Tools: policy.ToolsConfig{Profile: "nope"}},
			"b": {Tools: policy.ToolsConfig{ByProvider: map[string]policy.ProviderTools{
				"openai": {Rules: policy.Rules{Allow: []string{"read"}, AlsoAllow: []string{"exec"}}},
			}}},
		}},
	}
	err := c.Validate()
	if !errors.Is(err, policy.ErrUnknownProfile) {
		t.Fatalf("Validate() = %v, want ErrUnknownProfile", err)
	}
	for _, path := range []string{"agents.entries.a.tools.profile", "agents.entries.b.tools.byProvider[openai]"} {
		if !strings.Contains(err.Error(), path) {
			t.Errorf("Validate() error %q does not name %s", err, path)
		}
	}
	if err := (&policy.Config{}).Validate(); err != nil {
		t.Errorf("empty config: %v", err)
	}
}

func TestDecisionErr(t *testing.T) {
	in := policy.Input{
		Tools:  []policy.Tool{{Name: "read"}},
		Config: policy.Config{Tools: policy.ToolsConfig{Allow: []string{"lobster"}}},
	}
	d, err := policy.Resolve(in)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Empty || !errors.Is(d.Err(), policy.ErrNoCallableTools) || !strings.Contains(d.Err().Error(), "tools.allow: lobster") {
		t.Fatalf("Empty = %v, Err = %v", d.Empty, d.Err())
	}
	in.Config.Tools.Allow = []string{"read"}
	if d, _ := policy.Resolve(in); d.Empty || d.Err() != nil {
		t.Fatalf("Empty = %v, Err = %v", d.Empty, d.Err())
	}
}

// TestResolveConcurrent shares one Input between goroutines; -race checks
// that Resolve only reads it.
func TestResolveConcurrent(t *testing.T) {
	in := policy.Input{
		Tools:     []policy.Tool{{Name: "read"}, {Name: "exec"}, {Name: "slack", Source: policy.SourceChannel, Owner: "slack"}},
		Groups:    map[string][]string{"group:x": {"read"}},
		Sandboxed: true,
		Sender:    &policy.Sender{ID: "1"},
		Group:     &policy.GroupContext{Channel: "telegram", IDs: []string{"g"}, Groups: map[string]policy.GroupTools{"*": {Tools: &policy.Rules{Deny: []string{"exec"}}}}},
		Config: policy.Config{Tools: policy.ToolsConfig{
			Profile:       "coding",
			AlsoAllow:     []string{"slack"},
			ToolsBySender: map[string]policy.Rules{"*": {Deny: []string{"group:x"}}},
		}},
	}
	want, err := policy.Resolve(in)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := policy.Resolve(in)
			if err != nil || strings.Join(got.Allowed, ",") != strings.Join(want.Allowed, ",") {
				t.Errorf("concurrent Resolve = %v, %v", got.Allowed, err)
			}
		}()
	}
	wg.Wait()
}
