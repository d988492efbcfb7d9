package tools

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/gateway/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the tools component's tables.
func Migrations() store.Migrations {
	return store.FromDir("tools", migrationFiles, "migrations")
}

// Approval events, as OpenClaw's clients know them.
const (
	EventApprovalRequested = "exec.approval.requested"
	EventApprovalResolved  = "exec.approval.resolved"
	// The plugin approval events carry the same request in the shape
	// OpenClaw's terminal UI and apps present with Allow/Deny (title,
	// description, allowed decisions, session): OpenClaw raises a
	// before-tool-call approval, which a Tool Guard rule is, as one.
	EventPluginApprovalRequested = "plugin.approval.requested"
	EventPluginApprovalResolved  = "plugin.approval.resolved"
)

// Decisions is every decision a request accepts, in the order clients
// offer them.
var Decisions = []string{DecisionAllowOnce, DecisionAllowAlways, DecisionDeny}

// Approval decisions a person may give.
const (
	DecisionAllowOnce   = "allow-once"
	DecisionAllowAlways = "allow-always"
	DecisionDeny        = "deny"
)

// Approvals persists approval requests, announces them and wakes the
// waiting call when someone decides. Safe for concurrent use.
type Approvals struct {
	db      *sql.DB
	notify  ApprovalNotifier
	log     *slog.Logger
	timeout atomic.Int64 // time.Duration; SetTimeout changes it on reload

	mu      sync.Mutex
	waiters map[string]chan string
	watches map[string]*watch // Wait's callers, woken when a request settles
}

// watch is closed when its request settles; n counts the Wait calls on
// it, so the last one to give up removes it.
type watch struct {
	done chan struct{}
	n    int
}

var _ Approver = (*Approvals)(nil)

// NewApprovals makes the approval store; requests not decided within
// timeout are denied. Requests left pending by an earlier process are
// marked expired: nothing waits for them any more.
func NewApprovals(ctx context.Context, db *sql.DB, notify ApprovalNotifier, log *slog.Logger, timeout time.Duration) (*Approvals, error) {
	if _, err := db.ExecContext(ctx, `UPDATE tool_approvals SET status='expired', decided_at=? WHERE status='pending'`, time.Now().UnixMilli()); err != nil {
		return nil, fmt.Errorf("expire stale approvals: %w", err)
	}
	a := &Approvals{db: db, notify: notify, log: log, waiters: map[string]chan string{}, watches: map[string]*watch{}}
	a.SetTimeout(timeout)
	return a, nil
}

// SetTimeout changes how long later requests wait for a decision (a
// config reload of tools.guard.approvalTimeoutSeconds); requests already
// waiting keep the expiry they were announced with. Zero or less is the
// default, 10 minutes.
func (a *Approvals) SetTimeout(timeout time.Duration) {
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	a.timeout.Store(int64(timeout))
}

// Pending is one request waiting for a person.
type Pending struct {
	ID         string `json:"id"`
	Tool       string `json:"tool"`
	Args       string `json:"args"`
	AgentID    string `json:"agentId,omitempty"`
	SessionKey string `json:"sessionKey,omitempty"`
	RunID      string `json:"runId,omitempty"`
	Reason     string `json:"reason,omitempty"`
	CreatedAt  int64  `json:"createdAtMs"`
	ExpiresAt  int64  `json:"expiresAtMs"`
	// EnvKeys names the environment variables the call sets for its
	// command (OpenClaw's envKeys); Args shows their values, secret-looking
	// ones redacted.
	EnvKeys []string `json:"envKeys,omitempty"`
}

// Approve persists the request, announces it and waits for a decision,
// the timeout (deny) or ctx (deny).
func (a *Approvals) Approve(ctx context.Context, req ApprovalRequest) (bool, string, error) {
	id := uuid.NewString()
	now := time.Now()
	timeout := time.Duration(a.timeout.Load())
	// What is stored and shown is for people: an env's secrets are
	// redacted, its names listed. The call itself keeps its arguments.
	args, envKeys := approvalArgs(req.Args)
	p := Pending{ID: id, Tool: req.Tool, Args: string(args), AgentID: req.Who.AgentID, SessionKey: req.Who.SessionKey,
		RunID: req.Who.RunID, Reason: req.Reason, CreatedAt: now.UnixMilli(), ExpiresAt: now.Add(timeout).UnixMilli(), EnvKeys: envKeys}
	ch := make(chan string, 1)
	a.mu.Lock()
	a.waiters[id] = ch
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.waiters, id)
		a.mu.Unlock()
	}()
	_, err := a.db.ExecContext(ctx, `INSERT INTO tool_approvals(id, created_at, expires_at, tool, args, agent_id, session_key, run_id, reason)
		VALUES (?,?,?,?,?,?,?,?,?)`, p.ID, p.CreatedAt, p.ExpiresAt, p.Tool, p.Args, p.AgentID, p.SessionKey, p.RunID, p.Reason)
	if err != nil {
		return false, id, fmt.Errorf("save approval request: %w", err)
	}
	host, nodeID := approvalHost(req.Args)
	a.notify.NotifyApproval(ApprovalEvent{Request: p, Host: host, NodeID: nodeID})
	t := time.NewTimer(timeout)
	defer t.Stop()
	var decision string
	select {
	case decision = <-ch:
	case <-t.C:
		a.settle(id, "expired", "")
		return false, id, nil
	case <-ctx.Done():
		a.settle(id, "expired", "")
		return false, id, nil
	}
	return decision == DecisionAllowOnce || decision == DecisionAllowAlways, id, nil
}

// ErrUnknownApproval is returned for an id that is not pending.
var ErrUnknownApproval = errors.New("no pending approval with that id")

// Resolve records a person's decision and wakes the waiting call.
func (a *Approvals) Resolve(ctx context.Context, id, decision string) error {
	switch decision {
	case DecisionAllowOnce, DecisionAllowAlways, DecisionDeny:
	default:
		return fmt.Errorf("decision %q is not allow-once, allow-always or deny", decision)
	}
	status := "approved"
	if decision == DecisionDeny {
		status = "denied"
	}
	if !a.settle(id, status, decision) {
		return ErrUnknownApproval
	}
	a.mu.Lock()
	ch := a.waiters[id]
	a.mu.Unlock()
	if ch != nil {
		ch <- decision
	}
	return nil
}

// settle moves a pending request to its end state once.
func (a *Approvals) settle(id, status, decision string) bool {
	res, err := a.db.Exec(`UPDATE tool_approvals SET status=?, decision=?, decided_at=? WHERE id=? AND status='pending'`,
		status, decision, time.Now().UnixMilli(), id)
	if err != nil {
		a.log.Error("settle approval", "id", id, "err", err)
		return false
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false
	}
	a.mu.Lock()
	if w := a.watches[id]; w != nil {
		close(w.done)
		delete(a.watches, id)
	}
	a.mu.Unlock()
	a.notify.NotifyApproval(ApprovalEvent{Request: Pending{ID: id}, Settled: &ApprovalSettlement{Status: status, Decision: decision, At: time.Now()}})
	return true
}

// List returns the pending requests, oldest first.
func (a *Approvals) List(ctx context.Context) ([]Pending, error) {
	rows, err := a.db.QueryContext(ctx, `SELECT id, tool, args, agent_id, session_key, run_id, reason, created_at, expires_at
		FROM tool_approvals WHERE status='pending' ORDER BY created_at`)
	if err != nil {
		return nil, fmt.Errorf("list approvals: %w", err)
	}
	defer rows.Close()
	out := []Pending{}
	for rows.Next() {
		var p Pending
		if err := rows.Scan(&p.ID, &p.Tool, &p.Args, &p.AgentID, &p.SessionKey, &p.RunID, &p.Reason, &p.CreatedAt, &p.ExpiresAt); err != nil {
			return nil, err
		}
		_, p.EnvKeys = approvalArgs(json.RawMessage(p.Args))
		out = append(out, p)
	}
	return out, rows.Err()
}

// Match finds the pending request a person named by its id or by a
// prefix of it (the short id a notice shows), as /approve accepts.
func (a *Approvals) Match(ctx context.Context, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", ErrUnknownApproval
	}
	list, err := a.List(ctx)
	if err != nil {
		return "", err
	}
	var found []string
	for _, p := range list {
		if p.ID == ref {
			return p.ID, nil
		}
		if strings.HasPrefix(p.ID, ref) {
			found = append(found, p.ID)
		}
	}
	switch len(found) {
	case 0:
		return "", ErrUnknownApproval
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%w: %q names %d pending requests; give more of the id", ErrAmbiguousApproval, ref, len(found))
}

// ErrAmbiguousApproval is returned for a short id that names several
// pending requests.
var ErrAmbiguousApproval = errors.New("ambiguous approval id")

// ShortID is the part of an approval id a notice shows and /approve
// accepts.
func ShortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// Notice is the request as a person reads it in a conversation: what
// wants to run, why it waits, its id and how to answer.
func (p Pending) Notice() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Approval required (id %s, full %s): %s wants to run.\n", ShortID(p.ID), p.ID, p.Tool)
	if p.Reason != "" {
		fmt.Fprintf(&b, "Why: %s\n", p.Reason)
	}
	fmt.Fprintf(&b, "Arguments: %s\n", clipText(p.Args, noticeArgsMax))
	fmt.Fprintf(&b, "Reply with: /approve %s %s", ShortID(p.ID), strings.Join(Decisions, "|"))
	return b.String()
}

// noticeArgsMax bounds the arguments a notice quotes; the Approvals view
// and exec.approval.list show them whole.
const noticeArgsMax = 600

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Status reports how a request ended ("" while pending) and its decision.
func (a *Approvals) Status(ctx context.Context, id string) (status, decision string, err error) {
	err = a.db.QueryRowContext(ctx, `SELECT status, decision FROM tool_approvals WHERE id=?`, id).Scan(&status, &decision)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", ErrUnknownApproval
	}
	return status, decision, err
}

// Wait reports a request's status and decision once it is no longer
// pending, or as it stands when ctx ends (status "pending"). It wakes on
// the decision itself rather than polling the store.
func (a *Approvals) Wait(ctx context.Context, id string) (status, decision string, err error) {
	// Watch before reading: a decision that lands between the read and
	// the wait still closes the channel this call holds.
	a.mu.Lock()
	w := a.watches[id]
	if w == nil {
		w = &watch{done: make(chan struct{})}
		a.watches[id] = w
	}
	w.n++
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		if w.n--; w.n == 0 && a.watches[id] == w {
			delete(a.watches, id)
		}
		a.mu.Unlock()
	}()
	// The reads are quick and outlive ctx, so a wait that timed out
	// still says how the request stands.
	read := context.WithoutCancel(ctx)
	status, decision, err = a.Status(read, id)
	if err != nil || status != statusPending {
		return status, decision, err
	}
	select {
	case <-w.done:
		return a.Status(read, id)
	case <-ctx.Done():
		return status, decision, nil
	}
}

// statusPending is a request's status while nobody has decided.
const statusPending = "pending"

// approvalHost is where the call would run: "node" and the node's id for
// exec host=node (its args say so), else "gateway".
func approvalHost(args json.RawMessage) (host, nodeID string) {
	var a struct {
		Host string `json:"host"`
		Node string `json:"node"`
	}
	if json.Unmarshal(args, &a) == nil && a.Host == "node" {
		return "node", a.Node
	}
	return "gateway", ""
}
