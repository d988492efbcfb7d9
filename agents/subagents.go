package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/agents/sessions"
)

// subagentLimits counts live sub-agent runs, for maxConcurrent and
// maxChildrenPerAgent.
type subagentLimits struct {
	running  int
	children map[string]int // by requesting agent
}

// reserveChild takes a sub-agent slot for the requesting agent, or says
// which limit stops it.
func (s *Service) reserveChild(parentAgent string) error {
	def := s.config().Agents.Defaults.Subagents
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sub.children == nil {
		s.sub.children = map[string]int{}
	}
	if def.MaxConcurrent > 0 && s.sub.running >= def.MaxConcurrent {
		return fmt.Errorf("too many sub-agents running (%d; agents.defaults.subagents.maxConcurrent)", s.sub.running)
	}
	if def.MaxChildrenPerAgent > 0 && s.sub.children[parentAgent] >= def.MaxChildrenPerAgent {
		return fmt.Errorf("agent %s already has %d sub-agents running (agents.defaults.subagents.maxChildrenPerAgent)", parentAgent, s.sub.children[parentAgent])
	}
	s.sub.running++
	s.sub.children[parentAgent]++
	return nil
}

func (s *Service) releaseChild(parentAgent string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sub.running--
	s.sub.children[parentAgent]--
}

// allowedTargets are the agents a requester may spawn; any is true for ["*"].
func (s *Service) allowedTargets(requester string) (ids []string, anyAgent bool) {
	cfg := s.config()
	a, _ := resolveAgent(cfg, s.opts.StateDir, requester)
	if slices.Contains(a.AllowAgents, "*") {
		return cfg.AgentIDs(), true
	}
	ids = []string{a.ID}
	for _, id := range a.AllowAgents {
		id = strings.ToLower(id)
		if _, ok := cfg.Agent(id); ok && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, false
}

func (t *sessionTools) spawn(ctx context.Context, turn *Turn, raw json.RawMessage) (any, error) {
	var a struct {
		Task              string `json:"task"`
		Label             string `json:"label"`
		AgentID           string `json:"agentId"`
		Model             string `json:"model"`
		RunTimeoutSeconds int    `json:"runTimeoutSeconds"`
		Cleanup           string `json:"cleanup"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Task) == "" {
		return nil, fmt.Errorf("task is empty")
	}
	s := t.svc
	cfg := s.config()
	def := cfg.Agents.Defaults.Subagents
	target := strings.ToLower(a.AgentID)
	if target == "" {
		target = turn.AgentID
	}
	allowed, anyAgent := s.allowedTargets(turn.AgentID)
	if !anyAgent && !slices.Contains(allowed, target) {
		return nil, fmt.Errorf("agent %s may not spawn agent %q; allowed: %s (agents.entries.%s.subagents.allowAgents)", turn.AgentID, target, strings.Join(allowed, ", "), turn.AgentID)
	}
	targetAgent, ok := resolveAgent(cfg, s.opts.StateDir, target)
	if !ok {
		return nil, fmt.Errorf("unknown agent %q", target)
	}
	depth := turn.Depth + 1
	if depth > def.MaxSpawnDepth {
		return nil, fmt.Errorf("sub-agents may not be nested deeper than %d (agents.defaults.subagents.maxSpawnDepth)", def.MaxSpawnDepth)
	}
	if err := s.reserveChild(turn.AgentID); err != nil {
		return nil, err
	}
	models := targetAgent.SubagentModels
	if a.Model != "" {
		// The model's own pick obeys the allowlist as a user's /model does.
		ref, err := s.chooseModel(target, a.Model)
		if err != nil {
			s.releaseChild(turn.AgentID)
			return nil, err
		}
		models = []string{ref}
	}
	timeout := time.Duration(a.RunTimeoutSeconds) * time.Second
	if timeout == 0 {
		timeout = time.Duration(def.RunTimeoutSeconds) * time.Second
	}
	key := sessions.SubagentKeyFor(target, turn.SessionKey)
	run, _, err := s.Start(context.WithoutCancel(ctx), StartRequest{
		AgentID: target, SessionKey: key, Message: a.Task, SpawnedBy: turn.SessionKey, Depth: depth,
		Label: a.Label, Models: models, Timeout: timeout, Owner: turn.Owner,
		// A chat's tool limits follow its work into the sub-agent.
		ToolsAllow: turn.ToolsAllow, ToolsDeny: turn.ToolsDeny,
	})
	if err != nil {
		s.releaseChild(turn.AgentID)
		return nil, err
	}
	// The announcement comes after this tool call has returned and lasts
	// as long as the child run: it keeps the call's values but not its
	// cancel or deadline, as the child's Start above does. The Service has
	// no lifetime of its own to hang it on; it ends when the child does.
	go s.announce(context.WithoutCancel(ctx), run, turn, a.Label, a.Cleanup == "delete")
	return map[string]any{"status": "accepted", "runId": run.ID, "childSessionKey": key}, nil
}

// announce waits for a sub-agent and reports its result to the requester's
// session as a new run there. An exact ANNOUNCE_SKIP stays silent.
func (s *Service) announce(ctx context.Context, run *Run, parent *Turn, label string, cleanup bool) {
	<-run.Done()
	s.releaseChild(parent.AgentID)
	r := run.Result()
	if cleanup {
		archived := true
		s.opts.Store.Patch(ctx, run.SessionKey, sessions.Patch{Archived: &archived})
	}
	text := strings.TrimSpace(r.Text)
	if r.Status == "ok" && text == AnnounceSkip {
		return
	}
	name := label
	if name == "" {
		name = run.SessionKey
	}
	body := text
	if r.Status != "ok" {
		body = fmt.Sprintf("(the sub-agent ended with %s: %s)", r.Status, r.Error)
	}
	msg := fmt.Sprintf("[Sub-agent %s finished, run %s, isUser=false]\n%s", name, run.ID, body)
	if _, _, err := s.Start(ctx, StartRequest{AgentID: parent.AgentID, SessionKey: parent.SessionKey, Message: msg, SpawnedBy: parent.SpawnedBy, Depth: parent.Depth, Owner: parent.Owner,
		ToolsAllow: parent.ToolsAllow, ToolsDeny: parent.ToolsDeny}); err != nil {
		s.log.Error("announce sub-agent result", "child", run.SessionKey, "parent", parent.SessionKey, "err", err)
	}
}

func (t *sessionTools) status(ctx context.Context, turn *Turn, raw json.RawMessage) (any, error) {
	var a struct {
		SessionKey string  `json:"sessionKey"`
		SessionID  string  `json:"sessionId"`
		Model      *string `json:"model"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	key := a.SessionKey
	if key == "" && a.SessionID == "" {
		key = turn.SessionKey
	}
	sess, err := t.resolveTarget(ctx, turn, key, a.SessionID, "", "")
	if err != nil {
		return nil, err
	}
	if a.Model != nil {
		m := strings.TrimSpace(*a.Model)
		if m == "default" {
			m = ""
		} else if m, err = t.svc.chooseModel(sess.AgentID, m); err != nil {
			return nil, err
		}
		if sess, err = t.svc.opts.Store.Patch(ctx, sess.Key, sessions.Patch{Model: &m}); err != nil {
			return nil, err
		}
	}
	model := sess.Model
	if model == "" {
		model = t.svc.defaultModel(sess.AgentID)
	}
	running, busy := t.svc.queue.Running(sess.Key)
	out := map[string]any{
		"sessionKey": sess.Key, "sessionId": sess.SessionID, "agentId": sess.AgentID, "model": model,
		"inputTokens": sess.InputTokens, "outputTokens": sess.OutputTokens, "messageCount": sess.MessageCount,
		"updatedAt": sess.UpdatedAt.UnixMilli(), "running": busy,
	}
	if busy {
		out["runId"] = running
	}
	return out, nil
}

func (t *sessionTools) agentsList(turn *Turn) (any, error) {
	ids, anyAgent := t.svc.allowedTargets(turn.AgentID)
	rows := []any{}
	for _, id := range ids {
		a, _ := resolveAgent(t.svc.config(), t.svc.opts.StateDir, id)
		rows = append(rows, map[string]any{"id": a.ID, "name": a.Name})
	}
	return map[string]any{"agents": rows, "allowAny": anyAgent}, nil
}

func (t *sessionTools) available() (any, error) {
	cfg := t.svc.config()
	rows := []any{}
	for _, id := range cfg.AgentIDs() {
		a, _ := resolveAgent(cfg, t.svc.opts.StateDir, id)
		rows = append(rows, map[string]any{"name": a.Name, "id": a.ID, "description": a.Description, "default": a.IsDefault})
	}
	return map[string]any{"agents": rows}, nil
}

// delegate hands a task to another agent in an isolated session and
// waits for its answer (MateClaw's delegateToAgent).
func (t *sessionTools) delegate(ctx context.Context, turn *Turn, raw json.RawMessage) (any, error) {
	var a struct {
		AgentName string `json:"agentName"`
		Task      string `json:"task"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if turn.Depth+1 > maxDelegationDepth {
		return nil, fmt.Errorf("delegation is nested too deep (at most %d levels)", maxDelegationDepth)
	}
	cfg := t.svc.config()
	var target string
	for _, id := range cfg.AgentIDs() {
		r, _ := resolveAgent(cfg, t.svc.opts.StateDir, id)
		if strings.EqualFold(id, a.AgentName) || strings.EqualFold(r.Name, a.AgentName) {
			target = id
			break
		}
	}
	if target == "" {
		return nil, fmt.Errorf("no agent named %q; listAvailableAgents shows them", a.AgentName)
	}
	if !agentToAgentOf(cfg).allowed(sessions.NormalizeAgentID(turn.AgentID), target) {
		return nil, fmt.Errorf("agent-to-agent delegation from %s to %s is off (tools.agentToAgent)", turn.AgentID, target)
	}
	// Each delegation is a session of its own, and a label is unique among
	// an agent's sessions: the label names this one, not just its sender.
	key := sessions.SubagentKeyFor(target, turn.SessionKey)
	label := fmt.Sprintf("delegated by %s (%s)", turn.AgentID, key[strings.LastIndexByte(key, ':')+1:])
	run, _, err := t.svc.Start(context.WithoutCancel(ctx), StartRequest{
		AgentID: target, SessionKey: key, Message: a.Task,
		SpawnedBy: turn.SessionKey, Depth: turn.Depth + 1, Label: label, Owner: turn.Owner,
		ToolsAllow: turn.ToolsAllow, ToolsDeny: turn.ToolsDeny,
	})
	if err != nil {
		return nil, err
	}
	select {
	case <-run.Done():
	case <-ctx.Done():
		t.svc.Abort(run.SessionKey, run.ID)
		return nil, ctx.Err()
	}
	r := run.Result()
	if r.Status != "ok" {
		return nil, fmt.Errorf("agent %s could not finish: %s", target, r.Error)
	}
	text := r.Text
	if len(text) > maxDelegatedChars {
		text = text[:maxDelegatedChars] + fmt.Sprintf("\n[result truncated at %d characters]", maxDelegatedChars)
	}
	return text, nil
}
