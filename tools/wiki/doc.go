// Package wiki holds MateClaw's LLM Wiki tools (policy groups "group:wiki"
// and "group:mateclaw", all core tier): an agent-maintained knowledge base
// of Markdown pages kept in the gateway's SQLite database.
//
// Scope. Every agent has its own wiki. Each row is keyed by the agent ID of
// the caller, which the tool runner derives from the session (never from
// an argument), so an agent reads, searches, archives and deletes only its
// own pages; sub-agents work in the wiki of the agent they run as. Like
// the agent's memory files, the wiki is shared by every conversation of
// that agent, chat strangers' included: wiki_delete_page is dangerous, so
// a non-owner's delete waits for a person's approval; to keep strangers
// out altogether, route them to another agent or deny "group:wiki" for
// them (tools.toolsBySender). The Control UI's wiki.* read methods take an
// agent ID and are operator.read.
//
// Storage. Tables wiki_pages (slug, title, Markdown body, archive state),
// wiki_sources (the texts a page was written from, for wiki_trace_source
// and wiki_compile_page), wiki_links (from [[Title]] or [[slug|text]]
// references in a body, recomputed on every write), wiki_revisions (the
// last five bodies a page had before it was replaced, so that a rewrite
// can be undone with wiki_read_page's revision), wiki_embeddings
// (vectors for semantic search, keyed by the model and a hash of the text)
// and the FTS5 table wiki_fts over titles and bodies; see [Migrations].
// Nothing is written to the filesystem: a slug is only a database key,
// reduced by [Slug] to lower-case letters, digits and dashes.
//
// Search. wiki_search_pages reduces a query to its words, quotes each, and
// binds the expression as a parameter ([MatchExpr]), so FTS5 syntax and
// SQL in a query are searched for as text. wiki_semantic_search embeds
// pages (re-embedding only those whose text changed) and the query with
// the configured OpenAI-compatible embedding endpoint ([OpenAIEmbedder])
// and ranks by cosine similarity; with no endpoint, or when it fails, it
// ranks by full text and says so (mode "fulltext" and a note).
//
// Model steps. wiki_compile_page rewrites a page from its sources,
// wiki_enrich_page adds links to other pages and supported sections, and
// wiki_explain_relation explains how two pages relate; each is one model
// call on the caller's agent's model chain ([Completer]). Page and source
// text is put in tagged blocks the model is told are material, not
// instructions, with closing tags inside the text neutralised.
//
// Limits. A page holds at most 128 KiB, a source 32 KiB, a page 100
// sources, a wiki 5,000 pages and 64 MiB of pages, sources and revisions together;
// wiki_read_many reads at most 10 pages and shares the result's room
// among them; semantic search reads only the head of each page.
package wiki
