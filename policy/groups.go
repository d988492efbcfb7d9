package policy

import (
	"slices"
	"strings"
)

// Group names with a meaning beyond a fixed member list.
const (
	// GroupPlugins names every tool a plugin owns (plugin, channel and MCP
	// tools); it is computed from the available tools.
	GroupPlugins = "group:plugins"
	// GroupOpenClaw names every built-in tool except the file and runtime
	// primitives and canvas.
	GroupOpenClaw = "group:openclaw"
	// MCPPluginID is the plugin id that owns every MCP tool, so "bundle-mcp"
	// in a list selects all MCP tools (the coding and messaging profiles
	// name it).
	MCPPluginID = "bundle-mcp"
)

// aliases maps old or alternative spellings to the canonical tool name.
// "cron" became "automations" in 2026.9; the old name still selects it.
var aliases = map[string]string{
	"bash":        "exec",
	"apply-patch": "apply_patch",
	"cron":        "automations",
}

// coreGroups is OpenClaw's CORE_TOOL_GROUPS (protocol reference §4.4).
// group:openclaw is derived from it in init; group:plugins is computed per
// resolution.
var coreGroups = map[string][]string{
	"group:fs":      {"ls", "read", "write", "edit", "apply_patch"},
	"group:runtime": {"exec", "process", "code_execution", "secrets"},
	"group:web":     {"web_search", "web_fetch", "x_search"},
	"group:memory":  {"memory_search", "memory_get"},
	"group:sessions": {
		"sessions", "sessions_list", "sessions_history", "sessions_search",
		"conversations_list", "conversations_send", "conversations_turn",
		"sessions_send", "sessions_spawn", "github_identity_status", "github_publish",
		"agents_wait", "sessions_yield", "subagents", "session_status",
		"suggest_task", "dismiss_task",
	},
	"group:ui":         {"browser", "screen", "theme", "dashboard", "terminal", "portal", "canvas", "show_widget"},
	"group:messaging":  {"message"},
	"group:automation": {"heartbeat_respond", "automations", "gateway", "plugins", "openclaw"},
	"group:nodes":      {"nodes", "computer", "mobile_ui"},
	"group:agents": {
		"agents_list", "get_goal", "create_goal", "update_goal",
		"progress_card", "ask_user", "skill_workshop",
	},
	"group:media": {"view_image", "image_generate", "music_generate", "video_generate", "tts", "pdf"},
}

// notInOpenClawGroup are the built-in tools group:openclaw leaves out: the
// file and runtime primitives, and canvas.
var notInOpenClawGroup = []string{"read", "write", "edit", "apply_patch", "exec", "process", "ls", "canvas"}

// coreTools is the catalog: every tool a core group names, sorted.
var coreTools []string

func init() {
	seen := map[string]bool{}
	for _, members := range coreGroups {
		for _, m := range members {
			seen[m] = true
		}
	}
	for name := range seen {
		coreTools = append(coreTools, name)
	}
	slices.Sort(coreTools)
	var oc []string
	for _, name := range coreTools {
		if !slices.Contains(notInOpenClawGroup, name) {
			oc = append(oc, name)
		}
	}
	coreGroups[GroupOpenClaw] = oc
}

// NormalizeName returns the canonical form of a tool name or list entry:
// trimmed, lower case, with aliases resolved ("Bash" → "exec",
// "apply-patch" → "apply_patch", "cron" → "automations") and MateClaw's
// names turned into ours ("ShellExecuteTool" → "exec").
func NormalizeName(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	if a, ok := aliases[n]; ok {
		return a
	}
	if a, ok := mateclawLower[n]; ok {
		return a
	}
	return n
}

// CoreGroups returns a copy of the built-in groups and their members.
// group:plugins is not included: its members depend on the loaded plugins.
func CoreGroups() map[string][]string {
	out := make(map[string][]string, len(coreGroups))
	for g, members := range coreGroups {
		out[g] = slices.Clone(members)
	}
	return out
}

// CoreTools returns the names of the built-in tools the groups list, sorted.
func CoreTools() []string { return slices.Clone(coreTools) }

// IsCoreTool reports whether name (after normalization) is a built-in tool.
func IsCoreTool(name string) bool {
	_, ok := slices.BinarySearch(coreTools, NormalizeName(name))
	return ok
}

// groupTable is the group vocabulary of one resolution: the core groups,
// extra groups the caller passed, memberships the tools declare, and the
// plugin groups computed from the available tools.
type groupTable struct {
	groups      map[string][]string // group name → member names
	declared    map[string]bool     // extra groups the caller named (known even if empty)
	owners      map[string][]string // plugin/channel id → the tools it owns
	pluginTools []string            // members of group:plugins
}

// newGroupTable builds the table for tools (already normalized) and the
// caller's extra groups. A nil tools list gives the core groups only.
func newGroupTable(tools []availTool, extra map[string][]string) *groupTable {
	t := &groupTable{
		groups:   make(map[string][]string, len(coreGroups)+len(extra)),
		declared: map[string]bool{},
		owners:   map[string][]string{},
	}
	for g, members := range coreGroups {
		t.groups[g] = slices.Clone(members)
	}
	for g, members := range extra {
		g = NormalizeName(g)
		t.declared[g] = true
		for _, m := range members {
			t.add(g, NormalizeName(m))
		}
	}
	for _, tool := range tools {
		for _, g := range tool.groups {
			t.add(g, tool.norm)
		}
		switch {
		case tool.source == SourceCore:
			if !slices.Contains(notInOpenClawGroup, tool.norm) {
				t.add(GroupOpenClaw, tool.norm)
			}
		default:
			t.pluginTools = appendUnique(t.pluginTools, tool.norm)
			for _, owner := range tool.owners {
				t.owners[owner] = appendUnique(t.owners[owner], tool.norm)
			}
		}
	}
	return t
}

func (t *groupTable) add(group, member string) {
	if group == "" || member == "" {
		return
	}
	t.groups[group] = appendUnique(t.groups[group], member)
}

// expand returns the names an entry stands for and whether it was a group
// or plugin id. A plugin id keeps its own name too, so "exec" still means
// the core tool even if a plugin happens to be called "exec".
func (t *groupTable) expand(entry string) (members []string, isGroup bool) {
	if entry == GroupPlugins {
		return t.pluginTools, true
	}
	if m, ok := t.groups[entry]; ok {
		return m, true
	}
	if m, ok := t.owners[entry]; ok {
		return append([]string{entry}, m...), true
	}
	return nil, false
}

func appendUnique(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
