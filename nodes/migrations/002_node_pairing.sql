-- The second pairing layer: the command surface an operator approved for
-- each node, and the pending requests for a wider one (node.pair.*).
ALTER TABLE nodes ADD COLUMN approved_caps TEXT NOT NULL DEFAULT '[]';
ALTER TABLE nodes ADD COLUMN approved_permissions TEXT NOT NULL DEFAULT '[]'; -- names granted true
ALTER TABLE nodes ADD COLUMN approved_at INTEGER NOT NULL DEFAULT 0;        -- 0: never approved

-- Nodes remembered before this layer keep what they could invoke.
UPDATE nodes SET approved_caps = caps, approved_at = first_seen_at;

-- One pending request per node; it expires PendingTTL after updated_at
-- (the node's last retry).
CREATE TABLE node_pair_requests (
	request_id       TEXT PRIMARY KEY,
	node_id          TEXT NOT NULL UNIQUE,
	display_name     TEXT NOT NULL DEFAULT '',
	platform         TEXT NOT NULL DEFAULT '',
	version          TEXT NOT NULL DEFAULT '',
	device_family    TEXT NOT NULL DEFAULT '',
	model_identifier TEXT NOT NULL DEFAULT '',
	remote_ip        TEXT NOT NULL DEFAULT '',
	caps             TEXT NOT NULL DEFAULT '[]',
	commands         TEXT NOT NULL DEFAULT '[]',
	permissions      TEXT NOT NULL DEFAULT '{}',
	is_repair        INTEGER NOT NULL DEFAULT 0,
	created_at       INTEGER NOT NULL,
	updated_at       INTEGER NOT NULL
);
