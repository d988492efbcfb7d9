package policy

import (
	"fmt"
	"slices"
	"strings"
)

// resolver holds one resolution's state.
type resolver struct {
	in          *Input
	tools       []availTool
	table       *groupTable
	fullProfile string          // label of an explicit "full" profile, for explanations
	mergedAlso  map[string]bool // alsoAllow lists merged into a profile (warned about there)
	warnings    []string
}

// warnf records a warning once.
func (r *resolver) warnf(format string, args ...any) {
	w := fmt.Sprintf(format, args...)
	if !slices.Contains(r.warnings, w) {
		r.warnings = append(r.warnings, w)
	}
}

// build returns the layers in OpenClaw's order: profile, provider profile,
// global, global provider, agent, agent provider, group, sender, then the
// sandbox and sub-agent policies. Layers that configure nothing are left out.
func (r *resolver) build() []*layer {
	var out []*layer
	add := func(l *layer) {
		if l != nil {
			out = append(out, l)
		}
	}
	global := r.in.Config.Tools
	agent, agentKey, hasAgent := r.in.Config.agent(r.in.Agent)
	agentPath := "agents.entries." + agentKey + ".tools"

	// 1. The profile: the agent's replaces the global one; alsoAllow (the
	// agent's if set) joins the profile's list.
	profile, profilePath := global.Profile, "tools.profile"
	if hasAgent && strings.TrimSpace(agent.Profile) != "" {
		profile, profilePath = agent.Profile, agentPath+".profile"
	}
	also, alsoPath := global.AlsoAllow, "tools.alsoAllow"
	if hasAgent && agent.AlsoAllow != nil {
		also, alsoPath = agent.AlsoAllow, agentPath+".alsoAllow"
	}
	add(r.profileLayer(profile, profilePath, also, alsoPath))

	// 2. The provider profile, from the agent's byProvider entry if it sets
	// one, else the global entry's.
	gKey, gProv, gOK := lookupProvider(global.ByProvider, r.in.Provider, r.in.Model)
	var aKey string
	var aProv ProviderTools
	aOK := false
	if hasAgent {
		aKey, aProv, aOK = lookupProvider(agent.ByProvider, r.in.Provider, r.in.Model)
	}
	gPath := "tools.byProvider[" + gKey + "]"
	aPath := agentPath + ".byProvider[" + aKey + "]"
	pProfile, pPath, pAlso, pAlsoPath := "", "", []string(nil), ""
	switch {
	case aOK && strings.TrimSpace(aProv.Profile) != "":
		pProfile, pPath = aProv.Profile, aPath+".profile"
	case gOK && strings.TrimSpace(gProv.Profile) != "":
		pProfile, pPath = gProv.Profile, gPath+".profile"
	}
	switch {
	case aOK && aProv.AlsoAllow != nil:
		pAlso, pAlsoPath = aProv.AlsoAllow, aPath+".alsoAllow"
	case gOK && gProv.AlsoAllow != nil:
		pAlso, pAlsoPath = gProv.AlsoAllow, gPath+".alsoAllow"
	}
	add(r.profileLayer(pProfile, pPath, pAlso, pAlsoPath))

	// 3–6. Allow/deny: global, global provider, agent, agent provider.
	add(r.rulesLayer("tools", Rules{global.Allow, global.AlsoAllow, global.Deny}))
	if gOK {
		add(r.rulesLayer(gPath, gProv.Rules))
	}
	if hasAgent {
		add(r.rulesLayer(agentPath, Rules{agent.Allow, agent.AlsoAllow, agent.Deny}))
	}
	if aOK {
		add(r.rulesLayer(aPath, aProv.Rules))
	}

	// 7. The channel group.
	if path, rules, ok := r.resolveGroup(r.in.Group, r.in.Sender); ok {
		add(r.rulesLayer(path, rules))
	}

	// 8. The sender: the agent's toolsBySender match replaces the global
	// one. Without a sender only "*" entries can match.
	key, rules, ok, path := "", Rules{}, false, ""
	if hasAgent {
		key, rules, ok = r.matchSender(agent.ToolsBySender, r.in.Sender, agentPath+".toolsBySender")
		path = agentPath + ".toolsBySender[" + key + "]"
	}
	if !ok {
		key, rules, ok = r.matchSender(global.ToolsBySender, r.in.Sender, "tools.toolsBySender")
		path = "tools.toolsBySender[" + key + "]"
	}
	if ok {
		add(r.rulesLayer(path, rules))
	}

	// 9–10. Applied separately, without allow-list analysis.
	if r.in.Sandboxed {
		add(r.sandboxLayer(global, agent, hasAgent, agentPath))
	}
	if r.in.SubagentDepth > 0 {
		add(r.subagentLayer(global))
	}
	return out
}

// profileLayer builds a profile step. A missing or "full" profile restricts
// nothing and yields no layer; alsoAllow only widens a real profile.
func (r *resolver) profileLayer(profile, path string, also []string, alsoPath string) *layer {
	name := strings.ToLower(strings.TrimSpace(profile))
	if name == "" {
		return nil
	}
	label := fmt.Sprintf("%s (%s)", path, name)
	base := profiles[name]
	if base == nil {
		if r.fullProfile == "" {
			r.fullProfile = label
		}
		return nil
	}
	l := &layer{
		name:     label,
		allow:    compileList(base, label, r.table),
		hasAllow: true,
		missAt:   label,
		missWhy:  fmt.Sprintf("profile %q does not include it", name),
	}
	l.quiet = len(l.allow)
	if extra := compileList(also, alsoPath, r.table); len(extra) > 0 {
		l.allow = append(l.allow, extra...)
		if r.mergedAlso == nil {
			r.mergedAlso = map[string]bool{}
		}
		r.mergedAlso[alsoPath] = true
		l.missWhy += " and " + alsoPath + " does not name it"
	}
	r.analyze(l)
	return l
}

// rulesLayer builds an allow/deny step for the scope at path. alsoAllow joins
// a non-empty allow list; without one it adds to "everything" and so
// restricts nothing.
func (r *resolver) rulesLayer(path string, rules Rules) *layer {
	if len(rules.Allow) == 0 && len(rules.AlsoAllow) == 0 && len(rules.Deny) == 0 {
		return nil
	}
	l := &layer{
		name:    path,
		deny:    compileList(rules.Deny, path+".deny", r.table),
		missAt:  path + ".allow",
		missWhy: "not matched by any entry of " + path + ".allow",
	}
	also := compileList(rules.AlsoAllow, path+".alsoAllow", r.table)
	warn := true
	if allow := compileList(rules.Allow, path+".allow", r.table); len(allow) > 0 {
		l.allow, l.hasAllow = append(allow, also...), true
		if len(also) > 0 {
			l.missWhy += " or " + path + ".alsoAllow"
		}
	} else {
		l.extra = also
		warn = !r.mergedAlso[path+".alsoAllow"] // already warned about at the profile
	}
	if warn {
		r.analyze(l)
	}
	return l
}

// analyze warns about allow-list entries that match no available tool and
// name no known plugin or group. In legacy mode it also drops an allow list
// that selects no available core tool, so core tools stay.
func (r *resolver) analyze(l *layer) {
	list := l.extra
	if l.hasAllow {
		list = l.allow
	}
	var unknownCore, unknownOther []string
	hasCore := false
	for i, e := range list {
		if e.norm == "*" {
			hasCore = true
			continue
		}
		known := e.norm == GroupPlugins || r.table.declared[e.norm]
		for _, t := range r.tools {
			if e.matches(t.norm) {
				known = true
				hasCore = hasCore || t.source == SourceCore
			}
		}
		if known || (l.hasAllow && i < l.quiet) {
			continue
		}
		if _, group := coreGroups[e.norm]; group || IsCoreTool(e.norm) {
			unknownCore = appendUnique(unknownCore, e.norm)
		} else {
			unknownOther = appendUnique(unknownOther, e.norm)
		}
	}
	label := l.missAt
	switch {
	case l.quiet > 0:
		label = l.name
	case !l.hasAllow && len(l.extra) > 0:
		label = l.extra[0].from
	}
	unknown := append(slices.Clone(unknownCore), unknownOther...)
	strip := r.in.LegacyPluginOnlyAllowlist && l.hasAllow && !hasCore
	var detail string
	switch {
	case strip:
		detail = "The list is ignored so core tools stay available (legacy behaviour); use alsoAllow to add plugin tools."
	case len(unknownCore) > 0 && len(unknownOther) > 0:
		detail = "Some entries are core tools that are unavailable in this runtime, provider, model or configuration; the others won't match any tool unless the plugin is enabled."
	case len(unknownCore) > 0:
		detail = "These entries are core tools that are unavailable in this runtime, provider, model or configuration."
	default:
		detail = "These entries won't match any tool unless the plugin is enabled."
	}
	switch {
	case len(unknown) > 0:
		r.warnf("tools: %s allowlist contains unknown entries (%s). %s", label, strings.Join(unknown, ", "), detail)
	case strip:
		r.warnf("tools: %s allowlist names no core tool. %s", label, detail)
	}
	if strip {
		l.extra, l.allow, l.hasAllow, l.quiet = l.allow, nil, false, 0
	}
}

// channelTools are the names and owners of the available channel tools.
func (r *resolver) channelTools() []string {
	var out []string
	for _, t := range r.tools {
		if t.source == SourceChannel {
			out = appendUnique(out, t.norm)
			for _, o := range t.owners {
				out = appendUnique(out, o)
			}
		}
	}
	return out
}
