package gateway

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
)

// registerToolMethods serves tools.catalog, tools.effective, tools.invoke
// and tools.explain (ours: which layer decided each tool, and why).
func (s *System) registerToolMethods() {
	s.srv.HandleFunc("tools.catalog", s.handleToolsCatalog)
	s.srv.HandleFunc("tools.effective", s.handleToolsEffective)
	s.srv.HandleFunc("tools.invoke", s.handleToolsInvoke)
	s.srv.Handle("tools.explain", rpc.Route{Scope: protocol.ScopeRead, Handler: s.handleToolsExplain})
	// tools.schemas (ours) lists the caller's allowed tools with their
	// JSON schemas: what `openclaw mcp serve` offers MCP clients.
	s.srv.Handle("tools.schemas", rpc.Route{Scope: protocol.ScopeRead, Handler: s.handleToolsSchemas})
}

// callerParams select whose view of the tools to show.
type callerParams struct {
	AgentID    string `json:"agentId"`
	SessionKey string `json:"sessionKey"`
	Provider   string `json:"provider"` // "openai" or "openai/gpt-5.2"
	Depth      int    `json:"depth"`
	Tool       string `json:"tool"`
}

// who builds the caller a view is for: the session's agent (or the named
// one) with its primary model unless a provider is given.
func (s *System) who(p callerParams) (tools.Who, error) {
	cfg := s.current().snap.Config
	agent := strings.ToLower(p.AgentID)
	if p.SessionKey != "" {
		k, err := sessions.Parse(p.SessionKey)
		if err != nil {
			return tools.Who{}, protocol.Errorf(protocol.CodeInvalidRequest, "sessionKey: %v", err)
		}
		if agent == "" {
			agent = k.AgentID
		}
		if p.Depth == 0 {
			p.Depth = k.Depth
		}
	}
	if agent == "" {
		agent = cfg.DefaultAgentID()
	}
	if _, ok := cfg.Agent(agent); !ok {
		return tools.Who{}, protocol.Errorf(protocol.CodeInvalidRequest, "unknown agent %q", agent)
	}
	w := tools.Who{AgentID: agent, SessionKey: p.SessionKey, Depth: p.Depth}
	ref := p.Provider
	if ref == "" {
		ref = cfg.PrimaryModel(agent)
	}
	w.Provider, w.Model, _ = strings.Cut(ref, "/")
	return w, nil
}

func (s *System) handleToolsCatalog(ctx context.Context, req *rpc.Request) (any, error) {
	var p callerParams
	if err := req.Decode(&p); err != nil {
		return nil, err
	}
	who, err := s.who(p)
	if err != nil {
		return nil, err
	}
	profiles := []any{}
	for _, name := range policy.Profiles() {
		profiles = append(profiles, map[string]any{"id": name, "label": strings.ToUpper(name[:1]) + name[1:]})
	}
	groups := map[string][]any{}
	for _, spec := range s.tools.Registry.Specs() {
		g := "core"
		if len(spec.Groups) > 0 {
			g = spec.Groups[0]
		}
		var defaults []string
		for _, prof := range policy.Profiles() {
			list, _ := policy.ProfileTools(prof)
			if prof == "full" || slices.ContainsFunc(list, func(e string) bool { return policy.Match(e, spec.Name) }) {
				defaults = append(defaults, prof)
			}
		}
		groups[g] = append(groups[g], map[string]any{"id": spec.Name, "label": spec.Name, "description": spec.Description,
			"source": catalogSource(spec.Source), "defaultProfiles": defaults})
	}
	out := []any{}
	ids := make([]string, 0, len(groups))
	for id := range groups {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		out = append(out, map[string]any{"id": id, "label": id, "source": "core", "tools": groups[id]})
	}
	return map[string]any{"agentId": who.AgentID, "profiles": profiles, "groups": out}, nil
}

func catalogSource(src tools.Source) string {
	if src == tools.SourceCore {
		return "core"
	}
	return "plugin"
}

// callerDecision decodes whose view is asked for and resolves its policy.
func (s *System) callerDecision(req *rpc.Request) (callerParams, tools.Who, policy.Decision, error) {
	var p callerParams
	if err := req.Decode(&p); err != nil {
		return p, tools.Who{}, policy.Decision{}, err
	}
	who, err := s.who(p)
	if err != nil {
		return p, who, policy.Decision{}, err
	}
	d, err := s.policy.decide(who)
	if err != nil {
		return p, who, d, protocol.Errorf(protocol.CodeInvalidRequest, "tool policy: %v", err)
	}
	return p, who, d, nil
}

func (s *System) handleToolsEffective(ctx context.Context, req *rpc.Request) (any, error) {
	_, who, d, err := s.callerDecision(req)
	if err != nil {
		return nil, err
	}
	bySource := map[string][]any{}
	for _, spec := range s.tools.Registry.Specs() {
		if td := d.Tools[spec.Name]; td.Allowed {
			src := string(spec.Source)
			bySource[src] = append(bySource[src], map[string]any{"id": spec.Name, "label": spec.Name,
				"description": spec.Description, "rawDescription": spec.Description, "source": src})
		}
	}
	groups := []any{}
	for _, src := range []string{"core", "plugin", "channel", "mcp"} {
		if list := bySource[src]; len(list) > 0 {
			groups = append(groups, map[string]any{"id": src, "label": src, "source": src, "tools": list})
		}
	}
	profile := s.current().toolPolicy.Tools.Profile
	if e, ok := s.current().toolPolicy.Agents.Entries[who.AgentID]; ok && e.Tools.Profile != "" {
		profile = e.Tools.Profile
	}
	if profile == "" {
		profile = "full"
	}
	return map[string]any{"agentId": who.AgentID, "profile": profile, "groups": groups}, nil
}

// handleToolsExplain says, for every registered tool (or one), what the
// caller's model gets on its next turn: the tool with its schema, only a
// line in enable_tool's directory (an extension-tier tool not activated in
// the session), or nothing, with the policy layer or setting that decided
// and why. The summary counts what the model receives, enable_tool
// included. The turn is the owner's (as the operator's own chats are),
// unless the session key names a chat: then it is that chat's sender's,
// an owner only if listed in commands.ownerAllowFrom.
func (s *System) handleToolsExplain(ctx context.Context, req *rpc.Request) (any, error) {
	p, who, d, err := s.callerDecision(req)
	if err != nil {
		return nil, err
	}
	turn := &agents.Turn{AgentID: who.AgentID, SessionKey: who.SessionKey, Depth: who.Depth,
		Model: who.Provider + "/" + who.Model, Owner: true}
	if who.SessionKey != "" {
		if k, err := sessions.Parse(who.SessionKey); err == nil && k.PeerKind != "" {
			turn.Owner = k.PeerKind == sessions.PeerDirect && isChatOwner(s.current().snap.Config, k.Channel, k.PeerID)
		}
		// Activations are per conversation: the session's current one.
		if sess, err := s.sessions.Get(ctx, who.SessionKey); err == nil && sess != nil {
			turn.SessionID = sess.SessionID
		}
	}
	full, dormant := s.turnTools.Offer(ctx, turn)
	state := map[string]string{}
	for _, sp := range full {
		state[sp.Name] = "offered"
	}
	for _, sp := range dormant {
		state[sp.Name] = "enable_tool"
	}
	specs := s.tools.Registry.Specs()
	rows := []any{}
	match := func(name string) bool {
		return p.Tool == "" || strings.EqualFold(name, policy.NormalizeName(p.Tool)) || strings.EqualFold(name, p.Tool)
	}
	for _, spec := range specs {
		if !match(spec.Name) {
			continue
		}
		td := d.Tools[spec.Name]
		row := map[string]any{"tool": spec.Name, "allowed": td.Allowed, "layer": td.Layer, "reason": td.Reason,
			"source": spec.Source, "tier": s.tools.Settings.Tier(spec), "offered": state[spec.Name] == "offered",
			"state": cmp.Or(state[spec.Name], "refused")}
		switch {
		case state[spec.Name] == "enable_tool":
			row["reason"] = "extension tier: the model sees it only in enable_tool's directory until it activates it in this conversation"
			row["layer"] = "disclosure"
		case state[spec.Name] == "" && td.Allowed:
			// The policy allows it, but the runner does not offer it.
			_, why := s.tools.Permitted(ctx, whoOfTurn(turn), spec)
			row["allowed"], row["reason"], row["layer"] = false, why, "runner"
		}
		rows = append(rows, row)
	}
	if len(dormant) > 0 && match(agents.EnableToolName) {
		rows = append(rows, map[string]any{"tool": agents.EnableToolName, "allowed": true, "offered": true, "state": "offered",
			"layer": "disclosure", "source": tools.SourceCore, "tier": tools.TierCore,
			"reason": fmt.Sprintf("added for the extension tools it lists (%d)", len(dormant))})
	}
	if p.Tool != "" && len(rows) == 0 {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "no tool %q is registered", p.Tool)
	}
	offered := len(full)
	if len(dormant) > 0 {
		offered++ // enable_tool
	}
	return map[string]any{"agentId": who.AgentID, "provider": who.Provider, "model": who.Model, "depth": who.Depth,
		"layers": d.Layers, "warnings": d.Warnings, "empty": d.Empty, "tools": rows,
		"registered": len(specs), "offered": offered, "dormant": len(dormant)}, nil
}

// whoOfTurn is the runner's caller for a turn, as the agents bridge builds it.
func whoOfTurn(t *agents.Turn) tools.Who {
	provider, model, _ := strings.Cut(t.Model, "/")
	return tools.Who{AgentID: t.AgentID, SessionKey: t.SessionKey, SessionID: t.SessionID, Depth: t.Depth,
		Provider: provider, Model: model, Owner: t.Owner}
}

// handleToolsInvoke runs one tool for an operator, through the same
// chain as an agent's call.
func (s *System) handleToolsInvoke(ctx context.Context, req *rpc.Request) (any, error) {
	var p struct {
		Name       string          `json:"name"`
		Args       json.RawMessage `json:"args"`
		SessionKey string          `json:"sessionKey"`
		AgentID    string          `json:"agentId"`
	}
	if err := req.Decode(&p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, protocol.InvalidParams(req.Method, errors.New("name is required"))
	}
	who, err := s.who(callerParams{AgentID: p.AgentID, SessionKey: p.SessionKey})
	if err != nil {
		return nil, err
	}
	if len(p.Args) == 0 {
		p.Args = json.RawMessage("{}")
	}
	// The call has the rights of the connection: without operator.admin
	// it is not the owner's, so owner-only tools are refused and
	// dangerous ones wait for approval.
	who.Owner = req.Conn.Has(protocol.ScopeAdmin)
	res := s.tools.Run(ctx, tools.Call{ID: "invoke", Name: p.Name, Args: p.Args, Who: who})
	out := map[string]any{"ok": !res.IsError, "toolName": p.Name, "output": res.Text}
	if res.IsError {
		out["error"] = map[string]any{"code": "TOOL_ERROR", "message": res.Text}
	}
	return out, nil
}

func (s *System) handleToolsSchemas(ctx context.Context, req *rpc.Request) (any, error) {
	_, who, _, err := s.callerDecision(req)
	if err != nil {
		return nil, err
	}
	who.Owner = req.Conn.Has(protocol.ScopeAdmin)
	out := []any{}
	for _, spec := range s.tools.Registry.Specs() {
		// The same check a call gets: the operator's switches, the owner
		// rule, the policy chain and this gateway's narrowing.
		if ok, _ := s.tools.Permitted(ctx, who, spec); !ok {
			continue
		}
		params := spec.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object"}`)
		}
		out = append(out, map[string]any{"name": spec.Name, "description": spec.Description, "parameters": params,
			"source": spec.Source, "tier": spec.Tier})
	}
	return map[string]any{"agentId": who.AgentID, "tools": out}, nil
}
