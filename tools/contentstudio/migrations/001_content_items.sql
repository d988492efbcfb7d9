-- The content calendar of the Content Studio tools: what an agent has
-- packaged or published, keyed by a fingerprint of its topic so the
-- same topic is not made twice within a window.
CREATE TABLE content_items (
	id           TEXT PRIMARY KEY,
	agent_id     TEXT NOT NULL,
	platform     TEXT NOT NULL,
	topic        TEXT NOT NULL,
	fingerprint  TEXT NOT NULL,
	title        TEXT NOT NULL DEFAULT '',
	status       TEXT NOT NULL DEFAULT 'draft',
	ref          TEXT NOT NULL DEFAULT '',
	created_at   INTEGER NOT NULL,
	published_at INTEGER
);
CREATE INDEX content_items_agent_time ON content_items (agent_id, created_at);
