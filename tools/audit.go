package tools

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// SQLAudit writes audit entries to the tool_audit table.
type SQLAudit struct {
	DB  *sql.DB
	Log *slog.Logger
	// MaxAge says how long an entry is kept; List never returns an older
	// one, even before Sweep has removed it (as OpenClaw's ledger queries
	// do). nil or a result of 0 keeps entries forever.
	MaxAge func() time.Duration
	Now    func() time.Time // default time.Now
}

// DefaultAuditMaxAge and DefaultAuditMaxRows are OpenClaw's audit ledger
// retention: 30 days, 100,000 rows.
const (
	DefaultAuditMaxAge  = 30 * 24 * time.Hour
	DefaultAuditMaxRows = 100_000
)

func (a *SQLAudit) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

func (a *SQLAudit) maxAge() time.Duration {
	if a.MaxAge == nil {
		return 0
	}
	return a.MaxAge()
}

// AuditRetention says which audit entries and decided approvals may go.
type AuditRetention struct {
	MaxAge  time.Duration // 0 keeps them
	MaxRows int           // audit entries past this go, oldest first; 0 is no cap
}

// Sweep deletes at most limit rows r lets go: audit entries older than
// MaxAge or past MaxRows, and approvals decided (or expired) longer than
// MaxAge ago; a pending approval is never touched. A caller that got
// limit back calls again until it gets less.
func (a *SQLAudit) Sweep(ctx context.Context, now time.Time, r AuditRetention, limit int) (int, error) {
	deleted := 0
	del := func(q string, args ...any) error {
		if deleted >= limit {
			return nil
		}
		res, err := a.DB.ExecContext(ctx, q, append(args, limit-deleted)...)
		if err != nil {
			return fmt.Errorf("sweep tool audit: %w", err)
		}
		n, _ := res.RowsAffected()
		deleted += int(n)
		return nil
	}
	if r.MaxAge > 0 {
		cutoff := now.Add(-r.MaxAge).UnixMilli()
		if err := del(`DELETE FROM tool_audit WHERE id IN (SELECT id FROM tool_audit WHERE at < ? ORDER BY id LIMIT ?)`, cutoff); err != nil {
			return deleted, err
		}
		if err := del(`DELETE FROM tool_approvals WHERE id IN (SELECT id FROM tool_approvals
			WHERE status != 'pending' AND MAX(created_at, decided_at) < ? ORDER BY created_at LIMIT ?)`, cutoff); err != nil {
			return deleted, err
		}
	}
	if r.MaxRows > 0 && deleted < limit {
		// The rows past the cap are those below the MaxRows-th newest id.
		var edge sql.NullInt64
		err := a.DB.QueryRowContext(ctx, `SELECT id FROM tool_audit ORDER BY id DESC LIMIT 1 OFFSET ?`, r.MaxRows).Scan(&edge)
		if err != nil && err != sql.ErrNoRows {
			return deleted, fmt.Errorf("sweep tool audit: %w", err)
		}
		if edge.Valid {
			if err := del(`DELETE FROM tool_audit WHERE id IN (SELECT id FROM tool_audit WHERE id <= ? ORDER BY id LIMIT ?)`, edge.Int64); err != nil {
				return deleted, err
			}
		}
	}
	return deleted, nil
}

var _ Auditor = (*SQLAudit)(nil)

// Audit records one entry; failures are logged, never returned.
func (a *SQLAudit) Audit(ctx context.Context, e AuditEntry) {
	env := ""
	if len(e.Env) > 0 {
		b, _ := json.Marshal(e.Env) // a map of strings always marshals
		env = string(b)
	}
	_, err := a.DB.ExecContext(ctx, `INSERT INTO tool_audit(at, agent_id, session_key, run_id, tool, args_digest, decision, rule, reason,
		approval_id, duration_ms, is_error, env) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		e.At.UnixMilli(), e.Who.AgentID, e.Who.SessionKey, e.Who.RunID, e.Tool, e.ArgsDigest, e.Decision, e.Rule, e.Reason,
		e.ApprovalID, e.Duration.Milliseconds(), e.IsError, env)
	if err != nil && a.Log != nil {
		a.Log.Error("write tool audit", "tool", e.Tool, "err", err)
	}
}

// AuditQuery selects audit entries, newest first. Zero fields match all.
type AuditQuery struct {
	AgentID    string
	SessionKey string
	RunID      string
	Tool       string
	// Outcome keeps entries with this outcome (see AuditRecord.Outcome).
	Outcome string
	After   time.Time // inclusive, as OpenClaw's "at/after"
	Before  time.Time // inclusive
	// BeforeID continues a listing: only entries older than this row.
	BeforeID int64
	Limit    int
}

// AuditRecord is a stored audit entry with its row id.
type AuditRecord struct {
	ID int64
	AuditEntry
}

// Outcomes of a guarded call, in OpenClaw's audit words.
const (
	OutcomeSucceeded = "succeeded" // ran without error
	OutcomeFailed    = "failed"    // ran and failed, or could not run
	OutcomeBlocked   = "blocked"   // refused by policy, a guard rule, a person or a hook
)

// Outcome says how the call ended.
func (r AuditRecord) Outcome() string {
	switch {
	case r.Decision == "denied" || r.Decision == "refused":
		return OutcomeBlocked
	case r.Decision == "error" || r.IsError:
		return OutcomeFailed
	}
	return OutcomeSucceeded
}

// List returns the entries q selects, newest first, at most q.Limit
// (default 100).
func (a *SQLAudit) List(ctx context.Context, q AuditQuery) ([]AuditRecord, error) {
	var where []string
	var args []any
	eq := func(col, v string) {
		if v != "" {
			where = append(where, col+" = ?")
			args = append(args, v)
		}
	}
	eq("agent_id", q.AgentID)
	eq("session_key", q.SessionKey)
	eq("run_id", q.RunID)
	eq("tool", q.Tool)
	switch q.Outcome {
	case "":
	case OutcomeBlocked:
		where = append(where, "decision IN ('denied', 'refused')")
	case OutcomeFailed:
		// is_error is stored as 0 or 1 (PostgreSQL has no integer truth).
		where = append(where, "decision NOT IN ('denied', 'refused') AND (decision = 'error' OR is_error <> 0)")
	case OutcomeSucceeded:
		where = append(where, "decision IN ('allowed', 'approved') AND is_error = 0")
	default:
		return nil, fmt.Errorf("unknown audit outcome %q", q.Outcome)
	}
	after := q.After
	if age := a.maxAge(); age > 0 {
		if cutoff := a.now().Add(-age); cutoff.After(after) {
			after = cutoff
		}
	}
	if !after.IsZero() {
		where = append(where, "at >= ?")
		args = append(args, after.UnixMilli())
	}
	if !q.Before.IsZero() {
		where = append(where, "at <= ?")
		args = append(args, q.Before.UnixMilli())
	}
	if q.BeforeID > 0 {
		where = append(where, "id < ?")
		args = append(args, q.BeforeID)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	query := `SELECT id, at, agent_id, session_key, run_id, tool, args_digest, decision, rule, reason, approval_id, duration_ms, is_error, env
		FROM tool_audit`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY id DESC LIMIT ?"
	args = append(args, limit)
	rows, err := a.DB.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list tool audit: %w", err)
	}
	defer rows.Close()
	var out []AuditRecord
	for rows.Next() {
		var r AuditRecord
		var at, durMs int64
		var env string
		if err := rows.Scan(&r.ID, &at, &r.Who.AgentID, &r.Who.SessionKey, &r.Who.RunID, &r.Tool, &r.ArgsDigest, &r.Decision,
			&r.Rule, &r.Reason, &r.ApprovalID, &durMs, &r.IsError, &env); err != nil {
			return nil, fmt.Errorf("list tool audit: %w", err)
		}
		if env != "" {
			if err := json.Unmarshal([]byte(env), &r.Env); err != nil {
				return nil, fmt.Errorf("list tool audit: row %d: env: %w", r.ID, err)
			}
		}
		r.At, r.Duration = time.UnixMilli(at), time.Duration(durMs)*time.Millisecond
		out = append(out, r)
	}
	return out, rows.Err()
}
