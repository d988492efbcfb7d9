package policy

import (
	"slices"
	"strings"
)

// Profile names (tools.profile, agents.entries.<id>.tools.profile and
// byProvider profiles).
const (
	ProfileMinimal   = "minimal"
	ProfileCoding    = "coding"
	ProfileMessaging = "messaging"
	ProfileFull      = "full"
)

// profiles is OpenClaw's resolveCoreToolProfilePolicy (protocol reference
// §4.3): each profile is a base allow list. "full" has none: it is the same
// as no profile.
var profiles = map[string][]string{
	ProfileMinimal: {"session_status", "gateway"},
	ProfileCoding: {
		"ls", "read", "write", "edit", "apply_patch", "exec", "process",
		"code_execution", "secrets", "web_search", "web_fetch", "x_search",
		"memory_search", "memory_get", "sessions", "sessions_list",
		"sessions_history", "sessions_search", "conversations_list",
		"conversations_send", "conversations_turn", "sessions_send",
		"sessions_spawn", "github_identity_status", "github_publish",
		"agents_wait", "sessions_yield", "subagents", "session_status",
		"suggest_task", "dismiss_task", "screen", "theme", "dashboard",
		"terminal", "portal", "automations", "gateway", "plugins", "get_goal",
		"create_goal", "update_goal", "progress_card", "ask_user",
		"skill_workshop", "view_image", "image_generate", "music_generate",
		"video_generate", MCPPluginID,
	},
	ProfileMessaging: {
		"secrets", "sessions", "sessions_list", "sessions_history",
		"sessions_search", "conversations_list", "conversations_send",
		"conversations_turn", "sessions_send", "sessions_spawn",
		"sessions_yield", "subagents", "session_status", "theme", "message",
		"gateway", "ask_user", MCPPluginID,
	},
	ProfileFull: nil,
}

// Profiles returns the profile names, sorted.
func Profiles() []string {
	names := make([]string, 0, len(profiles))
	for name := range profiles {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// ProfileTools returns the base allow list of a profile and whether the
// profile exists. "full" exists and has a nil list: it restricts nothing.
func ProfileTools(name string) ([]string, bool) {
	list, ok := profiles[strings.ToLower(strings.TrimSpace(name))]
	return slices.Clone(list), ok
}

// Sandbox defaults, used when a session is sandboxed and neither
// agents.entries.<id>.tools.sandbox.tools nor tools.sandbox.tools sets the
// list (OpenClaw src/agents/sandbox/constants.ts). The sandbox also denies
// every channel tool by default; those names come from the available tools.
var (
	sandboxDefaultAllow = []string{
		"exec", "process", "read", "write", "edit", "apply_patch", "view_image",
		"sessions_list", "sessions_history", "sessions_send", "sessions_spawn",
		"sessions_yield", "subagents", "session_status",
	}
	sandboxDefaultDeny = []string{"browser", "canvas", "nodes", "automations", "gateway"}
)

// sandboxKeptTool is added to any non-empty sandbox allow list unless a deny
// entry names it: multimodal turns need it.
const sandboxKeptTool = "view_image"

// SandboxDefaults returns the sandbox allow and deny lists used when none is
// configured (channel tools are denied on top of deny).
func SandboxDefaults() (allow, deny []string) {
	return slices.Clone(sandboxDefaultAllow), slices.Clone(sandboxDefaultDeny)
}

// Sub-agent defaults (OpenClaw src/agents/pi-tools.policy.ts): tools a
// spawned child never gets, and tools a leaf child (depth ≥ maxSpawnDepth)
// does not get either. A name in tools.subagents.tools.allow or alsoAllow
// takes it off these lists.
var (
	subagentDenyAlways = []string{"gateway", "agents_list", "session_status", "automations", "sessions_send"}
	subagentDenyLeaf   = []string{"subagents", "sessions_list", "sessions_history", "sessions_spawn"}
)

// DefaultMaxSpawnDepth is agents.defaults.subagents.maxSpawnDepth when unset.
const DefaultMaxSpawnDepth = 1

// SubagentDenied returns the built-in deny list for a sub-agent at depth
// (1 = a child of a top-level agent) given maxSpawnDepth (0 means the
// default), and whether the child is a leaf.
func SubagentDenied(depth, maxSpawnDepth int) (deny []string, leaf bool) {
	if maxSpawnDepth < 1 {
		maxSpawnDepth = DefaultMaxSpawnDepth
	}
	deny = slices.Clone(subagentDenyAlways)
	if depth >= maxSpawnDepth {
		return append(deny, subagentDenyLeaf...), true
	}
	return deny, false
}
