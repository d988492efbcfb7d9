package tools

import (
	"context"
	"database/sql"
	"log/slog"
)

// SQLAudit writes audit entries to the tool_audit table.
type SQLAudit struct {
	DB  *sql.DB
	Log *slog.Logger
}

var _ Auditor = (*SQLAudit)(nil)

// Audit records one entry; failures are logged, never returned.
func (a *SQLAudit) Audit(ctx context.Context, e AuditEntry) {
	_, err := a.DB.ExecContext(ctx, `INSERT INTO tool_audit(at, agent_id, session_key, run_id, tool, args_digest, decision, rule, reason,
		approval_id, duration_ms, is_error) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
		e.At.UnixMilli(), e.Who.AgentID, e.Who.SessionKey, e.Who.RunID, e.Tool, e.ArgsDigest, e.Decision, e.Rule, e.Reason,
		e.ApprovalID, e.Duration.Milliseconds(), e.IsError)
	if err != nil && a.Log != nil {
		a.Log.Error("write tool audit", "tool", e.Tool, "err", err)
	}
}
