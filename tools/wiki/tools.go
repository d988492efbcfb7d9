package wiki

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/tools"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the wiki component's tables.
func Migrations() store.Migrations {
	return store.FromDir("wiki", migrationFiles, "migrations")
}

// Completer makes one model call with no tools, on the caller's agent's
// model chain.
type Completer interface {
	Complete(ctx context.Context, who tools.Who, system, prompt string) (string, error)
}

// Config is what the wiki tools are built from.
type Config struct {
	// DB is the gateway's store, with [Migrations] applied.
	DB *sql.DB
	// Model answers wiki_compile_page, wiki_enrich_page and
	// wiki_explain_relation; nil turns those three into errors that say so.
	Model Completer
	// Embedder gives the embedding model for a caller, nil when none is
	// configured; wiki_semantic_search then ranks by full text and says so.
	Embedder func(who tools.Who) Embedder
}

// Names are the wiki tools, in MateClaw's order.
var Names = []string{
	"wiki_read_page", "wiki_read_many", "wiki_list_pages", "wiki_search_pages", "wiki_semantic_search",
	"wiki_compile_page", "wiki_trace_source", "wiki_create_page", "wiki_delete_page", "wiki_archive_page",
	"wiki_unarchive_page", "wiki_related_pages", "wiki_explain_relation", "wiki_enrich_page",
}

// Group is the policy group naming every wiki tool.
const Group = "group:wiki"

// Search limits.
const (
	defaultLimit = 10
	maxLimit     = 50
	maxListLimit = 200
)

type wiki struct {
	st  *Store
	cfg Config
}

// Tools returns the fourteen wiki_* tools, in [Names] order.
func Tools(cfg Config) []tools.Tool {
	w := &wiki{st: NewStore(cfg.DB), cfg: cfg}
	return []tools.Tool{
		w.readPage(), w.readMany(), w.listPages(), w.searchPages(), w.semanticSearch(),
		w.compilePage(), w.traceSource(), w.createPage(), w.deletePage(), w.archivePage(true),
		w.archivePage(false), w.relatedPages(), w.explainRelation(), w.enrichPage(),
	}
}

func spec(name, label, desc string, model bool) tools.Spec {
	s := tools.Spec{
		Name: name, Label: label, Description: desc,
		Tier: tools.TierCore, Source: tools.SourceCore, Timeout: tools.TimeoutFast,
		Groups: []string{Group, "group:mateclaw"},
	}
	if model {
		s.Timeout = 3 * tools.TimeoutFast
	}
	return s
}

// agentOf is the wiki a call reaches: its agent's, taken from the caller
// the runner resolved and never from an argument. A call with no agent is
// refused rather than given some shared wiki.
func agentOf(c tools.Call) (string, error) {
	if c.Who.AgentID == "" {
		return "", errors.New("no agent: the wiki belongs to an agent")
	}
	return c.Who.AgentID, nil
}

// pageOf is the caller's agent and the page a slug argument names.
func pageOf(c tools.Call, field, s string) (agent, slug string, err error) {
	if agent, err = agentOf(c); err != nil {
		return "", "", err
	}
	if slug, err = slugArg(field, s); err != nil {
		return "", "", err
	}
	return agent, slug, nil
}

// slugArg normalises a slug or title the model passed.
func slugArg(field, s string) (string, error) {
	slug, err := Slug(s)
	if err != nil {
		return "", fmt.Errorf("%s: %w", field, err)
	}
	return slug, nil
}

func jsonResult(v any) (tools.Result, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return tools.Result{}, fmt.Errorf("encode result: %w", err)
	}
	return tools.Result{Text: string(b)}, nil
}

// limitArg clamps a model's limit.
func limitArg(n, def, max int) int {
	switch {
	case n <= 0:
		return def
	case n > max:
		return max
	}
	return n
}

// SlugArgs name one page.
type SlugArgs struct {
	Slug string `json:"slug" jsonschema:"description=The page's slug (or its title; it is turned into the slug)"`
}

// ReadArgs are wiki_read_page's arguments.
type ReadArgs struct {
	Slug     string `json:"slug" jsonschema:"description=The page's slug (or its title; it is turned into the slug)"`
	Revision int    `json:"revision,omitempty" jsonschema:"minimum=0,maximum=5,description=Read an earlier version instead: 1 is the one before the current text (the page keeps 5)"`
}

func (w *wiki) readPage() tools.Tool {
	return tools.NewTyped(spec("wiki_read_page", "Read wiki page",
		"Read one page of your wiki: its title, Markdown content, archive state, the pages it links to, and how many earlier versions it keeps "+
			"(read one with revision; restore it with wiki_create_page and overwrite).", false),
		func(ctx context.Context, c tools.Call, a ReadArgs) (tools.Result, error) {
			agent, slug, err := pageOf(c, "slug", a.Slug)
			if err != nil {
				return tools.Result{}, err
			}
			p, err := w.st.Get(ctx, agent, slug)
			if err != nil {
				return tools.Result{}, err
			}
			revs, err := w.st.Revisions(ctx, agent, slug)
			if err != nil {
				return tools.Result{}, err
			}
			if a.Revision > 0 {
				if a.Revision > len(revs) {
					return tools.Result{}, fmt.Errorf("page %q keeps %d earlier versions; there is no revision %d", slug, len(revs), a.Revision)
				}
				r := revs[a.Revision-1]
				p.Title, p.Body = r.Title, r.Body
			}
			if c.MaxChars > 0 && len(p.Body) > c.MaxChars-500 {
				p.Body = clip(p.Body, max(c.MaxChars-500, 1000))
			}
			rel, err := w.st.Links(ctx, agent, slug)
			if err != nil {
				return tools.Result{}, err
			}
			return jsonResult(struct {
				Page
				Revision  int          `json:"revision,omitempty"`
				Revisions int          `json:"revisions"`
				LinksTo   []LinkedPage `json:"linksTo"`
			}{p, a.Revision, len(revs), rel.LinksTo})
		})
}

// ReadManyArgs are wiki_read_many's arguments.
type ReadManyArgs struct {
	Slugs []string `json:"slugs" jsonschema:"maxItems=10,description=Slugs of the pages to read (at most 10)"`
}

func (w *wiki) readMany() tools.Tool {
	return tools.NewTyped(spec("wiki_read_many", "Read wiki pages",
		"Read several pages of your wiki at once (at most 10). Pages that do not exist are listed under missing. "+
			"Long pages are cut to share the answer's room; read one with wiki_read_page for all of it.", false),
		func(ctx context.Context, c tools.Call, a ReadManyArgs) (tools.Result, error) {
			agent, err := agentOf(c)
			if err != nil {
				return tools.Result{}, err
			}
			if len(a.Slugs) == 0 {
				return tools.Result{}, errors.New("slugs: name at least one page")
			}
			if len(a.Slugs) > maxReadMany {
				return tools.Result{}, fmt.Errorf("slugs: at most %d pages per call, got %d", maxReadMany, len(a.Slugs))
			}
			budget := maxBodyBytes
			if c.MaxChars > 0 {
				budget = c.MaxChars - 200*len(a.Slugs)
			}
			each := max(budget/len(a.Slugs), 500)
			out := struct {
				Pages   []Page   `json:"pages"`
				Missing []string `json:"missing,omitempty"`
			}{Pages: []Page{}}
			seen := map[string]bool{}
			for _, s := range a.Slugs {
				slug, err := Slug(s)
				if err != nil {
					out.Missing = append(out.Missing, s)
					continue
				}
				if seen[slug] {
					continue
				}
				seen[slug] = true
				p, err := w.st.Get(ctx, agent, slug)
				if errors.Is(err, ErrNotFound) {
					out.Missing = append(out.Missing, slug)
					continue
				}
				if err != nil {
					return tools.Result{}, err
				}
				p.Body = clip(p.Body, each)
				out.Pages = append(out.Pages, p)
			}
			return jsonResult(out)
		})
}

// ListArgs are wiki_list_pages's arguments.
type ListArgs struct {
	IncludeArchived bool `json:"includeArchived,omitempty" jsonschema:"description=Also list archived pages"`
	Limit           int  `json:"limit,omitempty" jsonschema:"minimum=1,maximum=200,description=Most pages to list (default 50)"`
	Offset          int  `json:"offset,omitempty" jsonschema:"minimum=0,description=Pages to skip (for the next screen)"`
}

func (w *wiki) listPages() tools.Tool {
	return tools.NewTyped(spec("wiki_list_pages", "List wiki pages",
		"List the pages of your wiki (slug, title, archive state, dates), most recently updated first.", false),
		func(ctx context.Context, c tools.Call, a ListArgs) (tools.Result, error) {
			agent, err := agentOf(c)
			if err != nil {
				return tools.Result{}, err
			}
			limit := limitArg(a.Limit, 50, maxListLimit)
			pages, total, err := w.st.List(ctx, agent, a.IncludeArchived, limit, max(a.Offset, 0))
			if err != nil {
				return tools.Result{}, err
			}
			return jsonResult(struct {
				Pages []Page `json:"pages"`
				Total int    `json:"total"`
			}{pages, total})
		})
}

// SearchArgs are the search tools' arguments.
type SearchArgs struct {
	Query           string `json:"query" jsonschema:"description=Words to look for"`
	Limit           int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=50,description=Most results (default 10)"`
	IncludeArchived bool   `json:"includeArchived,omitempty" jsonschema:"description=Also search archived pages"`
}

func (w *wiki) searchPages() tools.Tool {
	return tools.NewTyped(spec("wiki_search_pages", "Search wiki",
		"Full-text search over your wiki's titles and content. Pages having every word come first; when none has them all, any word. "+
			"Returns slug, title, a snippet with the words in «», and a score (higher is better).", false),
		func(ctx context.Context, c tools.Call, a SearchArgs) (tools.Result, error) {
			agent, err := agentOf(c)
			if err != nil {
				return tools.Result{}, err
			}
			hits, err := w.st.SearchQuery(ctx, agent, a.Query, a.IncludeArchived, limitArg(a.Limit, defaultLimit, maxLimit))
			if err != nil {
				return tools.Result{}, err
			}
			return jsonResult(struct {
				Results []Hit `json:"results"`
			}{hits})
		})
}

func (w *wiki) semanticSearch() tools.Tool {
	return tools.NewTyped(spec("wiki_semantic_search", "Semantic wiki search",
		"Find the pages of your wiki closest in meaning to a question, through the configured embedding model. "+
			"Without one, pages are ranked by full-text search and mode says \"fulltext\".", true),
		func(ctx context.Context, c tools.Call, a SearchArgs) (tools.Result, error) {
			agent, err := agentOf(c)
			if err != nil {
				return tools.Result{}, err
			}
			if strings.TrimSpace(a.Query) == "" {
				return tools.Result{}, errors.New("query is required")
			}
			limit := limitArg(a.Limit, defaultLimit, maxLimit)
			var e Embedder
			if w.cfg.Embedder != nil {
				e = w.cfg.Embedder(c.Who)
			}
			if e != nil {
				res, err := w.st.Semantic(ctx, e, agent, a.Query, a.IncludeArchived, limit)
				if err == nil {
					return jsonResult(res)
				}
				if ctx.Err() != nil {
					return tools.Result{}, err
				}
				return w.fulltext(ctx, agent, a, limit, "the embedding model failed ("+err.Error()+"), so pages were ranked by full-text search instead")
			}
			return w.fulltext(ctx, agent, a, limit, errNoEmbeddings.Error())
		})
}

func (w *wiki) fulltext(ctx context.Context, agent string, a SearchArgs, limit int, note string) (tools.Result, error) {
	hits, err := w.st.SearchQuery(ctx, agent, a.Query, a.IncludeArchived, limit)
	if err != nil {
		return tools.Result{}, err
	}
	return jsonResult(semanticResult{Mode: "fulltext", Note: note, Results: hits})
}

func (w *wiki) traceSource() tools.Tool {
	return tools.NewTyped(spec("wiki_trace_source", "Trace wiki sources",
		"List the sources a wiki page was written from (reference and text, oldest first), to check where a claim came from.", false),
		func(ctx context.Context, c tools.Call, a SlugArgs) (tools.Result, error) {
			agent, slug, err := pageOf(c, "slug", a.Slug)
			if err != nil {
				return tools.Result{}, err
			}
			if _, err := w.st.Get(ctx, agent, slug); err != nil {
				return tools.Result{}, err
			}
			srcs, err := w.st.Sources(ctx, agent, slug)
			if err != nil {
				return tools.Result{}, err
			}
			budget := maxBodyBytes
			if c.MaxChars > 0 {
				budget = c.MaxChars
			}
			if len(srcs) > 0 {
				each := max(budget/len(srcs)-200, 300)
				for i := range srcs {
					srcs[i].Body = clip(srcs[i].Body, each)
				}
			}
			return jsonResult(struct {
				Slug    string   `json:"slug"`
				Sources []Source `json:"sources"`
			}{slug, srcs})
		})
}

// SourceArg is a source given with a page.
type SourceArg struct {
	Ref  string `json:"ref" jsonschema:"description=Where it came from: a URL or a file path or a note such as 'chat of 2026-12-01'"`
	Text string `json:"text" jsonschema:"description=The source text the page draws on"`
}

// CreateArgs are wiki_create_page's arguments.
type CreateArgs struct {
	Title     string      `json:"title" jsonschema:"description=The page's title"`
	Slug      string      `json:"slug,omitempty" jsonschema:"description=Its key (default: made from the title)"`
	Content   string      `json:"content" jsonschema:"description=Markdown; link other pages with [[Their title]] or [[slug]]"`
	Sources   []SourceArg `json:"sources,omitempty" jsonschema:"maxItems=20,description=Sources the page is written from (kept for wiki_trace_source and wiki_compile_page)"`
	Overwrite bool        `json:"overwrite,omitempty" jsonschema:"description=Replace the page if it exists (its sources are kept and these added)"`
}

func checkSources(in []SourceArg) ([]Source, error) {
	if len(in) > maxSourcesCall {
		return nil, fmt.Errorf("sources: at most %d per call", maxSourcesCall)
	}
	out := make([]Source, 0, len(in))
	for i, s := range in {
		ref := strings.TrimSpace(s.Ref)
		switch {
		case ref == "":
			return nil, fmt.Errorf("sources[%d].ref is required", i)
		case utf8.RuneCountInString(ref) > maxRefRunes:
			return nil, fmt.Errorf("sources[%d].ref is longer than %d characters", i, maxRefRunes)
		case len(s.Text) > maxSourceBytes:
			return nil, fmt.Errorf("sources[%d].text is %d bytes; at most %d", i, len(s.Text), maxSourceBytes)
		case !utf8.ValidString(s.Text) || !utf8.ValidString(ref):
			return nil, fmt.Errorf("sources[%d] is not valid UTF-8", i)
		}
		out = append(out, Source{Ref: ref, Body: s.Text})
	}
	return out, nil
}

func (w *wiki) createPage() tools.Tool {
	return tools.NewTyped(spec("wiki_create_page", "Create wiki page",
		"Write a page of your wiki: title, Markdown content (link pages with [[Title]]), and the sources it is written from. "+
			"An existing page is replaced only with overwrite true.", false),
		func(ctx context.Context, c tools.Call, a CreateArgs) (tools.Result, error) {
			agent, err := agentOf(c)
			if err != nil {
				return tools.Result{}, err
			}
			title, err := cleanTitle(a.Title)
			if err != nil {
				return tools.Result{}, err
			}
			key := a.Slug
			if strings.TrimSpace(key) == "" {
				key = title
			}
			slug, err := slugArg("slug", key)
			if err != nil {
				return tools.Result{}, err
			}
			if err := checkBody(a.Content); err != nil {
				return tools.Result{}, err
			}
			srcs, err := checkSources(a.Sources)
			if err != nil {
				return tools.Result{}, err
			}
			created, err := w.st.Put(ctx, agent, Page{Slug: slug, Title: title, Body: a.Content}, srcs, a.Overwrite)
			if err != nil {
				return tools.Result{}, err
			}
			return jsonResult(map[string]any{"slug": slug, "created": created, "links": emptyIfNil(Links(a.Content, slug)), "sourcesAdded": len(srcs)})
		})
}

func emptyIfNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (w *wiki) deletePage() tools.Tool {
	s := spec("wiki_delete_page", "Delete wiki page",
		"Delete a page of your wiki for good, with its sources. To keep it out of the way but recoverable, use wiki_archive_page.", false)
	// The wiki is the agent's, and so the owner's: a chat stranger's turn on
	// the same agent must not destroy it unasked. Dangerous makes such a
	// call wait for a person's approval; the owner's calls run.
	s.Dangerous = true
	return tools.NewTyped(s, func(ctx context.Context, c tools.Call, a SlugArgs) (tools.Result, error) {
		agent, slug, err := pageOf(c, "slug", a.Slug)
		if err != nil {
			return tools.Result{}, err
		}
		if err := w.st.Delete(ctx, agent, slug); err != nil {
			return tools.Result{}, err
		}
		return jsonResult(map[string]any{"slug": slug, "deleted": true})
	})
}

func (w *wiki) archivePage(archive bool) tools.Tool {
	name, label, desc := "wiki_archive_page", "Archive wiki page",
		"Archive a page of your wiki: it leaves listings and searches (unless they ask for archived pages) but can still be read and restored."
	if !archive {
		name, label, desc = "wiki_unarchive_page", "Restore wiki page", "Restore an archived page of your wiki to listings and searches."
	}
	return tools.NewTyped(spec(name, label, desc, false), func(ctx context.Context, c tools.Call, a SlugArgs) (tools.Result, error) {
		agent, slug, err := pageOf(c, "slug", a.Slug)
		if err != nil {
			return tools.Result{}, err
		}
		if err := w.st.SetArchived(ctx, agent, slug, archive); err != nil {
			return tools.Result{}, err
		}
		return jsonResult(map[string]any{"slug": slug, "archived": archive})
	})
}

// RelatedArgs are wiki_related_pages's arguments.
type RelatedArgs struct {
	Slug  string `json:"slug" jsonschema:"description=The page's slug"`
	Limit int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=50,description=Most similar pages besides the linked ones (default 5)"`
}

func (w *wiki) relatedPages() tools.Tool {
	return tools.NewTyped(spec("wiki_related_pages", "Related wiki pages",
		"The pages near one page of your wiki: those it links to (exists false for a page not written yet), those linking to it, "+
			"and pages sharing words with its title.", false),
		func(ctx context.Context, c tools.Call, a RelatedArgs) (tools.Result, error) {
			agent, slug, err := pageOf(c, "slug", a.Slug)
			if err != nil {
				return tools.Result{}, err
			}
			p, err := w.st.Get(ctx, agent, slug)
			if err != nil {
				return tools.Result{}, err
			}
			rel, err := w.st.Links(ctx, agent, slug)
			if err != nil {
				return tools.Result{}, err
			}
			limit := limitArg(a.Limit, 5, maxLimit)
			linked := map[string]bool{slug: true}
			for _, l := range append(rel.LinksTo, rel.LinkedBy...) {
				linked[l.Slug] = true
			}
			hits, err := w.st.Search(ctx, agent, MatchExpr(p.Title, "OR"), false, limit+len(linked))
			if err != nil {
				return tools.Result{}, err
			}
			rel.Similar = []Hit{}
			for _, h := range hits {
				if !linked[h.Slug] && len(rel.Similar) < limit {
					h.Snippet = ""
					rel.Similar = append(rel.Similar, h)
				}
			}
			return jsonResult(rel)
		})
}
