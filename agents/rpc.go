package agents

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// Register adds the agent, chat and sessions methods to the bus.
func (s *Service) Register(srv *rpc.Server) {
	srv.Handle("agent", rpc.Route{Scope: protocol.ScopeDynamic, Handler: rpc.Typed(s.handleAgent)})
	srv.HandleFunc("agent.wait", rpc.Typed(s.handleAgentWait))
	srv.HandleFunc("chat.send", rpc.Typed(s.handleChatSend))
	srv.HandleFunc("chat.history", rpc.Typed(s.handleChatHistory))
	srv.HandleFunc("chat.abort", rpc.Typed(s.handleChatAbort))
	srv.HandleFunc("agents.list", s.handleAgentsList)
	srv.HandleFunc("agent.identity.get", rpc.Typed(s.handleIdentity))
	srv.HandleFunc("models.list", s.handleModelsList)
	s.registerSessions(srv)
	s.registerCompact(srv)
}

// invalid maps this package's input errors to INVALID_REQUEST.
func invalid(method string, err error) error {
	if errors.Is(err, ErrUnknownAgent) || errors.Is(err, ErrEmptyMessage) || errors.Is(err, sessions.ErrInvalidKey) {
		return protocol.Errorf(protocol.CodeInvalidRequest, "%s: %v", method, err)
	}
	return err
}

type agentParams struct {
	Message           string `json:"message"`
	AgentID           string `json:"agentId"`
	SessionKey        string `json:"sessionKey"`
	Timeout           int    `json:"timeout"` // seconds
	IdempotencyKey    string `json:"idempotencyKey"`
	ExtraSystemPrompt string `json:"extraSystemPrompt"`
	Label             string `json:"label"`

	// Model overrides the agent's model chain for this run, as a user
	// picks one for a session: an alias or provider/model the allowlist
	// admits.
	Model    string `json:"model"`
	Provider string `json:"provider"`

	// Deliver sends the reply to a chat: ReplyChannel/ReplyTo/
	// ReplyAccountID name it, else Channel/To/AccountID; with none of
	// them, the agent's last chat.
	Deliver        bool   `json:"deliver"`
	Channel        string `json:"channel"`
	To             string `json:"to"`
	AccountID      string `json:"accountId"`
	ThreadID       string `json:"threadId"`
	ReplyChannel   string `json:"replyChannel"`
	ReplyTo        string `json:"replyTo"`
	ReplyAccountID string `json:"replyAccountId"`
}

// ReplyRequest is one run's reply to send to a chat for `agent
// --deliver`. Channel "" or "last" with no To means the agent's last chat.
type ReplyRequest struct {
	AgentID, SessionKey              string
	Channel, To, AccountID, ThreadID string
	Text, IdempotencyKey             string
	// Allowed is session.sendPolicy for the run's session. The deliverer
	// asks it once it knows the chat (a remembered chat's channel and
	// type), and returns ErrSendDenied when it says no.
	Allowed func(ctx context.Context, channel, chatType string) bool
}

// ReplyDeliverer sends a run's reply to a chat for `agent --deliver`.
type ReplyDeliverer interface {
	DeliverReply(ctx context.Context, r ReplyRequest) error
}

// ErrSendDenied is a delivery session.sendPolicy stopped.
var ErrSendDenied = errors.New(errSendDenied + " (session.sendPolicy)")

// UseDelivery gives the service the channels' sender, for agent runs
// asked to deliver their reply.
func (s *Service) UseDelivery(d ReplyDeliverer) { s.delivery = d }

// deliveryStatus is the agent result's deliveryStatus, in OpenClaw's
// shape: status sent, suppressed or failed.
type deliveryStatus struct {
	Requested   bool   `json:"requested"`
	Attempted   bool   `json:"attempted"`
	Status      string `json:"status"`
	Succeeded   bool   `json:"succeeded"`
	ResultCount int    `json:"resultCount"`
	Reason      string `json:"reason,omitempty"`
	Error       string `json:"error,omitempty"`
}

// silentReply is the answer by which a model says "send nothing".
const silentReply = "NO_REPLY"

// deliverReply sends an ended run's reply where p asks.
func (s *Service) deliverReply(ctx context.Context, run *Run, p agentParams) *deliveryStatus {
	st := &deliveryStatus{Requested: true, Status: "suppressed"}
	r := run.Result()
	text := strings.TrimSpace(r.Text)
	switch {
	// Reasons are OpenClaw's lowercase snake-case words.
	case r.Status != "ok":
		st.Reason = "run_" + strings.ReplaceAll(strings.ToLower(r.Status), " ", "_")
		return st
	case text == "":
		st.Reason = "no_visible_result"
		return st
	case text == silentReply:
		st.Reason = "no_visible_payload"
		return st
	}
	st.Attempted, st.Status = true, "failed"
	if s.delivery == nil {
		st.Error = "no channels are running"
		return st
	}
	channel, to, account := cmp.Or(p.ReplyChannel, p.Channel), cmp.Or(p.ReplyTo, p.To), cmp.Or(p.ReplyAccountID, p.AccountID)
	err := s.delivery.DeliverReply(ctx, ReplyRequest{
		AgentID: run.AgentID, SessionKey: run.SessionKey, Channel: channel, To: to, AccountID: account,
		ThreadID: p.ThreadID, Text: text, IdempotencyKey: "agent:" + run.ID,
		// The operator's run speaks for its session: a chat that session
		// may not send to stays closed to --deliver too, as it is to the
		// agent's own replies and its message tool.
		Allowed: func(ctx context.Context, channel, chatType string) bool {
			return s.SendPolicy(ctx, run.SessionKey, channel, chatType) != sessions.SendDeny
		},
	})
	switch {
	case errors.Is(err, ErrSendDenied):
		st.Attempted, st.Status, st.Reason = false, "suppressed", "send_policy_denied"
		return st
	case err != nil:
		st.Error = err.Error()
		return st
	}
	st.Status, st.Succeeded, st.ResultCount = "sent", true, 1
	return st
}

// handleAgent runs a turn and answers twice: {status:"accepted"} at once,
// then the outcome. Asking for /new or /reset needs admin.
func (s *Service) handleAgent(ctx context.Context, req *rpc.Request, p agentParams) (any, error) {
	if p.IdempotencyKey == "" {
		return nil, protocol.InvalidParams(req.Method, errors.New("idempotencyKey is required"))
	}
	need := protocol.ScopeWrite
	if _, _, ok := sessions.IsResetTrigger(p.Message, s.config().Session.ResetTriggers); ok {
		need = protocol.ScopeAdmin
	}
	if !req.Conn.Has(need) {
		return nil, protocol.MissingScope(need)
	}
	var models []string
	if m := strings.TrimSpace(p.Model); m != "" {
		if p.Provider != "" && !strings.Contains(m, "/") {
			m = p.Provider + "/" + m
		}
		agentID := p.AgentID
		if agentID == "" {
			agentID = s.config().DefaultAgentID()
		}
		ref, err := s.chooseModel(agentID, m)
		if err != nil {
			return nil, protocol.InvalidParams(req.Method, err)
		}
		models = []string{ref}
	}
	run, _, err := s.Start(ctx, StartRequest{
		AgentID: p.AgentID, SessionKey: p.SessionKey, Message: p.Message, RunID: p.IdempotencyKey,
		Timeout: time.Duration(p.Timeout) * time.Second, ExtraSystemPrompt: p.ExtraSystemPrompt, Label: p.Label,
		Owner: req.Conn.Has(protocol.ScopeAdmin), Resumable: true, Commands: operatorSender(req), Models: models,
	})
	if err != nil {
		return nil, invalid(req.Method, err)
	}
	req.Accept(agentAccepted{RunID: run.ID, SessionKey: run.SessionKey, AgentID: run.AgentID, Status: "accepted", AcceptedAt: run.AcceptedAt.UnixMilli()})
	select {
	case <-run.Done():
	case <-ctx.Done():
		// The client went away; the run goes on and agent.wait finds it.
		return nil, ctx.Err()
	}
	out := agentOutcome(run)
	if p.Deliver {
		st := s.deliverReply(ctx, run, p)
		if res, ok := out["result"].(map[string]any); ok {
			res["deliveryStatus"] = st
		}
		if st.Status == "failed" {
			s.log.Warn("agent reply not delivered", "runId", run.ID, "err", st.Error)
		}
	}
	return out, nil
}

// agentAccepted is the agent method's first answer.
type agentAccepted struct {
	RunID      string `json:"runId"`
	SessionKey string `json:"sessionKey"`
	AgentID    string `json:"agentId"`
	Status     string `json:"status"`
	AcceptedAt int64  `json:"acceptedAt"`
}

// agentOutcome is the final answer of the agent method.
func agentOutcome(run *Run) map[string]any {
	r := run.Result()
	out := map[string]any{"runId": run.ID, "status": r.Status}
	meta := map[string]any{
		"durationMs": r.EndedAt.Sub(r.StartedAt).Milliseconds(),
		"agentMeta": map[string]any{
			"provider": r.Provider, "model": r.Model, "sessionKey": run.SessionKey, "sessionId": run.SessionID,
			"usage": map[string]any{"input": r.Usage.InputTokens, "output": r.Usage.OutputTokens, "total": r.Usage.Total()},
		},
	}
	switch r.Status {
	case "ok":
		out["summary"] = "completed"
		out["result"] = map[string]any{"payloads": []any{map[string]any{"text": r.Text, "mediaUrl": nil}}, "meta": meta}
	default:
		out["summary"] = r.Error
		out["error"] = map[string]any{"message": r.Error, "kind": r.ErrorKind}
		out["result"] = map[string]any{"payloads": []any{}, "meta": meta}
	}
	return out
}

type agentWaitParams struct {
	RunID     string `json:"runId"`
	TimeoutMs *int64 `json:"timeoutMs"`
}

// waitResult is the agent.wait answer. A run that timed out has no times;
// an ended run's times are never the Unix epoch, so omitempty drops
// only the unset ones.
type waitResult struct {
	RunID     string `json:"runId"`
	Status    string `json:"status"`
	StartedAt int64  `json:"startedAt,omitempty"`
	EndedAt   int64  `json:"endedAt,omitempty"`
	Error     string `json:"error,omitempty"`
}

func (s *Service) handleAgentWait(ctx context.Context, req *rpc.Request, p agentWaitParams) (*waitResult, error) {
	run, ok := s.Lookup(p.RunID)
	if !ok {
		return nil, protocol.Errorf(protocol.CodeAgentResultNotFound, "no run %q (runs are kept %s after they end)", p.RunID, runRetention)
	}
	wait := 30 * time.Second
	if p.TimeoutMs != nil {
		wait = time.Duration(*p.TimeoutMs) * time.Millisecond
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-run.Done():
	case <-t.C:
		return &waitResult{RunID: run.ID, Status: "timeout"}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	r := run.Result()
	return &waitResult{RunID: run.ID, Status: r.Status, StartedAt: r.StartedAt.UnixMilli(), EndedAt: r.EndedAt.UnixMilli(), Error: r.Error}, nil
}

type chatSendParams struct {
	SessionKey     string `json:"sessionKey"`
	Message        string `json:"message"`
	AgentID        string `json:"agentId"`
	IdempotencyKey string `json:"idempotencyKey"`
	TimeoutMs      int64  `json:"timeoutMs"`
}

// handleChatSend accepts a chat message; the answer streams as chat
// events with the returned runId.
// runStatus is the chat.send answer: started, in_flight or ok.
type runStatus struct {
	RunID  string `json:"runId"`
	Status string `json:"status"`
}

func (s *Service) handleChatSend(ctx context.Context, req *rpc.Request, p chatSendParams) (*runStatus, error) {
	if p.SessionKey == "" || p.IdempotencyKey == "" {
		return nil, protocol.InvalidParams(req.Method, errors.New("sessionKey and idempotencyKey are required"))
	}
	agentID, err := s.agentOfKey(p.SessionKey, p.AgentID)
	if err != nil {
		return nil, invalid(req.Method, err)
	}
	if s.SendPolicy(ctx, p.SessionKey, "", "") == sessions.SendDeny {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "%s", errSendDenied)
	}
	run, dup, err := s.Start(ctx, StartRequest{AgentID: agentID, SessionKey: p.SessionKey, Message: p.Message, RunID: p.IdempotencyKey,
		Timeout: time.Duration(p.TimeoutMs) * time.Millisecond, Owner: req.Conn.Has(protocol.ScopeAdmin), Resumable: true,
		Commands: operatorSender(req)})
	if err != nil {
		return nil, invalid(req.Method, err)
	}
	status := "started"
	if dup {
		status = "in_flight"
		select {
		case <-run.Done():
			status = "ok"
		default:
		}
	}
	return &runStatus{RunID: run.ID, Status: status}, nil
}

// operatorSender is a gateway client as the sender of a command: its
// client id, and approval rights only with operator.approvals (or admin).
func operatorSender(req *rpc.Request) *CommandSender {
	c := req.Conn.Client()
	id := "operator"
	if c.ID != "" {
		id = "operator:" + c.ID
	}
	return &CommandSender{ID: id, Operator: true, CanApprove: req.Conn.Has(protocol.ScopeApprovals)}
}

// agentOfKey finds the agent a session key belongs to.
func (s *Service) agentOfKey(key, agentID string) (string, error) {
	k, err := sessions.Parse(key)
	if err != nil {
		return "", err
	}
	if k.AgentID != "" {
		if agentID != "" && !strings.EqualFold(agentID, k.AgentID) {
			return "", fmt.Errorf("%w: session %s belongs to agent %s, not %s", ErrUnknownAgent, key, k.AgentID, agentID)
		}
		return k.AgentID, nil
	}
	return agentID, nil
}

type chatHistoryParams struct {
	SessionKey string `json:"sessionKey"`
	SessionID  string `json:"sessionId"`
	Limit      int    `json:"limit"`
}

// historyResult is the chat.history answer; a session with no messages
// yet has no sessionId.
type historyResult struct {
	SessionKey    string `json:"sessionKey"`
	SessionID     string `json:"sessionId,omitempty"`
	Messages      []any  `json:"messages"`
	PendingInputs []any  `json:"pendingInputs"`
}

func (s *Service) handleChatHistory(ctx context.Context, req *rpc.Request, p chatHistoryParams) (*historyResult, error) {
	if p.Limit < 0 || p.Limit > 1000 {
		return nil, protocol.InvalidParams(req.Method, errors.New("limit must be between 1 and 1000"))
	}
	if p.Limit == 0 {
		p.Limit = 200
	}
	out := &historyResult{SessionKey: p.SessionKey, Messages: []any{}, PendingInputs: []any{}}
	sess, err := s.opts.Store.Get(ctx, p.SessionKey)
	if errors.Is(err, sessions.ErrNotFound) {
		return out, nil // a session with no messages yet
	}
	if err != nil {
		return nil, err
	}
	id := sess.SessionID
	if p.SessionID != "" {
		id = p.SessionID
	}
	msgs, err := s.opts.Store.History(ctx, id, sessions.HistoryQuery{Limit: p.Limit})
	if err != nil {
		return nil, err
	}
	out.SessionID, out.Messages = id, historyMessages(msgs)
	return out, nil
}

// historyMessages renders transcript entries in OpenClaw's message shape.
func historyMessages(msgs []sessions.Message) []any {
	out := make([]any, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case "tool":
			out = append(out, map[string]any{
				"role": "toolResult", "toolCallId": m.ToolCallID, "toolName": m.ToolName, "isError": m.IsError,
				"content": []any{map[string]any{"type": "text", "text": m.Text}}, "timestamp": m.Ts.UnixMilli(),
			})
		default:
			content := []any{}
			if m.Text != "" || len(m.ToolCalls) == 0 {
				content = append(content, map[string]any{"type": "text", "text": m.Text})
			}
			for _, c := range m.ToolCalls {
				content = append(content, map[string]any{"type": "toolCall", "id": c.ID, "name": c.Name, "arguments": c.Arguments})
			}
			msg := map[string]any{"role": m.Role, "content": content, "timestamp": m.Ts.UnixMilli()}
			if m.Role == "assistant" {
				msg["provider"], msg["model"], msg["stopReason"] = m.Provider, m.Model, m.StopReason
				msg["usage"] = map[string]any{"input": m.Usage.Input, "output": m.Usage.Output}
			}
			out = append(out, msg)
		}
	}
	return out
}

type chatAbortParams struct {
	SessionKey string `json:"sessionKey"`
	RunID      string `json:"runId"`
}

// abortResult is the chat.abort answer.
type abortResult struct {
	OK      bool `json:"ok"`
	Aborted bool `json:"aborted"`
}

func (s *Service) handleChatAbort(ctx context.Context, req *rpc.Request, p chatAbortParams) (*abortResult, error) {
	if p.SessionKey == "" {
		return nil, protocol.InvalidParams(req.Method, errors.New("sessionKey is required"))
	}
	return &abortResult{OK: true, Aborted: s.Abort(p.SessionKey, p.RunID)}, nil
}

// agentsListResult is the agents.list answer.
type agentsListResult struct {
	DefaultID         string `json:"defaultId"`
	MainKey           string `json:"mainKey"`
	Scope             string `json:"scope"`
	Ownership         string `json:"ownership"` // sole or explicit
	SelectionRequired bool   `json:"selectionRequired"`
	// Agents is null, not [], when none is configured, as it always was.
	Agents []agentRow `json:"agents"`
}

// agentRow is one configured agent; identity and model only when set.
type agentRow struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Kind      string         `json:"kind"`
	Workspace string         `json:"workspace"`
	Identity  *agentIdentity `json:"identity,omitempty"`
	Model     *agentModel    `json:"model,omitempty"`
}

// agentIdentity is the identity configured for an agent, its empty
// fields left out.
type agentIdentity struct {
	Name   string `json:"name,omitempty"`
	Emoji  string `json:"emoji,omitempty"`
	Avatar string `json:"avatar,omitempty"`
	Theme  string `json:"theme,omitempty"`
}

type agentModel struct {
	Primary   string   `json:"primary"`
	Fallbacks []string `json:"fallbacks"`
}

func (s *Service) handleAgentsList(ctx context.Context, req *rpc.Request) (any, error) {
	cfg := s.config()
	ownership := "sole"
	if cfg.Agents.Ownership == "explicit" {
		ownership = "explicit"
	}
	out := &agentsListResult{
		DefaultID: cfg.DefaultAgentID(), MainKey: mainKeyOf(cfg.Session.MainKey), Scope: cfg.Session.Scope,
		Ownership: ownership, SelectionRequired: false,
	}
	for _, id := range cfg.AgentIDs() {
		a, _ := resolveAgent(cfg, s.opts.StateDir, id)
		row := agentRow{ID: a.ID, Name: a.Name, Kind: "agent", Workspace: a.Workspace}
		if a.Identity != (config.AgentIdentity{}) {
			row.Identity = &agentIdentity{Name: a.Identity.Name, Emoji: a.Identity.Emoji, Avatar: a.Identity.Avatar, Theme: a.Identity.Theme}
		}
		if len(a.Models) > 0 {
			row.Model = &agentModel{Primary: a.Models[0], Fallbacks: a.Models[1:]}
		}
		out.Agents = append(out.Agents, row)
	}
	return out, nil
}

func mainKeyOf(k string) string {
	if k == "" {
		return "main"
	}
	return k
}

type identityParams struct {
	AgentID string `json:"agentId"`
}

func (s *Service) handleIdentity(ctx context.Context, req *rpc.Request, p identityParams) (*identityResult, error) {
	return s.handleIdentityFor(p.AgentID)
}

// identityResult is the agent.identity.get answer; emoji and avatar only
// when the agent has them.
type identityResult struct {
	AgentID    string `json:"agentId"`
	Name       string `json:"name"`
	NameSource string `json:"nameSource"`
	Emoji      string `json:"emoji,omitempty"`
	Avatar     string `json:"avatar,omitempty"`
}

// handleIdentityFor is agent.identity.get's answer for one agent.
func (s *Service) handleIdentityFor(agentID string) (*identityResult, error) {
	a, ok := resolveAgent(s.config(), s.opts.StateDir, agentID)
	if !ok {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "unknown agent %q", agentID)
	}
	name, source := a.displayName()
	return &identityResult{AgentID: a.ID, Name: name, NameSource: source, Emoji: a.emoji(), Avatar: a.avatar()}, nil
}

func (s *Service) handleModelsList(ctx context.Context, req *rpc.Request) (any, error) {
	cfg := s.config()
	models := []any{}
	// A non-empty agents.defaults.models is the allowlist, so only its
	// models are offered, as OpenClaw's pickers do.
	allow := cfg.ModelAllowlist()
	for name, pc := range cfg.Models.Providers {
		for _, m := range pc.Models {
			ref := name + "/" + m.ID
			if len(allow) > 0 && cfg.ModelAllowed("", ref) != nil {
				continue
			}
			row := map[string]any{"id": m.ID, "name": m.ID, "provider": name, "available": true, "supportsTools": true}
			if a := cfg.Agents.Defaults.Models[ref].Alias; a != "" {
				row["alias"] = a
			}
			if m.Reasoning {
				row["reasoning"] = true
			}
			if len(m.Input) > 0 {
				row["input"] = m.Input
			}
			if m.Name != "" {
				row["name"] = m.Name
			}
			if m.ContextWindow > 0 {
				row["contextWindow"] = m.ContextWindow
			}
			if pc.APIKey.Value == "" && !isLocalURL(pc.BaseURL) {
				row["available"], row["unavailableReason"] = false, "missing-auth"
			}
			models = append(models, row)
		}
	}
	return map[string]any{"models": models}, nil
}

func isLocalURL(u string) bool {
	return strings.Contains(u, "://127.") || strings.Contains(u, "://localhost") || strings.Contains(u, "://[::1]")
}
