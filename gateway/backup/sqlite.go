package backup

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/store"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// snapshot captures the database rel (under r) with VACUUM INTO: SQLite
// reads one consistent state of the live database, committed WAL pages
// included, while the gateway goes on writing, and the copy carries no
// free-page remnants. The copy is checked before it goes in the archive.
func (w *writer) snapshot(r *os.Root, rel, src string) (*os.File, error) {
	// The database is opened by its real path, which must still be the
	// file the walk found inside the root: a link swapped in meanwhile
	// is refused.
	if fi, err := r.Lstat(rel); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("snapshot %s: not a regular file any more", src)
	}
	live := filepath.Join(r.Name(), filepath.FromSlash(rel))
	w.ndb++
	out := filepath.Join(w.scratch, "db-"+strconv.Itoa(w.ndb)+".sqlite")
	if err := vacuumInto(w.ctx, live, out); err != nil {
		return nil, fmt.Errorf("snapshot database %s: %w", src, err)
	}
	if problems, err := store.IntegrityCheck(w.ctx, out); err != nil || len(problems) > 0 {
		if err == nil {
			err = fmt.Errorf("%s", strings.Join(problems, "; "))
		}
		return nil, fmt.Errorf("snapshot of database %s fails its integrity check: %w", src, err)
	}
	f, err := os.Open(out)
	if err != nil {
		return nil, fmt.Errorf("open snapshot of %s: %w", src, err)
	}
	return f, nil
}

// vacuumInto writes a consistent copy of the database at live to out.
func vacuumInto(ctx context.Context, live, out string) error {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	// Read-only: the backup never checkpoints or otherwise changes the
	// gateway's database.
	q.Set("mode", "ro")
	db, err := sql.Open("sqlite", "file:"+live+"?"+q.Encode())
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO "+sqlQuote(out)); err != nil {
		return err
	}
	return os.Chmod(out, 0o600)
}

func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
