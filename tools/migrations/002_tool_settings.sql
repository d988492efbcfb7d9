-- Operator overrides of a tool's enabled state and disclosure tier.
-- NULL means "as the tool declares".
CREATE TABLE tool_settings (
	name       TEXT PRIMARY KEY,
	enabled    INTEGER,
	tier       TEXT,
	updated_at INTEGER NOT NULL
);
