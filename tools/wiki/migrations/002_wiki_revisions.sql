-- The bodies a page had before it was replaced (wiki_create_page with
-- overwrite, wiki_compile_page, wiki_enrich_page), the last few per page,
-- so that a rewrite, a prompt-injected one included, can be undone.
CREATE TABLE wiki_revisions (
	id          INTEGER PRIMARY KEY,
	agent_id    TEXT NOT NULL,
	slug        TEXT NOT NULL,
	title       TEXT NOT NULL,
	body        TEXT NOT NULL,
	replaced_ms INTEGER NOT NULL
);
CREATE INDEX wiki_revisions_page ON wiki_revisions (agent_id, slug, id);
