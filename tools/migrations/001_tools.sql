-- Approval requests for guarded tool calls. A request is persisted before
-- anyone is asked, and its outcome stays for the audit.
CREATE TABLE tool_approvals (
	id          TEXT PRIMARY KEY,
	created_at  INTEGER NOT NULL,
	expires_at  INTEGER NOT NULL,
	tool        TEXT NOT NULL,
	args        TEXT NOT NULL,
	agent_id    TEXT NOT NULL DEFAULT '',
	session_key TEXT NOT NULL DEFAULT '',
	run_id      TEXT NOT NULL DEFAULT '',
	reason      TEXT NOT NULL DEFAULT '',
	status      TEXT NOT NULL DEFAULT 'pending', -- pending | approved | denied | expired
	decision    TEXT NOT NULL DEFAULT '',
	decided_at  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tool_approvals_status ON tool_approvals(status, created_at);

-- One row per guarded call. Arguments are kept only as a digest.
CREATE TABLE tool_audit (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	at          INTEGER NOT NULL,
	agent_id    TEXT NOT NULL DEFAULT '',
	session_key TEXT NOT NULL DEFAULT '',
	run_id      TEXT NOT NULL DEFAULT '',
	tool        TEXT NOT NULL,
	args_digest TEXT NOT NULL,
	decision    TEXT NOT NULL,
	rule        INTEGER NOT NULL DEFAULT -1,
	reason      TEXT NOT NULL DEFAULT '',
	approval_id TEXT NOT NULL DEFAULT '',
	duration_ms INTEGER NOT NULL DEFAULT 0,
	is_error    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tool_audit_at ON tool_audit(at);
