package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"strings"
	"sync"
	"unicode"

	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/tools/fs"
)

// index is the FTS5 search index of the agents' memory files.
type index struct {
	db *sql.DB
	// mu serialises updates, so that two searches never re-index the
	// same file at once.
	mu sync.Mutex
}

type fileStat struct {
	size, mtime int64
}

// sync brings the agent's rows up to date with its workspace: new and
// changed files are (re-)chunked, vanished ones dropped.
func (ix *index) sync(ctx context.Context, agent string, root *os.Root) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	onDisk := map[string]fileStat{}
	err := walk(ctx, root, ".", func(rel string, fi iofs.FileInfo) error {
		onDisk[rel] = fileStat{fi.Size(), fi.ModTime().UnixNano()}
		return nil
	})
	if err != nil {
		return fmt.Errorf("scan workspace: %w", err)
	}
	stored, err := ix.stored(ctx, agent)
	if err != nil {
		return err
	}
	var changed, gone []string
	for p, st := range onDisk {
		if old, ok := stored[p]; !ok || old != st {
			changed = append(changed, p)
		}
	}
	for p := range stored {
		if _, ok := onDisk[p]; !ok {
			gone = append(gone, p)
		}
	}
	if len(changed) == 0 && len(gone) == 0 {
		return nil
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("update memory index: %w", err)
	}
	defer tx.Rollback()
	for _, p := range gone {
		if err := drop(ctx, tx, agent, p); err != nil {
			return err
		}
	}
	for _, p := range changed {
		if err := reindex(ctx, tx, root, agent, p, onDisk[p]); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("update memory index: %w", err)
	}
	return nil
}

func (ix *index) stored(ctx context.Context, agent string) (map[string]fileStat, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT path, size, mtime_ns FROM memory_files WHERE agent_id = ?`, agent)
	if err != nil {
		return nil, fmt.Errorf("read memory index: %w", err)
	}
	defer rows.Close()
	m := map[string]fileStat{}
	for rows.Next() {
		var p string
		var st fileStat
		if err := rows.Scan(&p, &st.size, &st.mtime); err != nil {
			return nil, fmt.Errorf("read memory index: %w", err)
		}
		m[p] = st
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read memory index: %w", err)
	}
	return m, nil
}

func drop(ctx context.Context, tx *sql.Tx, agent, p string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM memory_chunks WHERE agent_id = ? AND path = ?`, agent, p); err != nil {
		return fmt.Errorf("drop %s from memory index: %w", p, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM memory_files WHERE agent_id = ? AND path = ?`, agent, p); err != nil {
		return fmt.Errorf("drop %s from memory index: %w", p, err)
	}
	return nil
}

// reindex replaces the rows of one file. A file that vanished since the
// scan is dropped; one over maxFileBytes, or one the workspace may not
// read (see fs.CheckLinks), is recorded with no chunks.
func reindex(ctx context.Context, tx *sql.Tx, root *os.Root, agent, p string, st fileStat) error {
	if err := drop(ctx, tx, agent, p); err != nil {
		return err
	}
	var text string
	if st.size <= maxFileBytes {
		data, err := fs.ReadFile(root, p)
		if errors.Is(err, iofs.ErrNotExist) {
			return nil
		}
		if errors.Is(err, fs.ErrHardLinked) {
			data, err = nil, nil
		}
		if err != nil {
			return fmt.Errorf("index %s: %w", p, err)
		}
		text = string(data)
	}
	for i, c := range chunkMarkdown(text) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO memory_chunks(agent_id, path, chunk, start_line, end_line, body) VALUES (?,?,?,?,?,?)`,
			agent, p, i, c.startLine, c.endLine, c.text); err != nil {
			return fmt.Errorf("index %s: %w", p, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO memory_files(agent_id, path, size, mtime_ns) VALUES (?,?,?,?)`,
		agent, p, st.size, st.mtime); err != nil {
		return fmt.Errorf("index %s: %w", p, err)
	}
	return nil
}

// forget makes the next sync re-read one file. Errors are ignored: the
// size and mtime check still finds the change unless both match.
func (ix *index) forget(ctx context.Context, agent, p string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.db.ExecContext(ctx, `DELETE FROM memory_files WHERE agent_id = ? AND path = ?`, agent, p)
}

// Hit is one memory_search result.
type Hit struct {
	Path      string  `json:"path"`
	StartLine int     `json:"startLine"`
	EndLine   int     `json:"endLine"`
	Snippet   string  `json:"snippet"`
	Score     float64 `json:"score"`
}

// search returns the agent's best chunks for an FTS5 match expression.
func (ix *index) search(ctx context.Context, agent, match string, limit int) ([]Hit, error) {
	q := `
		SELECT c.path, c.start_line, c.end_line, snippet(memory_fts, 0, '**', '**', '…', 24), bm25(memory_fts)
		FROM memory_fts JOIN memory_chunks c ON c.id = memory_fts.rowid
		WHERE memory_fts MATCH ? AND c.agent_id = ?
		ORDER BY bm25(memory_fts), c.path, c.chunk
		LIMIT ?`
	if store.IsPostgres(ix.db) {
		// The rank is negated as bm25's is: lower is better in both.
		q = `
		SELECT c.path, c.start_line, c.end_line,
			ts_headline('simple', c.body, q, 'StartSel=**, StopSel=**, MaxWords=24, MinWords=8'), -ts_rank(c.body_tsv, q, 1) AS r
		FROM memory_chunks c, to_tsquery('simple', ` + store.PGFold("?") + `) q
		WHERE c.body_tsv @@ q AND c.agent_id = ?
		ORDER BY r, c.path, c.chunk
		LIMIT ?`
		match = store.TSQuery(match)
	}
	rows, err := ix.db.QueryContext(ctx, q, match, agent, limit)
	if err != nil {
		return nil, fmt.Errorf("search memory: %w", err)
	}
	defer rows.Close()
	hits := []Hit{}
	for rows.Next() {
		var h Hit
		if err := rows.Scan(&h.Path, &h.StartLine, &h.EndLine, &h.Snippet, &h.Score); err != nil {
			return nil, fmt.Errorf("search memory: %w", err)
		}
		h.Score = -h.Score // bm25 is lower for better matches
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search memory: %w", err)
	}
	return hits, nil
}

// queryTerms reduces a user query to its words: runs of letters, digits
// and underscores. Everything else (quotes, *, parentheses, ^, :, -) is
// a separator, so no FTS5 syntax survives.
func queryTerms(q string) []string {
	return strings.FieldsFunc(q, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && !unicode.Is(unicode.Mn, r)
	})
}

// matchExpr joins terms, each a quoted FTS5 string (so AND, OR, NOT and
// NEAR are plain words), with op ("AND" or "OR").
func matchExpr(terms []string, op string) string {
	q := make([]string, len(terms))
	for i, t := range terms {
		q[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(q, " "+op+" ")
}
