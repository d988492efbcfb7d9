-- The session's /verbose setting (on, full, off; '' = the default, off),
-- as OpenClaw keeps verboseLevel per session.
ALTER TABLE sessions ADD COLUMN verbose_level TEXT NOT NULL DEFAULT '';
