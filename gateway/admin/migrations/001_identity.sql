-- The gateway's own Ed25519 identity, created on first start.
CREATE TABLE gateway_identity (
	id          INTEGER PRIMARY KEY CHECK (id = 1),
	device_id   TEXT NOT NULL,
	public_key  TEXT NOT NULL,
	private_key TEXT NOT NULL,
	created_at  INTEGER NOT NULL
);
