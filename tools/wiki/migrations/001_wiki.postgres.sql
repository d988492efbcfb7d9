-- 001_wiki.sql for PostgreSQL: the pages carry a generated tsvector (the
-- title weighted above the body, as bm25's 4:1 does) with a GIN index in
-- place of the FTS5 table and its triggers.
CREATE TABLE wiki_pages (
	id         INTEGER PRIMARY KEY,
	agent_id   TEXT NOT NULL,
	slug       TEXT NOT NULL,
	title      TEXT NOT NULL,
	body       TEXT NOT NULL,
	archived   INTEGER NOT NULL DEFAULT 0,
	created_ms INTEGER NOT NULL,
	updated_ms INTEGER NOT NULL,
	search_tsv tsvector GENERATED ALWAYS AS (setweight(to_tsvector('simple', translate(lower(title), 'àáâãäåāăąèéêëēĕėęěìíîïĩīĭįòóôõöøōŏőùúûüũūŭůűųñńňçćčďđğģķĺļľłśşšţťýÿźżž', 'aaaaaaaaaeeeeeeeeeiiiiiiiioooooooooouuuuuuuuuunnncccddggklllsssttyyzzz')), 'A') || setweight(to_tsvector('simple', translate(lower(body), 'àáâãäåāăąèéêëēĕėęěìíîïĩīĭįòóôõöøōŏőùúûüũūŭůűųñńňçćčďđğģķĺļľłśşšţťýÿźżž', 'aaaaaaaaaeeeeeeeeeiiiiiiiioooooooooouuuuuuuuuunnncccddggklllsssttyyzzz')), 'D')) STORED,
	UNIQUE (agent_id, slug)
);
CREATE INDEX wiki_pages_tsv ON wiki_pages USING GIN (search_tsv);

CREATE TABLE wiki_sources (
	id       INTEGER PRIMARY KEY,
	agent_id TEXT NOT NULL,
	slug     TEXT NOT NULL,
	ref      TEXT NOT NULL,
	body     TEXT NOT NULL,
	added_ms INTEGER NOT NULL
);
CREATE INDEX wiki_sources_page ON wiki_sources (agent_id, slug);

CREATE TABLE wiki_links (
	agent_id  TEXT NOT NULL,
	from_slug TEXT NOT NULL,
	to_slug   TEXT NOT NULL,
	PRIMARY KEY (agent_id, from_slug, to_slug)
);
CREATE INDEX wiki_links_to ON wiki_links (agent_id, to_slug);

CREATE TABLE wiki_embeddings (
	agent_id TEXT NOT NULL,
	slug     TEXT NOT NULL,
	model    TEXT NOT NULL,
	hash     TEXT NOT NULL,
	vec      BLOB NOT NULL,
	PRIMARY KEY (agent_id, slug)
);
