// Package policy decides which tools a model may see, and explains why, the
// way OpenClaw's tool policy does; and it evaluates Tool Guard rules on each
// tool call.
//
// It is pure: no I/O, no goroutines, no package state that changes after
// init. It imports nothing of ours, so config, agents, tools and the CLI can
// all use it. Every function and method is safe for concurrent use.
//
// # Which tools the model sees
//
// Resolve takes the available tools (core, plugin, channel or MCP), the
// provider and model, the agent, the sender and channel group, whether the
// session is sandboxed and how deep a sub-agent it is, and the policy
// sections of the config. It runs every tool through these layers, in this
// order (protocol reference §4.1):
//
//  1. profile: tools.profile, or agents.entries.<id>.tools.profile, which
//     replaces it; alsoAllow joins the profile's list
//  2. provider profile: byProvider[<provider/model> or <provider>].profile
//     (the agent's entry first)
//  3. global: tools.allow / tools.deny
//  4. global provider: tools.byProvider[…].allow / deny
//  5. agent: agents.entries.<id>.tools.allow / deny
//  6. agent provider: agents.entries.<id>.tools.byProvider[…].allow / deny
//  7. group: channels.<ch>.groups.<id> toolsBySender match, else its tools,
//     then the same for the "*" group
//  8. sender: agents.entries.<id>.tools.toolsBySender match, else
//     tools.toolsBySender
//  9. sandbox: sandbox.tools (agent per list, else global, else defaults),
//     when the session is sandboxed
//  10. sub-agent: built-in denies by depth plus tools.subagents.tools, for
//     spawned children
//
// Each layer can only remove tools. Within a layer a deny entry always wins;
// an absent or empty allow list allows everything; otherwise a tool must
// match an allow entry (allowing "write" also allows "apply_patch"). A
// "provider/model" byProvider key wins over the "provider" key; they are
// not merged.
//
// Entries are matched case-insensitively after aliasing (bash → exec,
// apply-patch → apply_patch, cron → automations, and MateClaw's names from
// MateClawNames: ShellExecuteTool → exec, …); "*" is a glob ("browser_*",
// "*"); group:<name> stands for its members (CoreGroups, plus the caller's
// Input.Groups and Tool.Groups); a plugin or channel id stands for its
// tools; group:plugins for every plugin-owned tool; "bundle-mcp" for every
// MCP tool.
//
// An allow-list entry that matches nothing available produces a warning.
// If explicit allow lists leave no tool at all, Decision.Empty is set and
// Decision.Err returns ErrNoCallableTools: the caller must not call the
// model. (Older OpenClaw builds instead ignored an allow list that named no
// core tool; Input.LegacyPluginOnlyAllowlist restores that.)
//
// # Reading an explanation
//
// Decision.Tools has one ToolDecision per tool. For a removed tool, Layer is
// the list that removed it and Reason says how:
//
//	exec     removed  tools.deny                       denied by "group:runtime"
//	browser  removed  tools.profile (coding)           profile "coding" does not include it
//	message  removed  agents.entries.ops.tools.allow   not matched by any entry of agents.entries.ops.tools.allow
//
// For an allowed tool, Layer is the last allow list that named it (the
// narrowest grant) and Reason the entry; when no allow list applied, Layer
// is empty, or names the "full" profile if one was set. Decision.Layers
// lists the layers that applied, in order.
//
// # Tool Guard
//
// NewGuard compiles Tool Guard rules: a tool name or glob, an optional
// regular expression over what the call acts on (a shell tool's command
// line, each of its commands on its own for an allow; a file tool's
// path; else the JSON arguments; see Rule.ArgPattern), and an action
// (allow, deny, require_approval). Guard.Check applies the first matching rule, else
// the default policy; a dangerous shell command (DangerousCommand) or a
// write under /etc raises an allow to require_approval, and never lowers a
// deny.
package policy
