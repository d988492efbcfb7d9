package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

func (s *Service) registerSessions(srv *rpc.Server) {
	srv.HandleFunc("sessions.list", rpc.Typed(s.handleSessionsList))
	srv.HandleFunc("sessions.describe", rpc.Typed(s.handleSessionsDescribe))
	srv.HandleFunc("sessions.resolve", rpc.Typed(s.handleSessionsResolve))
	srv.Handle("sessions.create", rpc.Route{Scope: protocol.ScopeWrite, Handler: rpc.Typed(s.handleSessionsCreate)})
	srv.HandleFunc("sessions.patch", s.handleSessionsPatch)
	srv.HandleFunc("sessions.reset", rpc.Typed(s.handleSessionsReset))
	srv.HandleFunc("sessions.delete", s.handleSessionsDelete)
	srv.HandleFunc("sessions.preview", rpc.Typed(s.handleSessionsPreview))
	srv.HandleFunc("sessions.subscribe", func(ctx context.Context, req *rpc.Request) (any, error) {
		// Session events go to every reader already; subscribing is a no-op.
		return struct {
			Subscribed bool `json:"subscribed"`
		}{true}, nil
	})
}

// sessionRow renders a session in the SessionRow shape. defaultModel is
// the agent's model ("provider/model"), shown when the session has no
// override of its own.
func sessionRow(s *sessions.Session, defaultModel string) map[string]any {
	row := map[string]any{
		"key": s.Key, "sessionId": s.SessionID, "kind": rowKind(s), "agentId": s.AgentID,
		"updatedAt": s.UpdatedAt.UnixMilli(), "createdAt": s.CreatedAt.UnixMilli(),
		"inputTokens": s.InputTokens, "outputTokens": s.OutputTokens, "totalTokens": s.InputTokens + s.OutputTokens,
		"archived": s.Archived, "pinned": s.Pinned, "isMain": s.Kind == sessions.KindMain,
	}
	set := func(k, v string) {
		if v != "" {
			row[k] = v
		}
	}
	set("label", s.Label)
	set("displayName", s.DisplayName)
	set("thinkingLevel", s.Thinking)
	set("verboseLevel", s.Verbose)
	model, source := s.Model, "session"
	if model == "" {
		model, source = defaultModel, "agent"
	}
	if provider, id, ok := strings.Cut(model, "/"); ok {
		row["modelProvider"], row["model"], row["modelOverrideSource"] = provider, id, source
	}
	set("spawnedBy", s.SpawnedBy)
	set("parentSessionKey", s.SpawnedBy)
	set("previousSessionId", s.PreviousID)
	set("channel", s.Origin.Channel)
	set("accountId", s.Origin.AccountID)
	set("chatType", s.Origin.ChatType)
	if !s.LastMessageAt.IsZero() {
		row["lastInteractionAt"] = s.LastMessageAt.UnixMilli()
		row["lastActivityAt"] = s.LastMessageAt.UnixMilli()
	}
	if s.Depth > 0 {
		row["spawnDepth"] = s.Depth
	}
	return row
}

// rowKind is SessionRow.kind: direct for one-to-one conversations, group
// for rooms, global and unknown for the special keys.
func rowKind(s *sessions.Session) string {
	if k, err := sessions.Parse(s.Key); err == nil {
		return k.RowKind()
	}
	return "unknown"
}

type sessionsListParams struct {
	Limit          int    `json:"limit"`
	Offset         int    `json:"offset"`
	ActiveMinutes  int    `json:"activeMinutes"`
	AgentID        string `json:"agentId"`
	Search         string `json:"search"`
	Label          string `json:"label"`
	Archived       *bool  `json:"archived"`
	SpawnedBy      string `json:"spawnedBy"`
	IncludeGlobal  bool   `json:"includeGlobal"`
	IncludeUnknown bool   `json:"includeUnknown"`
}

// sessionsListResult is the sessions.list answer. Its rows stay maps:
// SessionRow has many keys that are there only when set.
type sessionsListResult struct {
	Ts           int64 `json:"ts"`
	Count        int   `json:"count"`
	TotalCount   int   `json:"totalCount"`
	LimitApplied bool  `json:"limitApplied"`
	HasMore      bool  `json:"hasMore"`
	// NextOffset is there only when there is more.
	NextOffset *int             `json:"nextOffset,omitempty"`
	Sessions   []any            `json:"sessions"`
	Defaults   sessionsDefaults `json:"defaults"`
}

type sessionsDefaults struct {
	AgentID string `json:"agentId"`
	MainKey string `json:"mainKey"`
}

func (s *Service) handleSessionsList(ctx context.Context, req *rpc.Request, p sessionsListParams) (*sessionsListResult, error) {
	if p.Limit < 0 || p.Offset < 0 {
		return nil, protocol.InvalidParams(req.Method, errors.New("limit and offset must not be negative"))
	}
	list, total, err := s.opts.Store.List(ctx, sessions.ListFilter{
		AgentID: p.AgentID, Limit: p.Limit, Offset: p.Offset, ActiveMinutes: p.ActiveMinutes, Search: p.Search,
		Label: p.Label, Archived: p.Archived, SpawnedBy: p.SpawnedBy, IncludeGlobal: p.IncludeGlobal, IncludeUnknown: p.IncludeUnknown,
	})
	if err != nil {
		return nil, err
	}
	cfg := s.config()
	rows := make([]any, 0, len(list))
	for i := range list {
		rows = append(rows, sessionRow(&list[i], s.defaultModel(list[i].AgentID)))
	}
	next := p.Offset + len(rows)
	out := &sessionsListResult{
		Ts: time.Now().UnixMilli(), Count: len(rows), TotalCount: total, LimitApplied: p.Limit > 0,
		HasMore: next < total, Sessions: rows,
		Defaults: sessionsDefaults{AgentID: cfg.DefaultAgentID(), MainKey: mainKeyOf(cfg.Session.MainKey)},
	}
	if next < total {
		out.NextOffset = &next
	}
	return out, nil
}

type keyParams struct {
	Key              string `json:"key"`
	AgentID          string `json:"agentId"`
	Reason           string `json:"reason"`
	DeleteTranscript *bool  `json:"deleteTranscript"`
	Label            string `json:"label"`
}

func (s *Service) session(ctx context.Context, method, key string) (*sessions.Session, error) {
	if key == "" {
		return nil, protocol.InvalidParams(method, errors.New("key is required"))
	}
	sess, err := s.opts.Store.Get(ctx, key)
	if errors.Is(err, sessions.ErrNotFound) {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "no session %q", key)
	}
	return sess, err
}

// describeResult is the sessions.describe answer.
type describeResult struct {
	Session map[string]any `json:"session"`
}

// patchResult is the sessions.patch answer: the row as it is now.
type patchResult struct {
	OK      bool           `json:"ok"`
	Key     string         `json:"key"`
	Session map[string]any `json:"session"`
}

func (s *Service) handleSessionsDescribe(ctx context.Context, req *rpc.Request, p keyParams) (*describeResult, error) {
	sess, err := s.session(ctx, req.Method, p.Key)
	if err != nil {
		return nil, err
	}
	return &describeResult{Session: sessionRow(sess, s.defaultModel(sess.AgentID))}, nil
}

type sessionsResolveParams struct {
	Key          string `json:"key"`
	SessionID    string `json:"sessionId"`
	Label        string `json:"label"`
	AgentID      string `json:"agentId"`
	AllowMissing bool   `json:"allowMissing"`
}

// resolved is a sessions.resolve answer that found the session (or, with
// allowMissing, the agent its key names).
type resolved struct {
	OK      bool   `json:"ok"`
	Key     string `json:"key"`
	AgentID string `json:"agentId"`
}

// unresolved is a sessions.resolve answer that found none.
type unresolved struct {
	OK         bool  `json:"ok"`
	Candidates []any `json:"candidates"`
}

func (s *Service) handleSessionsResolve(ctx context.Context, req *rpc.Request, p sessionsResolveParams) (any, error) {
	var sess *sessions.Session
	var err error
	switch {
	case p.Key != "":
		sess, err = s.opts.Store.Get(ctx, p.Key)
		if errors.Is(err, sessions.ErrNotFound) && p.AllowMissing {
			k, perr := sessions.Parse(p.Key)
			if perr != nil {
				return nil, protocol.InvalidParams(req.Method, perr)
			}
			return &resolved{OK: true, Key: p.Key, AgentID: k.AgentID}, nil
		}
	case p.SessionID != "":
		sess, err = s.opts.Store.GetByID(ctx, p.SessionID)
	case p.Label != "":
		var list []sessions.Session
		list, _, err = s.opts.Store.List(ctx, sessions.ListFilter{Label: p.Label, AgentID: p.AgentID, Limit: 2})
		if err == nil && len(list) == 1 {
			sess = &list[0]
		} else if err == nil {
			err = sessions.ErrNotFound
		}
	default:
		return nil, protocol.InvalidParams(req.Method, errors.New("one of key, sessionId or label is required"))
	}
	if errors.Is(err, sessions.ErrNotFound) {
		return &unresolved{OK: false, Candidates: []any{}}, nil
	}
	if err != nil {
		return nil, err
	}
	return &resolved{OK: true, Key: sess.Key, AgentID: sess.AgentID}, nil
}

// createResult is the sessions.create answer.
type createResult struct {
	OK        bool           `json:"ok"`
	Key       string         `json:"key"`
	SessionID string         `json:"sessionId"`
	Created   bool           `json:"created"`
	Session   map[string]any `json:"session"`
}

func (s *Service) handleSessionsCreate(ctx context.Context, req *rpc.Request, p keyParams) (*createResult, error) {
	cfg := s.config()
	agent, ok := resolveAgent(cfg, s.opts.StateDir, p.AgentID)
	if !ok {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "unknown agent %q", p.AgentID)
	}
	key := p.Key
	if key == "" {
		key = sessions.MainKey(agent.ID, cfg.Session.MainKey)
	}
	sess, created, err := s.opts.Store.Ensure(ctx, key, sessions.Init{AgentID: agent.ID, Label: p.Label})
	if err != nil {
		return nil, invalid(req.Method, err)
	}
	if created {
		s.sessionsChanged(sess.Key, "create", sess)
	}
	return &createResult{OK: true, Key: sess.Key, SessionID: sess.SessionID, Created: created, Session: sessionRow(sess, s.defaultModel(sess.AgentID))}, nil
}

// handleSessionsPatch needs write; the catalog marks the method dynamic,
// so the route does not check.
func (s *Service) handleSessionsPatch(ctx context.Context, req *rpc.Request) (any, error) {
	if !req.Conn.Has(protocol.ScopeWrite) {
		return nil, protocol.MissingScope(protocol.ScopeWrite)
	}
	var p struct {
		Key        string  `json:"key"`
		Label      *string `json:"label"`
		Model      *string `json:"model"`
		Thinking   *string `json:"thinkingLevel"`
		Verbose    *string `json:"verboseLevel"`
		SendPolicy *string `json:"sendPolicy"`
		Archived   *bool   `json:"archived"`
		Pinned     *bool   `json:"pinned"`
	}
	if err := req.Decode(&p); err != nil {
		return nil, err
	}
	if err := checkPatchFields(req.Params); err != nil {
		return nil, protocol.InvalidParams(req.Method, err)
	}
	cur, err := s.session(ctx, req.Method, p.Key)
	if err != nil {
		return nil, err
	}
	if p.Model != nil && *p.Model != "" {
		ref, err := s.chooseModel(cur.AgentID, *p.Model)
		if err != nil {
			return nil, protocol.InvalidParams(req.Method, err)
		}
		p.Model = &ref
	}
	sess, err := s.opts.Store.Patch(ctx, p.Key, sessions.Patch{Label: p.Label, Model: p.Model, Thinking: p.Thinking, Verbose: p.Verbose, SendPolicy: p.SendPolicy, Archived: p.Archived, Pinned: p.Pinned})
	if err != nil {
		if errors.Is(err, sessions.ErrInvalid) || errors.Is(err, sessions.ErrLabelInUse) {
			return nil, protocol.InvalidParams(req.Method, err)
		}
		return nil, err
	}
	s.sessionsChanged(sess.Key, "patch", sess)
	return &patchResult{OK: true, Key: sess.Key, Session: sessionRow(sess, s.defaultModel(sess.AgentID))}, nil
}

// resetResult is the sessions.reset answer: the new transcript's id and
// the one it replaced.
type resetResult struct {
	OK                bool   `json:"ok"`
	Key               string `json:"key"`
	SessionID         string `json:"sessionId"`
	PreviousSessionID string `json:"previousSessionId"`
}

func (s *Service) handleSessionsReset(ctx context.Context, req *rpc.Request, p keyParams) (*resetResult, error) {
	if _, err := s.session(ctx, req.Method, p.Key); err != nil {
		return nil, err
	}
	s.Abort(p.Key, "")
	reason := p.Reason
	if reason == "" {
		reason = "reset"
	}
	sess, err := s.opts.Store.Reset(ctx, p.Key, reason)
	if err != nil {
		return nil, err
	}
	s.sessionsChanged(sess.Key, "reset", sess)
	return &resetResult{OK: true, Key: sess.Key, SessionID: sess.SessionID, PreviousSessionID: sess.PreviousID}, nil
}

// deleteResult is the sessions.delete answer.
type deleteResult struct {
	OK      bool   `json:"ok"`
	Key     string `json:"key"`
	Deleted bool   `json:"deleted"`
}

// handleSessionsDelete needs admin, as in OpenClaw (its write-scoped
// archivedOnly form is not offered here); the catalog marks the method
// dynamic, so the route does not check.
func (s *Service) handleSessionsDelete(ctx context.Context, req *rpc.Request) (any, error) {
	if !req.Conn.Has(protocol.ScopeAdmin) {
		return nil, protocol.MissingScope(protocol.ScopeAdmin)
	}
	var p keyParams
	if err := req.Decode(&p); err != nil {
		return nil, err
	}
	if p.Key == "" {
		return nil, protocol.InvalidParams(req.Method, errors.New("key is required"))
	}
	s.Abort(p.Key, "")
	deleteTranscript := p.DeleteTranscript != nil && *p.DeleteTranscript
	deleted, err := s.opts.Store.Delete(ctx, p.Key, deleteTranscript)
	if err != nil {
		return nil, err
	}
	if deleted {
		s.sessionsChanged(p.Key, "delete", nil)
	}
	return &deleteResult{OK: true, Key: p.Key, Deleted: deleted}, nil
}

type sessionsPreviewParams struct {
	Keys     []string `json:"keys"`
	Limit    int      `json:"limit"`
	MaxChars int      `json:"maxChars"`
}

// previewResult is the sessions.preview answer.
type previewResult struct {
	Ts       int64     `json:"ts"`
	Previews []preview `json:"previews"`
}

// preview is one session's last messages; status is ok or missing.
type preview struct {
	Key    string        `json:"key"`
	Status string        `json:"status"`
	Items  []previewItem `json:"items"`
}

type previewItem struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

func (s *Service) handleSessionsPreview(ctx context.Context, req *rpc.Request, p sessionsPreviewParams) (*previewResult, error) {
	if p.Limit <= 0 {
		p.Limit = 5
	}
	if p.MaxChars <= 0 {
		p.MaxChars = 240
	}
	previews := []preview{}
	for _, key := range p.Keys {
		sess, err := s.opts.Store.Get(ctx, key)
		if err != nil {
			previews = append(previews, preview{Key: key, Status: "missing", Items: []previewItem{}})
			continue
		}
		msgs, err := s.opts.Store.History(ctx, sess.SessionID, sessions.HistoryQuery{Limit: p.Limit})
		if err != nil {
			return nil, err
		}
		items := []previewItem{}
		for _, m := range msgs {
			text := m.Text
			if len(text) > p.MaxChars {
				text = text[:p.MaxChars] + "…"
			}
			items = append(items, previewItem{Role: m.Role, Text: text})
		}
		previews = append(previews, preview{Key: key, Status: "ok", Items: items})
	}
	return &previewResult{Ts: time.Now().UnixMilli(), Previews: previews}, nil
}

// sessionsChanged tells clients that a session was created, changed or
// deleted (OpenClaw's sessions.changed): its key, why, and its row unless
// it is gone.
func (s *Service) sessionsChanged(key, reason string, sess *sessions.Session) {
	if s.opts.Emit == nil {
		return
	}
	p := map[string]any{"sessionKey": key, "reason": reason, "ts": time.Now().UnixMilli()}
	if sess != nil {
		p["session"] = sessionRow(sess, s.defaultModel(sess.AgentID))
	}
	s.opts.Emit.Broadcast("sessions.changed", p)
}

// chooseModel resolves a model a user picks for a session (an alias or
// "provider/model") and refuses one outside the allowlist, as OpenClaw
// does for /model and sessions.patch.
func (s *Service) chooseModel(agentID, raw string) (string, error) {
	cfg := s.config()
	ref := cfg.ResolveModel(raw)
	if _, _, err := providers.ParseModelRef(ref); err != nil {
		return "", fmt.Errorf("model %q is neither provider/model nor an alias in agents.defaults.models: %w", raw, err)
	}
	if err := cfg.ModelAllowed(agentID, ref); err != nil {
		return "", err
	}
	return ref, nil
}

// defaultModel is an agent's primary model, or "".
func (s *Service) defaultModel(agentID string) string {
	a, ok := resolveAgent(s.config(), s.opts.StateDir, agentID)
	if !ok || len(a.Models) == 0 {
		return ""
	}
	return a.Models[0]
}

// patchStored are the sessions.patch fields this gateway keeps; agentId
// only selects the session, as in OpenClaw.
var patchStored = []string{"key", "agentId", "label", "model", "thinkingLevel", "verboseLevel", "sendPolicy", "archived", "pinned"}

// patchNotKept are fields of OpenClaw's sessions.patch this gateway does
// not keep (yet). Answering "ok" to them would tell the TUI its
// /reasoning or /elevated took effect when nothing changed.
var patchNotKept = []string{
	"attention", "boardFace", "category", "color", "completionOwnerSessionKey", "contextWindow",
	"elevatedLevel", "execAsk", "execHost", "execNode", "execSecurity", "expectedLifecycleRevision",
	"expectedMarkedUnreadAt", "expectedPermissionMode", "expectedSessionId", "expectedToolOverrides", "fastMode",
	"groupActivation", "icon", "inheritedToolAllow", "inheritedToolDeny", "inheritedToolPolicyVersion",
	"permissionMode", "reasoningLevel", "responseUsage", "statusNote", "toolOverrides", "traceLevel",
	"ttlMinutes", "unread",
}

// checkPatchFields refuses a sessions.patch naming a field OpenClaw's
// schema does not have (its additionalProperties is false) or one this
// gateway would silently drop, naming the field and what is kept.
func checkPatchFields(params json.RawMessage) error {
	var fields map[string]json.RawMessage
	if len(params) == 0 || json.Unmarshal(params, &fields) != nil {
		return nil // Decode already reported a malformed object
	}
	var notKept, unknown []string
	for name, v := range fields {
		switch {
		case slices.Contains(patchStored, name):
		case string(v) == "null" && slices.Contains(patchNotKept, name):
			// Clearing a setting this gateway never holds changes nothing and is true.
		case slices.Contains(patchNotKept, name):
			notKept = append(notKept, name)
		default:
			unknown = append(unknown, name)
		}
	}
	slices.Sort(notKept)
	slices.Sort(unknown)
	switch {
	case len(unknown) > 0:
		return fmt.Errorf("unknown field %s", strings.Join(unknown, ", "))
	case len(notKept) > 0:
		return fmt.Errorf("this gateway does not keep %s (it keeps label, model, thinkingLevel, verboseLevel, sendPolicy, archived and pinned)", strings.Join(notKept, ", "))
	}
	return nil
}
