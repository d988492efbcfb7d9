-- Nodes the gateway has seen: what each declared on its last connect, the
-- name an operator gave it and the command surface it was allowed.
CREATE TABLE nodes (
	node_id           TEXT PRIMARY KEY,
	declared_name     TEXT NOT NULL DEFAULT '',
	custom_name       TEXT NOT NULL DEFAULT '', -- node.rename; wins over declared_name
	platform          TEXT NOT NULL DEFAULT '',
	version           TEXT NOT NULL DEFAULT '',
	client_id         TEXT NOT NULL DEFAULT '',
	client_mode       TEXT NOT NULL DEFAULT '',
	device_family     TEXT NOT NULL DEFAULT '',
	model_identifier  TEXT NOT NULL DEFAULT '',
	remote_ip         TEXT NOT NULL DEFAULT '',
	has_device        INTEGER NOT NULL DEFAULT 0,
	caps              TEXT NOT NULL DEFAULT '[]',
	commands          TEXT NOT NULL DEFAULT '[]', -- declared
	approved_commands TEXT NOT NULL DEFAULT '[]', -- invocable under the policy at the last connect
	path_env          TEXT NOT NULL DEFAULT '',
	first_seen_at     INTEGER NOT NULL,
	connected_at      INTEGER NOT NULL DEFAULT 0,
	last_seen_at      INTEGER NOT NULL DEFAULT 0,
	last_seen_reason  TEXT NOT NULL DEFAULT ''
);
