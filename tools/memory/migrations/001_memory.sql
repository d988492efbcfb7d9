-- The memory search index: one row per indexed Markdown file of an
-- agent's workspace (its size and mtime decide whether it is re-read),
-- its chunks, and an external-content FTS5 table over the chunks.
CREATE TABLE memory_files (
	agent_id TEXT NOT NULL,
	path     TEXT NOT NULL,
	size     INTEGER NOT NULL,
	mtime_ns INTEGER NOT NULL,
	PRIMARY KEY (agent_id, path)
);

CREATE TABLE memory_chunks (
	id         INTEGER PRIMARY KEY,
	agent_id   TEXT NOT NULL,
	path       TEXT NOT NULL,
	chunk      INTEGER NOT NULL,
	start_line INTEGER NOT NULL,
	end_line   INTEGER NOT NULL,
	body       TEXT NOT NULL,
	UNIQUE (agent_id, path, chunk)
);

CREATE VIRTUAL TABLE memory_fts USING fts5(
	body,
	content = 'memory_chunks',
	content_rowid = 'id',
	tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER memory_chunks_ai AFTER INSERT ON memory_chunks BEGIN
	INSERT INTO memory_fts(rowid, body) VALUES (new.id, new.body);
END;

CREATE TRIGGER memory_chunks_ad AFTER DELETE ON memory_chunks BEGIN
	INSERT INTO memory_fts(memory_fts, rowid, body) VALUES ('delete', old.id, old.body);
END;

CREATE TRIGGER memory_chunks_au AFTER UPDATE ON memory_chunks BEGIN
	INSERT INTO memory_fts(memory_fts, rowid, body) VALUES ('delete', old.id, old.body);
	INSERT INTO memory_fts(rowid, body) VALUES (new.id, new.body);
END;
