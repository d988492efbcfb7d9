-- The environment variables a call set for a command it ran (exec's env),
-- as a JSON object with the values of secret-looking names redacted; ''
-- when it set none. An added variable decides what an allowlisted program
-- does as much as its arguments, so the audit keeps it in the clear.
ALTER TABLE tool_audit ADD COLUMN env TEXT NOT NULL DEFAULT '';
