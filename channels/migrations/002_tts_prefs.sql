-- The gateway's own text-to-speech preferences, set by tts.enable,
-- tts.disable, tts.setProvider, tts.setPersona and the /tts commands.
-- One row; an empty value means "as the tts config says".
CREATE TABLE tts_prefs (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    auto       TEXT NOT NULL DEFAULT '',  -- '' | always | off
    provider   TEXT NOT NULL DEFAULT '',
    persona    TEXT NOT NULL DEFAULT '',
    max_length INTEGER NOT NULL DEFAULT 0, -- /tts limit; 0: the default cut
    updated_at INTEGER NOT NULL
);
