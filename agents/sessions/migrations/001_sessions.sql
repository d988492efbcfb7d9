-- One row per session key. session_id names the current transcript; a reset
-- gives the key a new session_id and moves the old one to retired_sessions,
-- so no transcript is ever lost by a reset. Times are unix milliseconds.
CREATE TABLE sessions (
	key                 TEXT PRIMARY KEY,
	session_id          TEXT NOT NULL UNIQUE,
	agent_id            TEXT NOT NULL,
	kind                TEXT NOT NULL,
	label               TEXT NOT NULL DEFAULT '',
	display_name        TEXT NOT NULL DEFAULT '',
	model_override      TEXT NOT NULL DEFAULT '',
	thinking_level      TEXT NOT NULL DEFAULT '',
	send_policy         TEXT NOT NULL DEFAULT '',
	group_activation    TEXT NOT NULL DEFAULT '',
	archived_at         INTEGER NOT NULL DEFAULT 0,
	pinned_at           INTEGER NOT NULL DEFAULT 0,
	spawned_by          TEXT NOT NULL DEFAULT '',
	depth               INTEGER NOT NULL DEFAULT 0,
	origin              TEXT NOT NULL DEFAULT '{}',
	created_at          INTEGER NOT NULL,
	started_at          INTEGER NOT NULL,
	updated_at          INTEGER NOT NULL,
	last_message_at     INTEGER NOT NULL DEFAULT 0,
	last_reset_at       INTEGER NOT NULL DEFAULT 0,
	previous_session_id TEXT NOT NULL DEFAULT '',
	input_tokens        INTEGER NOT NULL DEFAULT 0,
	output_tokens       INTEGER NOT NULL DEFAULT 0,
	message_count       INTEGER NOT NULL DEFAULT 0,
	compaction_count    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sessions_updated ON sessions(updated_at DESC);
CREATE INDEX sessions_agent_updated ON sessions(agent_id, updated_at DESC);
CREATE INDEX sessions_spawned_by ON sessions(spawned_by) WHERE spawned_by <> '';
-- Labels name one session of an agent.
CREATE UNIQUE INDEX sessions_agent_label ON sessions(agent_id, label) WHERE label <> '';

-- Session ids a key used before (reset) or that outlived their key (delete
-- without deleteTranscript). Their transcripts stay readable by id.
CREATE TABLE retired_sessions (
	session_id TEXT PRIMARY KEY,
	key        TEXT NOT NULL,
	agent_id   TEXT NOT NULL,
	started_at INTEGER NOT NULL,
	retired_at INTEGER NOT NULL,
	reason     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX retired_sessions_key ON retired_sessions(key, retired_at DESC);

-- Transcripts, one row per message. seq counts from 1 within a session id
-- with no gaps. content is the JSON of Message; summary_through is set on
-- compaction summaries (the last seq the summary covers).
CREATE TABLE transcript_messages (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id      TEXT NOT NULL,
	seq             INTEGER NOT NULL,
	role            TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool', 'system')),
	content         TEXT NOT NULL,
	summary_through INTEGER,
	created_at      INTEGER NOT NULL,
	UNIQUE (session_id, seq)
);
CREATE INDEX transcript_summaries ON transcript_messages(session_id, seq) WHERE summary_through IS NOT NULL;
