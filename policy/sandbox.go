package policy

import (
	"fmt"
	"slices"
)

// sandboxLayer builds the sandbox tool policy for a sandboxed session.
// Per list (allow, alsoAllow, deny) the agent's sandbox.tools replaces the
// global one, and an unset list falls back to the defaults:
//
//   - allow: the configured list (+ alsoAllow); "allow: []" allows
//     everything; unset, the default allow list (+ alsoAllow).
//   - deny: the configured list; unset, the default deny list plus every
//     channel tool, minus whatever the configured allow/alsoAllow names.
//   - a deny of the old "image" also denies view_image; a non-empty allow
//     list always keeps view_image unless a deny entry names it.
func (r *resolver) sandboxLayer(global, agent ToolsConfig, hasAgent bool, agentPath string) *layer {
	var g, a *Rules
	if global.Sandbox != nil {
		g = global.Sandbox.Tools
	}
	if hasAgent && agent.Sandbox != nil {
		a = agent.Sandbox.Tools
	}
	pick := func(field string, get func(*Rules) []string) ([]string, string) {
		if a != nil && get(a) != nil {
			return get(a), agentPath + ".sandbox.tools." + field
		}
		if g != nil && get(g) != nil {
			return get(g), "tools.sandbox.tools." + field
		}
		return nil, "tools.sandbox.tools." + field + " (default)"
	}
	allow, allowFrom := pick("allow", func(p *Rules) []string { return p.Allow })
	also, alsoFrom := pick("alsoAllow", func(p *Rules) []string { return p.AlsoAllow })
	deny, denyFrom := pick("deny", func(p *Rules) []string { return p.Deny })

	l := &layer{name: "sandbox", missAt: allowFrom}
	extra := compileList(also, alsoFrom, r.table)
	switch {
	case allow != nil && len(allow) == 0:
		// allow: [] keeps its old meaning, allow everything.
	case allow != nil:
		l.allow = append(compileList(allow, allowFrom, r.table), extra...)
	default:
		l.allow = append(compileList(sandboxDefaultAllow, allowFrom, r.table), extra...)
	}
	l.hasAllow = len(l.allow) > 0
	l.missWhy = "not on the sandbox allow list (" + allowFrom + ")"
	if len(extra) > 0 {
		l.missWhy = fmt.Sprintf("not on the sandbox allow list (%s or %s)", allowFrom, alsoFrom)
	}

	if deny != nil {
		l.deny = compileList(deny, denyFrom, r.table)
	} else {
		explicit := append(compileList(allow, "", r.table), extra...)
		var kept []string
		for _, name := range append(slices.Clone(sandboxDefaultDeny), r.channelTools()...) {
			if _, ok := firstMatch(explicit, NormalizeName(name)); !ok {
				kept = append(kept, name)
			}
		}
		l.deny = compileList(kept, denyFrom, r.table)
	}

	if d, ok := firstMatch(l.deny, "image"); ok {
		if _, ok := firstMatch(l.deny, sandboxKeptTool); !ok {
			l.deny = append(l.deny, entry{raw: d.raw, norm: sandboxKeptTool, from: d.from, pats: []string{sandboxKeptTool}})
		}
	}
	if l.hasAllow {
		_, denied := firstMatch(l.deny, sandboxKeptTool)
		_, listed := firstMatch(l.allow, sandboxKeptTool)
		if !denied && !listed {
			l.allow = append(l.allow, entry{raw: sandboxKeptTool, norm: sandboxKeptTool,
				from: "sandbox (view_image is kept on every sandbox allow list)", pats: []string{sandboxKeptTool}})
		}
	}
	if !l.hasAllow && len(l.deny) == 0 {
		return nil
	}
	return l
}

// subagentLayer builds the policy for a spawned child: the built-in deny
// list for its depth (minus names tools.subagents.tools.allow/alsoAllow
// give back), the configured deny list, and the configured allow list
// (+ alsoAllow) if one is set.
func (r *resolver) subagentLayer(global ToolsConfig) *layer {
	depth := r.in.SubagentDepth
	base, leaf := SubagentDenied(depth, r.in.Config.Agents.Defaults.Subagents.MaxSpawnDepth)
	var cfg Rules
	if global.Subagents != nil && global.Subagents.Tools != nil {
		cfg = *global.Subagents.Tools
	}
	givenBack := map[string]bool{}
	for _, name := range append(slices.Clone(cfg.Allow), cfg.AlsoAllow...) {
		givenBack[NormalizeName(name)] = true
	}
	role := "orchestrator"
	if leaf {
		role = "leaf"
	}
	baseFrom := fmt.Sprintf("sub-agent defaults (depth %d, %s)", depth, role)
	var baseDeny []string
	for _, name := range base {
		if !givenBack[name] {
			baseDeny = append(baseDeny, name)
		}
	}
	const path = "tools.subagents.tools"
	l := &layer{
		name:    fmt.Sprintf("sub-agent (depth %d, %s)", depth, role),
		deny:    append(compileList(baseDeny, baseFrom, r.table), compileList(cfg.Deny, path+".deny", r.table)...),
		missAt:  path + ".allow",
		missWhy: "not matched by any entry of " + path + ".allow",
	}
	if allow := compileList(cfg.Allow, path+".allow", r.table); len(allow) > 0 {
		l.allow = append(allow, compileList(cfg.AlsoAllow, path+".alsoAllow", r.table)...)
		l.hasAllow = true
	}
	return l
}
