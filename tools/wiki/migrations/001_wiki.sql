-- The LLM wiki: each agent's pages, the sources a page was written from,
-- the links between pages (from [[slug]] references in a page's body),
-- cached embeddings for semantic search, and an external-content FTS5
-- table over the pages' titles and bodies. Every row is keyed by agent_id:
-- an agent reaches only its own wiki.
CREATE TABLE wiki_pages (
	id         INTEGER PRIMARY KEY,
	agent_id   TEXT NOT NULL,
	slug       TEXT NOT NULL,
	title      TEXT NOT NULL,
	body       TEXT NOT NULL,
	archived   INTEGER NOT NULL DEFAULT 0,
	created_ms INTEGER NOT NULL,
	updated_ms INTEGER NOT NULL,
	UNIQUE (agent_id, slug)
);

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

CREATE VIRTUAL TABLE wiki_fts USING fts5(
	title,
	body,
	content = 'wiki_pages',
	content_rowid = 'id',
	tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER wiki_pages_ai AFTER INSERT ON wiki_pages BEGIN
	INSERT INTO wiki_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;

CREATE TRIGGER wiki_pages_ad AFTER DELETE ON wiki_pages BEGIN
	INSERT INTO wiki_fts(wiki_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
END;

CREATE TRIGGER wiki_pages_au AFTER UPDATE OF title, body ON wiki_pages BEGIN
	INSERT INTO wiki_fts(wiki_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
	INSERT INTO wiki_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;
