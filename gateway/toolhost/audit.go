package toolhost

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/tools"
)

// auditListParams are audit.list's params in OpenClaw's shape.
type auditListParams struct {
	AgentID    string `json:"agentId"`
	SessionKey string `json:"sessionKey"`
	RunID      string `json:"runId"`
	Kind       string `json:"kind"`
	Status     string `json:"status"`
	After      int64  `json:"after"`
	Before     int64  `json:"before"`
	Limit      int    `json:"limit"`
	Cursor     string `json:"cursor"`
}

// auditList is audit.list's answer: the events, newest first, and the
// cursor of the next page when this one is full.
type auditList struct {
	Events     []any  `json:"events"`
	NextCursor string `json:"nextCursor,omitempty"`
}

// auditStatuses are OpenClaw's audit statuses, each true when the tool
// audit can hold calls with it: it records finished calls only, so
// started, cancelled, timed_out and unknown select nothing.
var auditStatuses = map[string]bool{
	tools.OutcomeSucceeded: true, tools.OutcomeFailed: true, tools.OutcomeBlocked: true,
	"started": false, "cancelled": false, "timed_out": false, "unknown": false,
}

// handleAuditList answers audit.list from the tool audit: one
// tool_action event per guarded call, metadata only (arguments are kept
// as a digest and not shown), except for the environment an exec call
// set, in our "env" field. Newest first; nextCursor continues.
func (h *Host) handleAuditList(ctx context.Context, req *rpc.Request, p auditListParams) (auditList, error) {
	bad := func(msg string) error { return protocol.InvalidParams(req.Method, errors.New(msg)) }
	held, knownStatus := auditStatuses[p.Status]
	switch {
	case p.Kind != "" && p.Kind != "agent_run" && p.Kind != "tool_action":
		return auditList{}, bad("kind must be agent_run or tool_action")
	case p.Status != "" && !knownStatus:
		return auditList{}, bad("unknown status " + strconv.Quote(p.Status))
	case p.Limit < 0 || p.Limit > 500:
		return auditList{}, bad("limit must be between 1 and 500")
	case p.After < 0 || p.Before < 0:
		return auditList{}, bad("after and before are epoch milliseconds")
	}
	q := tools.AuditQuery{AgentID: p.AgentID, SessionKey: p.SessionKey, RunID: p.RunID, Limit: p.Limit}
	if q.Limit == 0 {
		q.Limit = 100
	}
	if p.Cursor != "" {
		id, err := strconv.ParseInt(p.Cursor, 10, 64)
		if err != nil || id <= 0 {
			return auditList{}, bad("cursor is not one this gateway gave")
		}
		q.BeforeID = id
	}
	if p.After > 0 {
		q.After = time.UnixMilli(p.After)
	}
	if p.Before > 0 {
		q.Before = time.UnixMilli(p.Before)
	}
	events := []any{}
	if p.Kind == "agent_run" || (p.Status != "" && !held) {
		return auditList{Events: events}, nil
	}
	q.Outcome = p.Status
	recs, err := h.audit.List(ctx, q)
	if err != nil {
		return auditList{}, err
	}
	defaultAgent := h.cfg().DefaultAgentID()
	for _, r := range recs {
		events = append(events, auditEvent(r, defaultAgent))
	}
	out := auditList{Events: events}
	if len(recs) == q.Limit {
		out.NextCursor = strconv.FormatInt(recs[len(recs)-1].ID, 10)
	}
	return out, nil
}

// auditEvent renders one tool audit record as an OpenClaw audit event.
// Calls made outside an agent's run (tools.invoke by an operator) are
// the system's, under the default agent.
func auditEvent(r tools.AuditRecord, defaultAgent string) map[string]any {
	id := "tool-" + strconv.FormatInt(r.ID, 10)
	actor := map[string]any{"type": "agent", "id": r.Who.AgentID}
	agentID := r.Who.AgentID
	if agentID == "" {
		actor = map[string]any{"type": "system", "id": "gateway"}
		agentID = defaultAgent
	}
	runID := r.Who.RunID
	if runID == "" {
		runID = id
	}
	ev := map[string]any{
		"eventId": id, "sequence": r.ID, "sourceSequence": r.ID, "occurredAt": r.At.UnixMilli(),
		"kind": "tool_action", "action": "tool.action.finished", "status": r.Outcome(),
		"actor": actor, "agentId": agentID, "runId": runID, "toolName": r.Tool, "redaction": "metadata_only",
	}
	switch r.Outcome() {
	case tools.OutcomeBlocked:
		ev["errorCode"] = "tool_blocked"
	case tools.OutcomeFailed:
		ev["errorCode"] = "tool_failed"
	}
	if r.Who.SessionKey != "" {
		ev["sessionKey"] = r.Who.SessionKey
	}
	if len(r.Env) > 0 {
		// Ours: the variables an exec call set for its command, secret-looking
		// values redacted. OpenClaw's ledger keeps no arguments, but an
		// environment override decides what an allowlisted program runs
		// (GHSA-j425-whc4-4jgc), so the audit shows it.
		ev["env"] = r.Env
	}
	return ev
}
