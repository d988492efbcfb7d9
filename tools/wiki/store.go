package wiki

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store"
)

// ErrNotFound is returned for a slug the agent's wiki does not hold. The
// caller tells the model so; it is not a fault.
var ErrNotFound = errors.New("no such page")

// Page is one wiki page.
type Page struct {
	Slug     string    `json:"slug"`
	Title    string    `json:"title"`
	Body     string    `json:"content,omitempty"`
	Archived bool      `json:"archived"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
}

// Source is text a page was written from: a URL, a file, a conversation
// excerpt, with the text itself.
type Source struct {
	ID    int64     `json:"id"`
	Ref   string    `json:"ref"`
	Body  string    `json:"text"`
	Added time.Time `json:"added"`
}

// Hit is one search result.
type Hit struct {
	Slug     string  `json:"slug"`
	Title    string  `json:"title"`
	Snippet  string  `json:"snippet,omitempty"`
	Score    float64 `json:"score"`
	Archived bool    `json:"archived,omitempty"`
}

// Store is the wiki tables. Every method takes the agent whose wiki it
// reads or writes; no query reaches another agent's rows.
type Store struct {
	db  *sql.DB
	now func() time.Time
}

// NewStore wraps db, which must have had [Migrations] applied.
func NewStore(db *sql.DB) *Store { return &Store{db: db, now: time.Now} }

// Put creates a page, or replaces its title and body when overwrite is
// set, and records its links and any new sources, in one transaction.
// created says whether the page is new.
func (s *Store) Put(ctx context.Context, agent string, p Page, sources []Source, overwrite bool) (created bool, err error) {
	now := s.now().UnixMilli()
	err = store.Immediate(ctx, s.db, func(c store.Conn) error {
		var id int64
		err := c.QueryRowContext(ctx, `SELECT id FROM wiki_pages WHERE agent_id = ? AND slug = ?`, agent, p.Slug).Scan(&id)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			var n int
			if err := c.QueryRowContext(ctx, `SELECT COUNT(*) FROM wiki_pages WHERE agent_id = ?`, agent).Scan(&n); err != nil {
				return err
			}
			if n >= maxPages {
				return fmt.Errorf("the wiki holds %d pages, its limit; delete or merge some first", n)
			}
			if err := checkRoom(ctx, c, agent, len(p.Body)+sourceBytes(sources)); err != nil {
				return err
			}
			if _, err := c.ExecContext(ctx, `INSERT INTO wiki_pages (agent_id, slug, title, body, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?)`,
				agent, p.Slug, p.Title, p.Body, now, now); err != nil {
				return err
			}
			created = true
		case err != nil:
			return err
		case !overwrite:
			return fmt.Errorf("page %q already exists: read it, then call again with overwrite true to replace it", p.Slug)
		default:
			// The old body is kept as a revision, so the new one adds.
			if err := checkRoom(ctx, c, agent, len(p.Body)+sourceBytes(sources)); err != nil {
				return err
			}
			if err := keepRevision(ctx, c, agent, p.Slug, now); err != nil {
				return err
			}
			if _, err := c.ExecContext(ctx, `UPDATE wiki_pages SET title = ?, body = ?, updated_ms = ? WHERE id = ?`, p.Title, p.Body, now, id); err != nil {
				return err
			}
		}
		if err := setLinks(ctx, c, agent, p.Slug, Links(p.Body, p.Slug)); err != nil {
			return err
		}
		return addSources(ctx, c, agent, p.Slug, sources, now)
	})
	if err != nil {
		return false, fmt.Errorf("save page %q: %w", p.Slug, err)
	}
	return created, nil
}

// SetBody replaces a page's body (compile and enrich), keeping its title.
func (s *Store) SetBody(ctx context.Context, agent, slug, body string) error {
	err := store.Immediate(ctx, s.db, func(c store.Conn) error {
		var one int
		err := c.QueryRowContext(ctx, `SELECT 1 FROM wiki_pages WHERE agent_id = ? AND slug = ?`, agent, slug).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if err := checkRoom(ctx, c, agent, len(body)); err != nil {
			return err
		}
		now := s.now().UnixMilli()
		if err := keepRevision(ctx, c, agent, slug, now); err != nil {
			return err
		}
		res, err := c.ExecContext(ctx, `UPDATE wiki_pages SET body = ?, updated_ms = ? WHERE agent_id = ? AND slug = ?`,
			body, now, agent, slug)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return setLinks(ctx, c, agent, slug, Links(body, slug))
	})
	if err != nil {
		return fmt.Errorf("save page %q: %w", slug, err)
	}
	return nil
}

// checkRoom refuses a write of adding bytes that would take the agent's
// wiki past maxWikiBytes, counting page bodies, sources and revisions (a
// replaced body stays as a revision, so a replacement adds all its bytes).
func checkRoom(ctx context.Context, c store.Conn, agent string, adding int) error {
	if adding <= 0 {
		return nil
	}
	var used int64
	if err := c.QueryRowContext(ctx, `SELECT
		(SELECT COALESCE(SUM(length(CAST(body AS BLOB))), 0) FROM wiki_pages WHERE agent_id = ?) +
		(SELECT COALESCE(SUM(length(CAST(body AS BLOB))), 0) FROM wiki_sources WHERE agent_id = ?) +
		(SELECT COALESCE(SUM(length(CAST(body AS BLOB))), 0) FROM wiki_revisions WHERE agent_id = ?)`, agent, agent, agent).Scan(&used); err != nil {
		return err
	}
	if used+int64(adding) > maxWikiBytes {
		return fmt.Errorf("the wiki holds %d bytes and this would pass its limit of %d; delete or shorten pages first", used, maxWikiBytes)
	}
	return nil
}

// maxRevisions is how many replaced bodies a page keeps.
const maxRevisions = 5

// keepRevision saves a page's current title and body before they are
// replaced, and drops its revisions past maxRevisions.
func keepRevision(ctx context.Context, c store.Conn, agent, slug string, now int64) error {
	if _, err := c.ExecContext(ctx, `INSERT INTO wiki_revisions (agent_id, slug, title, body, replaced_ms)
		SELECT agent_id, slug, title, body, ? FROM wiki_pages WHERE agent_id = ? AND slug = ?`, now, agent, slug); err != nil {
		return err
	}
	_, err := c.ExecContext(ctx, `DELETE FROM wiki_revisions WHERE agent_id = ? AND slug = ? AND id NOT IN
		(SELECT id FROM wiki_revisions WHERE agent_id = ? AND slug = ? ORDER BY id DESC LIMIT ?)`, agent, slug, agent, slug, maxRevisions)
	return err
}

// Revision is a body a page had before it was replaced.
type Revision struct {
	N        int       `json:"revision"` // 1 is the body just before the current one
	Title    string    `json:"title"`
	Body     string    `json:"content"`
	Replaced time.Time `json:"replaced"`
}

// Revisions returns a page's kept revisions, the most recent first.
func (s *Store) Revisions(ctx context.Context, agent, slug string) ([]Revision, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT title, body, replaced_ms FROM wiki_revisions WHERE agent_id = ? AND slug = ? ORDER BY id DESC`, agent, slug)
	if err != nil {
		return nil, fmt.Errorf("revisions of %q: %w", slug, err)
	}
	defer rows.Close()
	out := []Revision{}
	for rows.Next() {
		r := Revision{N: len(out) + 1}
		var ms int64
		if err := rows.Scan(&r.Title, &r.Body, &ms); err != nil {
			return nil, fmt.Errorf("revisions of %q: %w", slug, err)
		}
		r.Replaced = time.UnixMilli(ms)
		out = append(out, r)
	}
	return out, rows.Err()
}

func sourceBytes(sources []Source) int {
	n := 0
	for _, s := range sources {
		n += len(s.Body)
	}
	return n
}

func setLinks(ctx context.Context, c store.Conn, agent, from string, to []string) error {
	if _, err := c.ExecContext(ctx, `DELETE FROM wiki_links WHERE agent_id = ? AND from_slug = ?`, agent, from); err != nil {
		return err
	}
	for _, t := range to {
		if _, err := c.ExecContext(ctx, `INSERT OR IGNORE INTO wiki_links (agent_id, from_slug, to_slug) VALUES (?, ?, ?)`, agent, from, t); err != nil {
			return err
		}
	}
	return nil
}

func addSources(ctx context.Context, c store.Conn, agent, slug string, sources []Source, now int64) error {
	if len(sources) == 0 {
		return nil
	}
	var n int
	if err := c.QueryRowContext(ctx, `SELECT COUNT(*) FROM wiki_sources WHERE agent_id = ? AND slug = ?`, agent, slug).Scan(&n); err != nil {
		return err
	}
	if n+len(sources) > maxSources {
		return fmt.Errorf("a page keeps at most %d sources; it has %d", maxSources, n)
	}
	for _, src := range sources {
		if _, err := c.ExecContext(ctx, `INSERT INTO wiki_sources (agent_id, slug, ref, body, added_ms) VALUES (?, ?, ?, ?, ?)`,
			agent, slug, src.Ref, src.Body, now); err != nil {
			return err
		}
	}
	return nil
}

// Get reads one page.
func (s *Store) Get(ctx context.Context, agent, slug string) (Page, error) {
	var p Page
	var archived int
	var created, updated int64
	err := s.db.QueryRowContext(ctx, `SELECT slug, title, body, archived, created_ms, updated_ms FROM wiki_pages WHERE agent_id = ? AND slug = ?`,
		agent, slug).Scan(&p.Slug, &p.Title, &p.Body, &archived, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return Page{}, fmt.Errorf("page %q: %w", slug, ErrNotFound)
	}
	if err != nil {
		return Page{}, fmt.Errorf("read page %q: %w", slug, err)
	}
	p.Archived, p.Created, p.Updated = archived != 0, time.UnixMilli(created), time.UnixMilli(updated)
	return p, nil
}

// List returns the wiki's pages without their bodies, most recently
// updated first, and how many there are in all.
func (s *Store) List(ctx context.Context, agent string, archived bool, limit, offset int) ([]Page, int, error) {
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM wiki_pages WHERE agent_id = ? AND (archived = 0 OR ? = 1)`, agent, archived).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("list pages: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT slug, title, archived, created_ms, updated_ms FROM wiki_pages
		WHERE agent_id = ? AND (archived = 0 OR ? = 1) ORDER BY updated_ms DESC, slug LIMIT ? OFFSET ?`, agent, archived, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list pages: %w", err)
	}
	defer rows.Close()
	out := []Page{}
	for rows.Next() {
		var p Page
		var a int
		var c, u int64
		if err := rows.Scan(&p.Slug, &p.Title, &a, &c, &u); err != nil {
			return nil, 0, fmt.Errorf("list pages: %w", err)
		}
		p.Archived, p.Created, p.Updated = a != 0, time.UnixMilli(c), time.UnixMilli(u)
		out = append(out, p)
	}
	return out, total, rows.Err()
}

// Delete removes a page with its sources, links and embedding. Links
// other pages make to it stay, so their text and the backlink list show
// what went missing.
func (s *Store) Delete(ctx context.Context, agent, slug string) error {
	err := store.Immediate(ctx, s.db, func(c store.Conn) error {
		res, err := c.ExecContext(ctx, `DELETE FROM wiki_pages WHERE agent_id = ? AND slug = ?`, agent, slug)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		for _, q := range []string{
			`DELETE FROM wiki_sources WHERE agent_id = ? AND slug = ?`,
			`DELETE FROM wiki_revisions WHERE agent_id = ? AND slug = ?`,
			`DELETE FROM wiki_links WHERE agent_id = ? AND from_slug = ?`,
			`DELETE FROM wiki_embeddings WHERE agent_id = ? AND slug = ?`,
		} {
			if _, err := c.ExecContext(ctx, q, agent, slug); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete page %q: %w", slug, err)
	}
	return nil
}

// SetArchived archives or restores a page. An archived page is left out of
// listings and searches unless they ask for it, and still read by slug.
func (s *Store) SetArchived(ctx context.Context, agent, slug string, archived bool) error {
	res, err := s.db.ExecContext(ctx, `UPDATE wiki_pages SET archived = ?, updated_ms = ? WHERE agent_id = ? AND slug = ?`,
		archived, s.now().UnixMilli(), agent, slug)
	if err != nil {
		return fmt.Errorf("archive page %q: %w", slug, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("page %q: %w", slug, ErrNotFound)
	}
	return nil
}

// Sources returns a page's sources, oldest first.
func (s *Store) Sources(ctx context.Context, agent, slug string) ([]Source, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, ref, body, added_ms FROM wiki_sources WHERE agent_id = ? AND slug = ? ORDER BY id`, agent, slug)
	if err != nil {
		return nil, fmt.Errorf("sources of %q: %w", slug, err)
	}
	defer rows.Close()
	out := []Source{}
	for rows.Next() {
		var src Source
		var added int64
		if err := rows.Scan(&src.ID, &src.Ref, &src.Body, &added); err != nil {
			return nil, fmt.Errorf("sources of %q: %w", slug, err)
		}
		src.Added = time.UnixMilli(added)
		out = append(out, src)
	}
	return out, rows.Err()
}

// AddSources records more sources of an existing page.
func (s *Store) AddSources(ctx context.Context, agent, slug string, sources []Source) error {
	err := store.Immediate(ctx, s.db, func(c store.Conn) error {
		var one int
		if err := c.QueryRowContext(ctx, `SELECT 1 FROM wiki_pages WHERE agent_id = ? AND slug = ?`, agent, slug).Scan(&one); errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		} else if err != nil {
			return err
		}
		if err := checkRoom(ctx, c, agent, sourceBytes(sources)); err != nil {
			return err
		}
		return addSources(ctx, c, agent, slug, sources, s.now().UnixMilli())
	})
	if err != nil {
		return fmt.Errorf("add sources to %q: %w", slug, err)
	}
	return nil
}

// Related is a page's neighbourhood: the pages it links to (Exists false
// for a link to a page not written yet) and the pages linking to it.
type Related struct {
	LinksTo  []LinkedPage `json:"linksTo"`
	LinkedBy []LinkedPage `json:"linkedBy"`
	Similar  []Hit        `json:"similar,omitempty"`
}

// LinkedPage is one end of a link.
type LinkedPage struct {
	Slug   string `json:"slug"`
	Title  string `json:"title,omitempty"`
	Exists bool   `json:"exists"`
}

// Links returns a page's outgoing links and backlinks.
func (s *Store) Links(ctx context.Context, agent, slug string) (Related, error) {
	r := Related{LinksTo: []LinkedPage{}, LinkedBy: []LinkedPage{}}
	q := func(query string, dst *[]LinkedPage) error {
		rows, err := s.db.QueryContext(ctx, query, agent, slug)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var lp LinkedPage
			var title sql.NullString
			if err := rows.Scan(&lp.Slug, &title); err != nil {
				return err
			}
			lp.Title, lp.Exists = title.String, title.Valid
			*dst = append(*dst, lp)
		}
		return rows.Err()
	}
	if err := q(`SELECT l.to_slug, p.title FROM wiki_links l LEFT JOIN wiki_pages p ON p.agent_id = l.agent_id AND p.slug = l.to_slug
		WHERE l.agent_id = ? AND l.from_slug = ? ORDER BY l.to_slug`, &r.LinksTo); err != nil {
		return Related{}, fmt.Errorf("links of %q: %w", slug, err)
	}
	if err := q(`SELECT l.from_slug, p.title FROM wiki_links l LEFT JOIN wiki_pages p ON p.agent_id = l.agent_id AND p.slug = l.from_slug
		WHERE l.agent_id = ? AND l.to_slug = ? ORDER BY l.from_slug`, &r.LinkedBy); err != nil {
		return Related{}, fmt.Errorf("backlinks of %q: %w", slug, err)
	}
	return r, nil
}

// Search finds pages matching an FTS5 expression built by [MatchExpr],
// best first; the score is higher for a better match.
func (s *Store) Search(ctx context.Context, agent, match string, archived bool, limit int) ([]Hit, error) {
	out := []Hit{}
	if match == "" {
		return out, nil
	}
	q := `SELECT p.slug, p.title, snippet(wiki_fts, 1, '«', '»', '…', 16), bm25(wiki_fts, 4.0, 1.0), p.archived
		FROM wiki_fts JOIN wiki_pages p ON p.id = wiki_fts.rowid
		WHERE wiki_fts MATCH ? AND p.agent_id = ? AND (p.archived = 0 OR ? = 1)
		ORDER BY bm25(wiki_fts, 4.0, 1.0) LIMIT ?`
	if store.IsPostgres(s.db) {
		// The rank is negated as bm25's is: lower is better in both.
		q = `SELECT p.slug, p.title, ts_headline('simple', p.body, q, 'StartSel=«, StopSel=», MaxWords=16, MinWords=6'), -ts_rank(p.search_tsv, q, 1) AS r, p.archived
		FROM wiki_pages p, to_tsquery('simple', ` + store.PGFold("?") + `) q
		WHERE p.search_tsv @@ q AND p.agent_id = ? AND (p.archived = 0 OR ? = 1)
		ORDER BY r LIMIT ?`
		match = store.TSQuery(match)
	}
	rows, err := s.db.QueryContext(ctx, q, match, agent, archived, limit)
	if err != nil {
		return nil, fmt.Errorf("search the wiki: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var h Hit
		var a int
		if err := rows.Scan(&h.Slug, &h.Title, &h.Snippet, &h.Score, &a); err != nil {
			return nil, fmt.Errorf("search the wiki: %w", err)
		}
		h.Score, h.Archived = -h.Score, a != 0 // bm25 is lower for better
		out = append(out, h)
	}
	return out, rows.Err()
}

// SearchQuery runs a model's free-text query: every word first, any word
// when that finds nothing.
func (s *Store) SearchQuery(ctx context.Context, agent, query string, archived bool, limit int) ([]Hit, error) {
	hits, err := s.Search(ctx, agent, MatchExpr(query, "AND"), archived, limit)
	if err != nil || len(hits) > 0 || len(queryTerms(query)) < 2 {
		return hits, err
	}
	return s.Search(ctx, agent, MatchExpr(query, "OR"), archived, limit)
}
