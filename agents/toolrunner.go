package agents

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/tools"
)

// RegistryTools is the ToolRunner backed by the tools runtime: the model
// sees the registry's tools that the runner's policy allows for this
// turn, and every call goes through the runner's chain (policy, guard,
// approval, hooks, timeout, truncation, audit).
type RegistryTools struct {
	Runner *tools.Runner
	// Legacy, when it returns true, advertises every allowed tool in full
	// (tools.disclosure.mode "legacy"); otherwise extension-tier tools
	// wait behind enable_tool. It is asked at each turn, so a config
	// reload of the mode applies to the next one. Nil means progressive.
	Legacy func() bool

	disc disclosure
}

var _ ToolRunner = (*RegistryTools)(nil)

func whoOf(t *Turn) tools.Who {
	provider, model, _ := strings.Cut(t.Model, "/")
	return tools.Who{
		AgentID: t.AgentID, SessionKey: t.SessionKey, SessionID: t.SessionID, RunID: t.RunID,
		SpawnedBy: t.SpawnedBy, Depth: t.Depth, Provider: provider, Model: model, ToolsAllow: t.ToolsAllow, ToolsDeny: t.ToolsDeny, Owner: t.Owner,
	}
}

// Tools lists the allowed tools: core ones (and extension ones activated
// in this conversation) with their schemas, plus enable_tool carrying a
// one-line directory of the dormant extension tools.
func (r *RegistryTools) Tools(ctx context.Context, t *Turn) []providers.Tool {
	full, dormant := r.visible(ctx, t)
	var out []providers.Tool
	for _, s := range full {
		out = append(out, providers.Tool{Name: s.Name, Description: s.Description, Parameters: s.Parameters})
	}
	if len(dormant) > 0 {
		out = append(out, enableToolSpec(dormant))
	}
	return out
}

// CheckTools implements ToolSetChecker: the runner's policy says whether
// explicit allow lists left this turn no tool at all.
func (r *RegistryTools) CheckTools(ctx context.Context, t *Turn) error {
	return r.Runner.CheckToolSet(ctx, whoOf(t))
}

// Run sends one call through the runner. A dormant extension tool must
// be activated first.
func (r *RegistryTools) Run(ctx context.Context, t *Turn, call providers.ToolCall) ToolResult {
	if call.Name == EnableToolName {
		return r.enable(ctx, t, call.Arguments)
	}
	name := call.Name
	if tool, ok := r.Runner.Registry.Get(name); ok {
		name = tool.Spec().Name // an alias of a dormant tool is dormant too
	}
	if _, dormant := r.visible(ctx, t); slices.ContainsFunc(dormant, func(s tools.Spec) bool { return strings.EqualFold(s.Name, name) }) {
		return ToolResult{Text: fmt.Sprintf("%s is an extension tool: call enable_tool with {\"toolName\": %q} first", name, name), IsError: true}
	}
	res := r.Runner.Run(ctx, tools.Call{ID: call.ID, Name: call.Name, Args: call.Arguments, Who: whoOf(t)})
	out := ToolResult{Text: res.Text, IsError: res.IsError}
	for _, img := range res.Images {
		out.Images = append(out.Images, providers.Image{MediaType: img.MediaType, Data: img.Data})
	}
	return out
}

// SessionTools returns the agent-to-agent tools as registry tools, for
// the gateway to register beside the others.
func (s *Service) SessionTools() []tools.Tool {
	st := &sessionTools{svc: s}
	var out []tools.Tool
	for _, spec := range sessionToolList() {
		timeout := 30 * time.Second
		if spec.Name == "sessions_send" || spec.Name == "delegateToAgent" {
			timeout = 15 * time.Minute // they wait for another agent's whole run
		}
		out = append(out, &sessionTool{st: st, spec: tools.Spec{
			Name: spec.Name, Description: spec.Description, Parameters: spec.Parameters, Timeout: timeout,
			Tier: tools.TierCore, Source: tools.SourceCore, Groups: []string{sessionToolGroup(spec.Name)},
		}})
	}
	return out
}

func sessionToolGroup(name string) string {
	if name == "delegateToAgent" || name == "listAvailableAgents" || name == "agents_list" {
		return "group:agents"
	}
	return "group:sessions"
}

// sessionTool adapts one session tool to the tools contract.
type sessionTool struct {
	st   *sessionTools
	spec tools.Spec
}

func (t *sessionTool) Spec() tools.Spec { return t.spec }

func (t *sessionTool) Call(ctx context.Context, c tools.Call) (tools.Result, error) {
	turn := &Turn{RunID: c.Who.RunID, AgentID: c.Who.AgentID, SessionKey: c.Who.SessionKey, SessionID: c.Who.SessionID,
		SpawnedBy: c.Who.SpawnedBy, Depth: c.Who.Depth, ToolsAllow: c.Who.ToolsAllow, ToolsDeny: c.Who.ToolsDeny, Owner: c.Who.Owner}
	r := t.st.Run(ctx, turn, providers.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Args})
	return tools.Result{Text: r.Text, IsError: r.IsError}, nil
}
