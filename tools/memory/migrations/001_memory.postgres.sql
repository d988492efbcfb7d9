-- 001_memory.sql for PostgreSQL: the chunks carry a generated tsvector
-- with a GIN index in place of the FTS5 table and its triggers.
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
	body_tsv   tsvector GENERATED ALWAYS AS (to_tsvector('simple', translate(lower(body), 'àáâãäåāăąèéêëēĕėęěìíîïĩīĭįòóôõöøōŏőùúûüũūŭůűųñńňçćčďđğģķĺļľłśşšţťýÿźżž', 'aaaaaaaaaeeeeeeeeeiiiiiiiioooooooooouuuuuuuuuunnncccddggklllsssttyyzzz'))) STORED,
	UNIQUE (agent_id, path, chunk)
);
CREATE INDEX memory_chunks_tsv ON memory_chunks USING GIN (body_tsv);
