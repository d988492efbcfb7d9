package toolhost

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
)

// PolicyConfig turns the tools sections of the config into the policy
// package's input. The JSON keys are the same on both sides.
func PolicyConfig(cfg *config.Config) (policy.Config, error) {
	var pc policy.Config
	raw, err := json.Marshal(map[string]any{"tools": cfg.Tools, "agents": map[string]any{
		"defaults": map[string]any{"subagents": map[string]any{"maxSpawnDepth": cfg.Agents.Defaults.Subagents.MaxSpawnDepth}},
		"entries":  agentTools(cfg),
	}})
	if err == nil {
		err = json.Unmarshal(raw, &pc)
	}
	if err != nil {
		return pc, fmt.Errorf("tool policy config: %w", err)
	}
	// tools.guard is ours, not the policy chain's: policy.Config has no
	// field for it, so it is left out here.
	return pc, pc.Validate()
}

func agentTools(cfg *config.Config) map[string]any {
	out := map[string]any{}
	for id, e := range cfg.Agents.Entries {
		out[id] = map[string]any{"tools": e.Tools}
	}
	return out
}

// NewGuard builds the Tool Guard from tools.guard.
func NewGuard(cfg *config.Config) (*policy.Guard, error) {
	g := cfg.Tools.Guard
	gc := policy.GuardConfig{DefaultPolicy: policy.Action(g.DefaultPolicy), ShellTools: g.ShellTools}
	for _, r := range g.Rules {
		gc.Rules = append(gc.Rules, policy.Rule{Tool: r.Tool, ArgPattern: r.ArgPattern, Action: policy.Action(r.Action)})
	}
	if g.Enabled != nil && !*g.Enabled {
		// Switched off: the rules were still compiled above, so a broken
		// one is reported now rather than when the guard is switched on
		// again; the built-in checks below stay.
		if _, err := policy.NewGuard(gc); err != nil {
			return nil, fmt.Errorf("tools.guard: %w", err)
		}
		gc.Rules, gc.DefaultPolicy = nil, policy.ActionAllow
	}
	// Writing a skill writes instructions (and scripts) later runs will
	// follow, so a person approves it unless a rule above says otherwise.
	gc.Rules = append(gc.Rules, policy.Rule{Tool: "skill_manage", Action: policy.ActionRequireApproval})
	guard, err := policy.NewGuard(gc)
	if err != nil {
		return nil, fmt.Errorf("tools.guard: %w", err)
	}
	return guard, nil
}

// guardAdapter lets the runner ask the live guard.
type guardAdapter struct{ h *Host }

func (g guardAdapter) Check(tool string, args json.RawMessage) tools.GuardDecision {
	d := g.h.live().Guard.Check(tool, args)
	return tools.GuardDecision{Action: string(d.Action), Rule: d.Rule, Reason: d.Reason}
}

// policyAdapter answers the runner's "may this caller use this tool" from
// the policy chain, resolving once per caller shape and config.
type policyAdapter struct {
	h *Host

	mu    sync.Mutex
	cache map[policyKey]policy.Decision
}

type policyKey struct {
	snap               *config.Snapshot // the policy and guard are derived from it
	agent, prov, model string
	depth              int
	sandboxed          bool
	tools              uint64 // the registry's generation
}

// decide resolves the policy for a caller over the registered tools.
func (p *policyAdapter) decide(who tools.Who) (policy.Decision, error) {
	l := p.h.live()
	gen := p.h.runner.Registry.Generation()
	specs := p.h.runner.Registry.Specs()
	sandboxed := who.Sandbox || p.h.sandboxed(who)
	key := policyKey{l.Snap, who.AgentID, who.Provider, who.Model, who.Depth, sandboxed, gen}
	p.mu.Lock()
	if d, ok := p.cache[key]; ok {
		p.mu.Unlock()
		return d, nil
	}
	p.mu.Unlock()
	in := policy.Input{Provider: who.Provider, Model: who.Model, Agent: who.AgentID, Sandboxed: sandboxed,
		SubagentDepth: who.Depth, Config: l.Policy}
	for _, s := range specs {
		in.Tools = append(in.Tools, policyTool(s))
	}
	d, err := policy.Resolve(in)
	if err != nil {
		return d, err
	}
	// Logged once per config and caller shape, as the decision is cached:
	// an allow list naming a tool no plugin provides is the operator's to fix.
	for _, w := range d.Warnings {
		p.h.log.Warn("tool policy: "+w, "agent", who.AgentID, "provider", who.Provider, "model", who.Model)
	}
	p.mu.Lock()
	if p.cache == nil || len(p.cache) > 256 {
		p.cache = map[policyKey]policy.Decision{}
	}
	p.cache[key] = d
	p.mu.Unlock()
	return d, nil
}

func policyTool(s tools.Spec) policy.Tool {
	t := policy.Tool{Name: s.Name, Source: policy.Source(s.Source), Groups: s.Groups}
	if s.Source == tools.SourceCore && !policy.IsCoreTool(s.Name) {
		// Our own core tools that OpenClaw's catalog lacks (MateClaw's
		// delegation tools) are policed like a plugin named "agents".
		t.Source, t.Owner = policy.Source(tools.SourcePlugin), "agents"
	}
	return t
}

// NoCallableTools implements tools.ToolSetPolicy.
func (p *policyAdapter) NoCallableTools(ctx context.Context, who tools.Who) error {
	d, err := p.decide(who)
	if err != nil {
		return err
	}
	return d.Err()
}

// Allowed implements tools.Policy.
func (p *policyAdapter) Allowed(ctx context.Context, who tools.Who, s tools.Spec) (bool, string) {
	if ok, why := configGate(p.h.cfg(), who, s.Name); !ok {
		return false, why
	}
	d, err := p.decide(who)
	if err != nil {
		return false, err.Error()
	}
	td, ok := d.Tools[s.Name]
	if !ok {
		return false, "not in the tool policy's view"
	}
	if !td.Allowed {
		return false, fmt.Sprintf("%s (%s)", td.Reason, td.Layer)
	}
	if len(who.ToolsDeny) > 0 && inToolsAllow(who.ToolsDeny, s) {
		return false, "denied in this chat (its tools.deny)"
	}
	if len(who.ToolsAllow) > 0 && !inToolsAllow(who.ToolsAllow, s) {
		return false, "not in this run's tool allowlist (a scheduled job's toolsAllow or the chat's tools.allow)"
	}
	if s.Source == tools.SourceMCP {
		if picks := p.mcpPicks(who.AgentID); len(picks) > 0 && !inToolsAllow(picks, s) {
			return false, "not among the MCP tools this agent picked (agents.entries." + who.AgentID + ".tools)"
		}
	}
	return true, ""
}

// mcpPicks are the MCP tools an agent's own allow and alsoAllow name
// (<server>__<tool> globs, or mcp:<server>). As MateClaw scopes MCP
// tools per agent: an agent that names none gets every MCP tool the
// policy allows; one that names some gets only those.
func (p *policyAdapter) mcpPicks(agentID string) []string {
	e, ok := p.h.cfg().Agents.Entries[agentID]
	if !ok {
		return nil
	}
	var picks []string
	for _, entry := range append(slices.Clone(e.Tools.Allow), e.Tools.AlsoAllow...) {
		if strings.Contains(entry, "__") || strings.HasPrefix(entry, "mcp:") {
			picks = append(picks, entry)
		}
	}
	return picks
}

// inToolsAllow matches a tool against a job's toolsAllow: names and
// globs as in the policy, and group:<name> by the tool's groups.
func inToolsAllow(list []string, s tools.Spec) bool {
	for _, p := range list {
		if policy.Match(p, s.Name) {
			return true
		}
		if strings.HasPrefix(p, "group:") && (slices.Contains(s.Groups, p) || slices.Contains(policy.CoreGroups()[p], policy.NormalizeName(s.Name))) {
			return true
		}
	}
	return false
}

// NewHooks compiles tools.hooks.
func NewHooks(cfg *config.Config) (*tools.ConfigHooks, error) {
	var rules []tools.HookRule
	for _, h := range cfg.Tools.Hooks {
		rules = append(rules, tools.HookRule{On: h.On, Tool: h.Tool, Pattern: h.Pattern, Action: h.Action,
			Replacement: h.Replacement, Message: h.Message, Text: h.Text})
	}
	hooks, err := tools.NewConfigHooks(rules)
	if err != nil {
		return nil, fmt.Errorf("tools.hooks: %w", err)
	}
	return hooks, nil
}
