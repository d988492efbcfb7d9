package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/sessions"
)

// Silent answers agents use in agent-to-agent exchanges.
const (
	// ReplySkip from a target session means "nothing to say back".
	ReplySkip = "REPLY_SKIP"
	// AnnounceSkip from a sub-agent means "do not announce my result".
	AnnounceSkip = "ANNOUNCE_SKIP"
	// maxPingPongTurns bounds sessions_send calls to one target in a run.
	maxPingPongTurns = 5
	// maxDelegationDepth bounds delegateToAgent nesting.
	maxDelegationDepth = 3
	// maxDelegatedChars caps a delegated result.
	maxDelegatedChars = 4000
)

// sessionTools are the agent-to-agent tools: OpenClaw's session tools and
// MateClaw's delegation tools. They are the whole tool set until the
// tools part of the gateway supplies its runner, which then includes them.
type sessionTools struct {
	svc *Service

	mu       sync.Mutex
	pingPong map[string]map[string]int // run id -> target key -> sends
}

type toolSpec struct {
	desc   string
	params string
}

var sessionToolSpecs = map[string]toolSpec{
	"sessions_list": {"List sessions on this gateway, newest first.",
		`{"type":"object","properties":{"kinds":{"type":"array","items":{"type":"string","enum":["main","group","cron","hook","node","other"]}},"limit":{"type":"integer","minimum":1,"maximum":100},"activeMinutes":{"type":"integer","minimum":1},"messageLimit":{"type":"integer","minimum":0,"maximum":20}}}`},
	"sessions_history": {"Read another session's recent messages.",
		`{"type":"object","properties":{"sessionKey":{"type":"string"},"sessionId":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":200},"includeTools":{"type":"boolean"}}}`},
	"sessions_send": {"Send a message to another session and, unless timeoutSeconds is 0, wait for its reply. The target may answer REPLY_SKIP to say nothing.",
		`{"type":"object","required":["message"],"properties":{"sessionKey":{"type":"string"},"label":{"type":"string"},"agentId":{"type":"string"},"message":{"type":"string"},"timeoutSeconds":{"type":"integer","minimum":0}}}`},
	"sessions_spawn": {"Start a sub-agent on a task in its own session. Returns at once; the sub-agent announces its result back to this session when done (it may answer ANNOUNCE_SKIP to stay silent).",
		`{"type":"object","required":["task"],"properties":{"task":{"type":"string"},"label":{"type":"string"},"agentId":{"type":"string"},"model":{"type":"string"},"runTimeoutSeconds":{"type":"integer","minimum":1},"cleanup":{"type":"string","enum":["keep","delete"]}}}`},
	"session_status": {"Show a session's status (default: this one); model sets its model override (\"default\" clears it).",
		`{"type":"object","properties":{"sessionKey":{"type":"string"},"sessionId":{"type":"string"},"model":{"type":"string"}}}`},
	"agents_list": {"List the agents this session may spawn as sub-agents.", `{"type":"object","properties":{}}`},
	"delegateToAgent": {"Hand a task to another agent by name and wait for its answer (isolated session, result capped at 4000 characters).",
		`{"type":"object","required":["agentName","task"],"properties":{"agentName":{"type":"string"},"task":{"type":"string"}}}`},
	"listAvailableAgents": {"List every agent with its name and description.", `{"type":"object","properties":{}}`},
}

// Tools lists the session tools, sorted by name.
func (t *sessionTools) Tools(ctx context.Context, turn *Turn) []providers.Tool {
	return sessionToolList()
}

// sessionToolList is every session tool, sorted by name; the list does
// not depend on the turn.
func sessionToolList() []providers.Tool {
	names := make([]string, 0, len(sessionToolSpecs))
	for n := range sessionToolSpecs {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]providers.Tool, 0, len(names))
	for _, n := range names {
		s := sessionToolSpecs[n]
		out = append(out, providers.Tool{Name: n, Description: s.desc, Parameters: json.RawMessage(s.params)})
	}
	return out
}

// Run runs one session tool. Results are JSON text for the model.
func (t *sessionTools) Run(ctx context.Context, turn *Turn, call providers.ToolCall) ToolResult {
	var out any
	var err error
	switch call.Name {
	case "sessions_list":
		out, err = t.list(ctx, turn, call.Arguments)
	case "sessions_history":
		out, err = t.history(ctx, turn, call.Arguments)
	case "sessions_send":
		out, err = t.send(ctx, turn, call.Arguments)
	case "sessions_spawn":
		out, err = t.spawn(ctx, turn, call.Arguments)
	case "session_status":
		out, err = t.status(ctx, turn, call.Arguments)
	case "agents_list":
		out, err = t.agentsList(turn)
	case "delegateToAgent":
		out, err = t.delegate(ctx, turn, call.Arguments)
	case "listAvailableAgents":
		out, err = t.available()
	default:
		return ToolResult{Text: "unknown tool " + call.Name, IsError: true}
	}
	if err != nil {
		return ToolResult{Text: err.Error(), IsError: true}
	}
	if s, ok := out.(string); ok {
		return ToolResult{Text: s}
	}
	b, _ := json.Marshal(out)
	return ToolResult{Text: string(b)}
}

func decodeArgs(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("bad arguments: %v", err)
	}
	return nil
}

func (t *sessionTools) list(ctx context.Context, turn *Turn, raw json.RawMessage) (any, error) {
	var a struct {
		Kinds         []string `json:"kinds"`
		Limit         int      `json:"limit"`
		ActiveMinutes int      `json:"activeMinutes"`
		MessageLimit  int      `json:"messageLimit"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if a.Limit <= 0 || a.Limit > 100 {
		a.Limit = 20
	}
	a.MessageLimit = min(max(a.MessageLimit, 0), 20)
	list, _, err := t.svc.opts.Store.List(ctx, sessions.ListFilter{ActiveMinutes: a.ActiveMinutes})
	if err != nil {
		return nil, err
	}
	reach := t.reach(turn)
	rows := []any{}
	for _, s := range list {
		k, _ := sessions.Parse(s.Key)
		if len(a.Kinds) > 0 && !slices.Contains(a.Kinds, k.ToolKind()) {
			continue
		}
		if !t.visible(ctx, turn, reach, &s) {
			continue
		}
		row := map[string]any{"key": s.Key, "kind": k.ToolKind(), "agentId": s.AgentID, "updatedAt": s.UpdatedAt.UnixMilli(), "messageCount": s.MessageCount}
		if s.Label != "" {
			row["label"] = s.Label
		}
		if a.MessageLimit > 0 {
			msgs, _ := t.svc.opts.Store.History(ctx, s.SessionID, sessions.HistoryQuery{Limit: a.MessageLimit})
			row["messages"] = plainMessages(msgs, false)
		}
		rows = append(rows, row)
		if len(rows) == a.Limit {
			break
		}
	}
	out := map[string]any{"sessions": rows}
	if reach != VisibilityAll {
		out["visibility"] = map[string]any{"mode": reach, "note": "sessions outside this scope are not listed"}
	}
	return out, nil
}

// plainMessages renders messages for a model to read.
func plainMessages(msgs []sessions.Message, includeTools bool) []any {
	out := []any{}
	for _, m := range msgs {
		if m.Role == "tool" && !includeTools {
			continue
		}
		e := map[string]any{"role": m.Role, "text": m.Text}
		if includeTools && len(m.ToolCalls) > 0 {
			e["toolCalls"] = m.ToolCalls
		}
		out = append(out, e)
	}
	return out
}

// Session-tool visibility, tools.sessions.visibility: how far
// sessions_list, sessions_history, sessions_send and session_status reach.
const (
	VisibilitySelf  = "self"  // this session only
	VisibilityTree  = "tree"  // this session and the sub-agents it spawned
	VisibilityAgent = "agent" // every session of this agent
	VisibilityAll   = "all"   // every session (OpenClaw's default)
)

// maxTreeHops bounds the walk up a session's spawnedBy chain.
const maxTreeHops = 16

// reach is how far turn's session tools see: tools.sessions.visibility,
// and never past the turn's own tree when it does not act for the owner.
// A chat stranger (or any sender outside commands.ownerAllowFrom) shares
// the agent but not its owner's conversations: with the default "all"
// they could read the owner's transcripts with sessions_history and
// write into them with sessions_send.
func (t *sessionTools) reach(turn *Turn) string {
	v := t.svc.config().Tools.Sessions.Visibility
	if v == "" {
		v = VisibilityAll
	}
	if !turn.Owner && (v == VisibilityAll || v == VisibilityAgent) {
		v = VisibilityTree
	}
	if v != VisibilitySelf && t.sandboxedSpawnedOnly(turn) {
		v = visibilitySpawned
	}
	return v
}

// visibilitySpawned is a sandboxed session's reach under
// agents.*.sandbox.sessionToolsVisibility "spawned" (the default): its
// own session and the sub-agents it spawned, with no main-session
// exception, so a sandboxed turn cannot hand work to a session that runs
// on the host.
const visibilitySpawned = "spawned"

// sandboxedSpawnedOnly says whether turn's session is sandboxed
// (agents.*.sandbox.mode "all", or "non-main" outside the main session)
// with sessionToolsVisibility "spawned".
func (t *sessionTools) sandboxedSpawnedOnly(turn *Turn) bool {
	cfg := t.svc.config()
	d, e := cfg.Agents.Defaults.Sandbox, cfg.Agents.Entries[turn.AgentID].Sandbox
	pick := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	if pick(e.SessionToolsVisibility, d.SessionToolsVisibility) == "all" {
		return false
	}
	switch pick(e.Mode, d.Mode) {
	case "all":
		return true
	case "non-main":
		main := sessions.MainKey(turn.AgentID, cfg.Session.MainKey)
		return turn.SessionKey != "" && !strings.EqualFold(turn.SessionKey, main) && !(cfg.Session.Scope == "global" && turn.SessionKey == "global")
	}
	return false
}

// visible reports whether a session is within reach of turn. Under "tree"
// the owner's turn in the agent's main session sees all of the agent's
// sessions, as in OpenClaw; nobody else gets that exception.
//
// Another agent's sessions are within reach only under "all" and as far as
// tools.agentToAgent allows, except the sub-agents this session spawned,
// which stay in reach under "tree" and "all" even with agentToAgent off.
func (t *sessionTools) visible(ctx context.Context, turn *Turn, reach string, s *sessions.Session) bool {
	if s.Key == turn.SessionKey {
		return true
	}
	if s.AgentID != turn.AgentID {
		if reach == VisibilityTree || reach == VisibilityAll || reach == visibilitySpawned {
			if k, err := sessions.Parse(s.Key); err == nil && k.Kind == sessions.KindSubagent && t.descends(ctx, s, turn.SessionKey) {
				return true
			}
		}
		return reach == VisibilityAll && agentToAgentOf(t.svc.config()).allowed(turn.AgentID, s.AgentID)
	}
	switch reach {
	case VisibilityAll:
		return true
	case VisibilityAgent:
		return s.AgentID == turn.AgentID
	case VisibilityTree:
		if turn.Owner && s.AgentID == turn.AgentID && turn.SessionKey == sessions.MainKey(turn.AgentID, t.svc.config().Session.MainKey) {
			return true
		}
		return t.descends(ctx, s, turn.SessionKey)
	case visibilitySpawned:
		return t.descends(ctx, s, turn.SessionKey)
	}
	return false
}

// descends reports whether s was spawned by parent, directly or through
// sub-agents of it.
func (t *sessionTools) descends(ctx context.Context, s *sessions.Session, parent string) bool {
	for range maxTreeHops {
		switch s.SpawnedBy {
		case "":
			return false
		case parent:
			return true
		}
		up, err := t.svc.opts.Store.Get(ctx, s.SpawnedBy)
		if err != nil || up == nil {
			return false
		}
		s = up
	}
	return false
}

// errOutOfReach is what a caller learns about a session it may not see:
// the same as for one that does not exist.
func errOutOfReach(reach string) error {
	return fmt.Errorf("no such session within reach of this one (session tools see %q here; tools.sessions.visibility)", reach)
}

// resolveTarget finds a session within turn's reach by key, session id,
// label or agent (its main session).
func (t *sessionTools) resolveTarget(ctx context.Context, turn *Turn, key, id, label, agentID string) (*sessions.Session, error) {
	st := t.svc.opts.Store
	reach := t.reach(turn)
	check := func(s *sessions.Session, err error) (*sessions.Session, error) {
		if errors.Is(err, sessions.ErrNotFound) && reach != VisibilityAll {
			return nil, errOutOfReach(reach)
		}
		if err != nil {
			return nil, err
		}
		if !t.visible(ctx, turn, reach, s) {
			return nil, errOutOfReach(reach)
		}
		return s, nil
	}
	switch {
	case key != "":
		k, err := sessions.Parse(key)
		if err != nil {
			return nil, err
		}
		if k.ThreadID != "" {
			return nil, fmt.Errorf("thread sessions cannot be targeted: %s", key)
		}
		return check(st.Get(ctx, key))
	case id != "":
		return check(st.GetByID(ctx, id))
	case label != "":
		list, _, err := st.List(ctx, sessions.ListFilter{Label: label, AgentID: agentID})
		if err != nil {
			return nil, err
		}
		for i := range list {
			if t.visible(ctx, turn, reach, &list[i]) {
				return &list[i], nil
			}
		}
		return nil, fmt.Errorf("no session labelled %q within reach of this one", label)
	case agentID != "":
		if _, ok := resolveAgent(t.svc.config(), t.svc.opts.StateDir, agentID); !ok {
			return nil, fmt.Errorf("unknown agent %q", agentID)
		}
		id := strings.ToLower(agentID)
		key := sessions.MainKey(id, t.svc.config().Session.MainKey)
		// Checked before Ensure, so a refused call creates nothing.
		if !t.visible(ctx, turn, reach, &sessions.Session{Key: key, AgentID: id}) {
			return nil, errOutOfReach(reach)
		}
		s, _, err := st.Ensure(ctx, key, sessions.Init{AgentID: agentID})
		return s, err
	}
	return nil, fmt.Errorf("name a target: sessionKey, sessionId, label or agentId")
}

func (t *sessionTools) history(ctx context.Context, turn *Turn, raw json.RawMessage) (any, error) {
	var a struct {
		SessionKey   string `json:"sessionKey"`
		SessionID    string `json:"sessionId"`
		Limit        int    `json:"limit"`
		IncludeTools bool   `json:"includeTools"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	s, err := t.resolveTarget(ctx, turn, a.SessionKey, a.SessionID, "", "")
	if err != nil {
		return nil, err
	}
	if a.Limit <= 0 || a.Limit > 200 {
		a.Limit = 20
	}
	msgs, err := t.svc.opts.Store.History(ctx, s.SessionID, sessions.HistoryQuery{Limit: a.Limit})
	if err != nil {
		return nil, err
	}
	return map[string]any{"sessionKey": s.Key, "messages": plainMessages(msgs, a.IncludeTools)}, nil
}

func (t *sessionTools) send(ctx context.Context, turn *Turn, raw json.RawMessage) (any, error) {
	var a struct {
		SessionKey     string `json:"sessionKey"`
		Label          string `json:"label"`
		AgentID        string `json:"agentId"`
		Message        string `json:"message"`
		TimeoutSeconds *int   `json:"timeoutSeconds"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Message) == "" {
		return nil, fmt.Errorf("message is empty")
	}
	target, err := t.resolveTarget(ctx, turn, a.SessionKey, "", a.Label, a.AgentID)
	if err != nil {
		return nil, err
	}
	if target.Key == turn.SessionKey {
		return nil, fmt.Errorf("a session cannot send to itself")
	}
	// session.sendPolicy fences where session tools deliver: a model
	// (perhaps steered by what it read) cannot push words into a session
	// whose chat the owner closed to agent sends.
	if t.svc.SendPolicy(ctx, target.Key, "", "") == sessions.SendDeny {
		return map[string]any{"status": "forbidden", "error": errSendDenied + " (session.sendPolicy)", "sessionKey": target.Key}, nil
	}
	if n := t.countSend(turn.RunID, target.Key); n > maxPingPongTurns {
		return nil, fmt.Errorf("stopped: already exchanged %d messages with %s in this run", maxPingPongTurns, target.Key)
	}
	run, _, err := t.svc.Start(context.WithoutCancel(ctx), StartRequest{
		AgentID: target.AgentID, SessionKey: target.Key,
		Message: fmt.Sprintf("[Inter-session message from %s, isUser=false]\n%s", turn.SessionKey, a.Message),
		Owner:   turn.Owner, Nested: true,
	})
	if err != nil {
		return nil, err
	}
	wait := 60 * time.Second
	if a.TimeoutSeconds != nil {
		wait = time.Duration(*a.TimeoutSeconds) * time.Second
	}
	if wait == 0 {
		return map[string]any{"status": "accepted", "runId": run.ID, "sessionKey": target.Key}, nil
	}
	select {
	case <-run.Done():
	case <-time.After(wait):
		return map[string]any{"status": "timeout", "runId": run.ID, "sessionKey": target.Key}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	r := run.Result()
	switch {
	case r.Status != "ok":
		return map[string]any{"status": r.Status, "error": r.Error, "sessionKey": target.Key}, nil
	case strings.TrimSpace(r.Text) == ReplySkip || strings.TrimSpace(r.Text) == "":
		return map[string]any{"status": "no_reply", "sessionKey": target.Key}, nil
	}
	return map[string]any{"status": "ok", "reply": r.Text, "sessionKey": target.Key}, nil
}

func (t *sessionTools) countSend(runID, target string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pingPong == nil {
		t.pingPong = map[string]map[string]int{}
	}
	if t.pingPong[runID] == nil {
		t.pingPong[runID] = map[string]int{}
		time.AfterFunc(runRetention, func() {
			t.mu.Lock()
			delete(t.pingPong, runID)
			t.mu.Unlock()
		})
	}
	t.pingPong[runID][target]++
	return t.pingPong[runID][target]
}
