-- Paired devices: a device is an Ed25519 key; roles and scopes are what an
-- operator approved for it.
CREATE TABLE devices (
	device_id     TEXT PRIMARY KEY,
	public_key    TEXT NOT NULL,
	display_name  TEXT NOT NULL DEFAULT '',
	platform      TEXT NOT NULL DEFAULT '',
	device_family TEXT NOT NULL DEFAULT '',
	client_id     TEXT NOT NULL DEFAULT '',
	client_mode   TEXT NOT NULL DEFAULT '',
	roles         TEXT NOT NULL DEFAULT '[]',
	scopes        TEXT NOT NULL DEFAULT '[]',
	remote_ip     TEXT NOT NULL DEFAULT '',
	created_at    INTEGER NOT NULL,
	approved_at   INTEGER NOT NULL,
	last_seen_at  INTEGER NOT NULL DEFAULT 0
);

-- Device tokens are stored as SHA-256 hashes; the plaintext is shown once.
CREATE TABLE device_tokens (
	device_id   TEXT NOT NULL REFERENCES devices(device_id) ON DELETE CASCADE,
	role        TEXT NOT NULL,
	token_hash  TEXT NOT NULL,
	scopes      TEXT NOT NULL DEFAULT '[]',
	issued_at   INTEGER NOT NULL,
	rotated_at  INTEGER NOT NULL DEFAULT 0,
	revoked_at  INTEGER NOT NULL DEFAULT 0,
	last_used_at INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (device_id, role)
);

-- Pending pairing requests, one per device and role.
CREATE TABLE device_pair_requests (
	request_id    TEXT PRIMARY KEY,
	device_id     TEXT NOT NULL,
	public_key    TEXT NOT NULL,
	display_name  TEXT NOT NULL DEFAULT '',
	platform      TEXT NOT NULL DEFAULT '',
	device_family TEXT NOT NULL DEFAULT '',
	client_id     TEXT NOT NULL DEFAULT '',
	client_mode   TEXT NOT NULL DEFAULT '',
	role          TEXT NOT NULL,
	scopes        TEXT NOT NULL DEFAULT '[]',
	remote_ip     TEXT NOT NULL DEFAULT '',
	reason        TEXT NOT NULL,
	created_at    INTEGER NOT NULL,
	updated_at    INTEGER NOT NULL,
	UNIQUE (device_id, role)
);

-- Audit of refused connects. Never holds a presented secret.
CREATE TABLE auth_failures (
	id        INTEGER PRIMARY KEY AUTOINCREMENT,
	at        INTEGER NOT NULL,
	remote_ip TEXT NOT NULL,
	origin    TEXT NOT NULL DEFAULT '',
	client_id TEXT NOT NULL DEFAULT '',
	role      TEXT NOT NULL DEFAULT '',
	device_id TEXT NOT NULL DEFAULT '',
	code      TEXT NOT NULL
);
CREATE INDEX auth_failures_at ON auth_failures(at);
