package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The copy of a whole store from one place to another (`openclaw store
// copy`): SQLite to PostgreSQL, back, or file to file. Both ends must have
// the schema this binary knows, at the same versions; the rows of every
// component's tables go over in one transaction on the target, in an
// order that satisfies the foreign keys. What each engine derives from the
// rows (FTS5 tables on SQLite, generated tsvector columns on PostgreSQL)
// is not copied but derived again on the target.

// CopyOptions says how Copy runs.
type CopyOptions struct {
	// Migrations are the schemas this binary knows (every component's):
	// a source or target recording a newer version, or a component not
	// among them, is refused.
	Migrations []Migrations
	// Replace empties the target's tables first; without it a target
	// holding rows in any of them is refused.
	Replace bool
	// DryRun does the whole copy and rolls it back.
	DryRun bool
}

// TableCount is one table's copied rows.
type TableCount struct {
	Table string `json:"table"`
	Rows  int64  `json:"rows"`
}

// Report is what Copy did (or, in a dry run, would do).
type Report struct {
	From   string       `json:"from"`
	To     string       `json:"to"`
	Tables []TableCount `json:"tables"`
	// Skipped are tables of the source that are none of the known
	// components' (WhatsApp's device store, written by its library).
	Skipped []string `json:"skipped,omitempty"`
	DryRun  bool     `json:"dryRun,omitempty"`
}

// Rows is the number of rows copied in all.
func (r Report) Rows() int64 {
	var n int64
	for _, t := range r.Tables {
		n += t.Rows
	}
	return n
}

// ErrTargetNotEmpty is Copy's refusal of a target that holds rows.
var ErrTargetNotEmpty = errors.New("the target already holds rows")

// tableInfo is one table as the copy sees it.
type tableInfo struct {
	name string
	// cols are the columns that hold data (not generated).
	cols []string
	// identity are PostgreSQL identity columns, whose sequences follow
	// the explicit ids inserted.
	identity []string
	// refs are the tables its foreign keys name.
	refs []string
	// rowid says a SQLite table has the implicit rowid (not WITHOUT ROWID).
	rowid bool
}

// schema is a store's tables, and its FTS5 tables to rebuild (SQLite).
type schema struct {
	tables map[string]*tableInfo
	fts    []string
}

// Copy copies every row of every known component's tables from one store
// to another. It never writes from: a PostgreSQL source is read in one
// read-only transaction; a SQLite source should be a snapshot
// (SnapshotSQLite) or a file no gateway has open. to must be opened with
// opts.Migrations applied.
func Copy(ctx context.Context, from, to *Store, opts CopyOptions) (Report, error) {
	rep := Report{From: from.Path, To: to.Path, DryRun: opts.DryRun}
	if from.Driver == to.Driver && from.Path == to.Path {
		return rep, fmt.Errorf("store copy: %s is both the source and the target", from.Path)
	}
	known, err := latestVersions(opts.Migrations)
	if err != nil {
		return rep, err
	}
	if err := checkVersions(ctx, from, known, "source"); err != nil {
		return rep, err
	}
	if err := checkVersions(ctx, to, known, "target"); err != nil {
		return rep, err
	}
	var src querier = from.DB
	if from.Postgres() {
		// One snapshot of the whole source, and no way to write it.
		tx, err := from.DB.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead})
		if err != nil {
			return rep, fmt.Errorf("store copy: read %s: %w", from.Path, err)
		}
		defer tx.Rollback()
		src = tx
	}
	srcSchema, err := readSchema(ctx, src, from.Postgres())
	if err != nil {
		return rep, fmt.Errorf("store copy: read the tables of %s: %w", from.Path, err)
	}
	dstSchema, err := readSchema(ctx, to.DB, to.Postgres())
	if err != nil {
		return rep, fmt.Errorf("store copy: read the tables of %s: %w", to.Path, err)
	}
	// Only the components' own tables: a shared database (or a target
	// file) may hold others, which the copy neither counts nor empties.
	own, err := ownTables(ctx, opts.Migrations)
	if err != nil {
		return rep, err
	}
	for name := range dstSchema.tables {
		if !own[name] {
			delete(dstSchema.tables, name)
		}
	}
	for name := range own {
		if _, ok := dstSchema.tables[name]; !ok {
			return rep, fmt.Errorf("store copy: the target %s has no table %s: open it with every component's migrations", to.Path, name)
		}
	}
	for name := range srcSchema.tables {
		if !own[name] {
			rep.Skipped = append(rep.Skipped, name)
		}
	}
	sort.Strings(rep.Skipped)
	order, err := fkOrder(dstSchema.tables)
	if err != nil {
		return rep, err
	}
	// What the target holds, before anything is written.
	if !opts.Replace {
		var full []string
		for _, name := range order {
			var n int64
			if err := to.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+quoteIdent(name)).Scan(&n); err != nil {
				return rep, fmt.Errorf("store copy: count %s in %s: %w", name, to.Path, err)
			}
			if n > 0 {
				full = append(full, fmt.Sprintf("%s (%d)", name, n))
			}
		}
		if len(full) > 0 {
			return rep, fmt.Errorf("store copy: %w: %s holds rows in %s; pass --replace to empty its tables first",
				ErrTargetNotEmpty, to.Path, strings.Join(full, ", "))
		}
	}
	tx, err := to.DB.BeginTx(ctx, nil)
	if err != nil {
		return rep, fmt.Errorf("store copy: begin on %s: %w", to.Path, err)
	}
	defer tx.Rollback()
	if opts.Replace {
		for i := len(order) - 1; i >= 0; i-- {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+quoteIdent(order[i])); err != nil {
				return rep, fmt.Errorf("store copy: empty %s in %s: %w", order[i], to.Path, err)
			}
		}
	}
	for _, name := range order {
		dst := dstSchema.tables[name]
		n, err := copyTable(ctx, src, tx, from, to, srcSchema.tables[name], dst)
		if err != nil {
			return rep, fmt.Errorf("store copy: table %s: %w", name, err)
		}
		rep.Tables = append(rep.Tables, TableCount{Table: name, Rows: n})
	}
	if to.Postgres() {
		// Explicit ids leave the identity sequences behind: the next
		// insert would take an id already there.
		for _, name := range order {
			for _, col := range dstSchema.tables[name].identity {
				q := `SELECT setval(pg_get_serial_sequence(?, ?), COALESCE((SELECT max(` + quoteIdent(col) + `) FROM ` + quoteIdent(name) + `), 0) + 1, false)`
				if _, err := tx.ExecContext(ctx, q, name, col); err != nil {
					return rep, fmt.Errorf("store copy: reset the sequence of %s.%s: %w", name, col, err)
				}
			}
		}
	} else {
		// The triggers kept the FTS5 indexes as the rows went in; a
		// rebuild makes them exactly the contents' whatever was there.
		for _, fts := range dstSchema.fts {
			if _, err := tx.ExecContext(ctx, `INSERT INTO `+quoteIdent(fts)+`(`+quoteIdent(fts)+`) VALUES ('rebuild')`); err != nil {
				return rep, fmt.Errorf("store copy: rebuild the search index %s: %w", fts, err)
			}
		}
	}
	if opts.DryRun {
		return rep, nil // the deferred rollback undoes it all
	}
	if err := tx.Commit(); err != nil {
		return rep, fmt.Errorf("store copy: commit on %s: %w", to.Path, err)
	}
	return rep, nil
}

// querier reads: a *sql.DB or a *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// copyTable copies one table's rows and returns how many. A table the
// source lacks (a component that creates its tables on first use and was
// never used there) has none.
func copyTable(ctx context.Context, src querier, tx *sql.Tx, from, to *Store, s, d *tableInfo) (int64, error) {
	if s == nil {
		return 0, nil
	}
	srcCols, dstCols, err := columnPairs(from, to, s, d)
	if err != nil {
		return 0, err
	}
	sel := `SELECT ` + strings.Join(srcCols, ", ") + ` FROM ` + quoteIdent(s.name)
	if !from.Postgres() && s.rowid {
		sel += ` ORDER BY rowid`
	} else if from.Postgres() && contains(s.cols, "rowid") {
		sel += ` ORDER BY rowid`
	}
	rows, err := src.QueryContext(ctx, sel)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", from.Path, err)
	}
	defer rows.Close()
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(dstCols)), ", ")
	ins, err := tx.PrepareContext(ctx, `INSERT INTO `+quoteIdent(d.name)+` (`+strings.Join(dstCols, ", ")+`) VALUES (`+marks+`)`)
	if err != nil {
		return 0, fmt.Errorf("prepare the insert on %s: %w", to.Path, err)
	}
	defer ins.Close()
	vals := make([]any, len(srcCols))
	ptrs := make([]any, len(srcCols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var n int64
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, fmt.Errorf("read %s: %w", from.Path, err)
		}
		if _, err := ins.ExecContext(ctx, vals...); err != nil {
			return n, fmt.Errorf("write row %d to %s: %w", n+1, to.Path, err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("read %s: %w", from.Path, err)
	}
	return n, nil
}

// columnPairs matches the source's columns with the target's. The one
// difference allowed is rowid: PostgreSQL declares it where SQLite has it
// implicitly, and it goes over as SQLite's own rowid.
func columnPairs(from, to *Store, s, d *tableInfo) (srcCols, dstCols []string, err error) {
	for _, c := range d.cols {
		switch {
		case contains(s.cols, c):
		case c == "rowid" && !from.Postgres() && s.rowid:
		default:
			return nil, nil, fmt.Errorf("the target has column %s, the source does not: the schemas differ", c)
		}
		srcCols = append(srcCols, quoteIdent(c))
		dstCols = append(dstCols, quoteIdent(c))
	}
	for _, c := range s.cols {
		if contains(d.cols, c) {
			continue
		}
		if c == "rowid" && !to.Postgres() && d.rowid {
			srcCols = append(srcCols, quoteIdent(c))
			dstCols = append(dstCols, "rowid")
			continue
		}
		return nil, nil, fmt.Errorf("the source has column %s, the target does not: the schemas differ", c)
	}
	return srcCols, dstCols, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// quoteIdent quotes a table or column name for either engine.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// readSchema lists a store's tables: the components' own, without
// schema_versions, SQLite's internal tables and the FTS5 tables (and
// their shadow tables), with the columns that hold data.
func readSchema(ctx context.Context, q querier, postgres bool) (*schema, error) {
	if postgres {
		return readPGSchema(ctx, q)
	}
	return readSQLiteSchema(ctx, q)
}

func readSQLiteSchema(ctx context.Context, q querier) (*schema, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, COALESCE(sql, '') FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	type entry struct{ name, sql string }
	var all []entry
	for rows.Next() {
		var e entry
		if err := rows.Scan(&e.name, &e.sql); err != nil {
			rows.Close()
			return nil, err
		}
		all = append(all, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sc := &schema{tables: map[string]*tableInfo{}}
	shadow := map[string]bool{}
	for _, e := range all {
		up := strings.ToUpper(e.sql)
		if strings.HasPrefix(up, "CREATE VIRTUAL TABLE") {
			if strings.Contains(strings.ToLower(e.sql), "using fts5") {
				sc.fts = append(sc.fts, e.name)
			}
			for _, suf := range []string{"_data", "_idx", "_content", "_docsize", "_config"} {
				shadow[e.name+suf] = true
			}
		}
	}
	for _, e := range all {
		if e.name == "schema_versions" || strings.HasPrefix(e.name, "sqlite_") || shadow[e.name] ||
			strings.HasPrefix(strings.ToUpper(e.sql), "CREATE VIRTUAL TABLE") {
			continue
		}
		t := &tableInfo{name: e.name, rowid: !strings.Contains(strings.ToUpper(e.sql), "WITHOUT ROWID")}
		cols, err := q.QueryContext(ctx, `SELECT name, hidden FROM pragma_table_xinfo(?)`, e.name)
		if err != nil {
			return nil, err
		}
		for cols.Next() {
			var name string
			var hidden int
			if err := cols.Scan(&name, &hidden); err != nil {
				cols.Close()
				return nil, err
			}
			if hidden == 0 { // 2 and 3 are generated columns
				t.cols = append(t.cols, name)
			}
		}
		cols.Close()
		if err := cols.Err(); err != nil {
			return nil, err
		}
		fks, err := q.QueryContext(ctx, `SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)`, e.name)
		if err != nil {
			return nil, err
		}
		for fks.Next() {
			var ref string
			if err := fks.Scan(&ref); err != nil {
				fks.Close()
				return nil, err
			}
			t.refs = append(t.refs, ref)
		}
		fks.Close()
		if err := fks.Err(); err != nil {
			return nil, err
		}
		sc.tables[e.name] = t
	}
	return sc, nil
}

func readPGSchema(ctx context.Context, q querier) (*schema, error) {
	sc := &schema{tables: map[string]*tableInfo{}}
	rows, err := q.QueryContext(ctx, `SELECT c.table_name, c.column_name, c.is_generated, c.is_identity
		FROM information_schema.columns c JOIN information_schema.tables t
		ON t.table_schema = c.table_schema AND t.table_name = c.table_name
		WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
		ORDER BY c.table_name, c.ordinal_position`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var table, col, generated, identity string
		if err := rows.Scan(&table, &col, &generated, &identity); err != nil {
			rows.Close()
			return nil, err
		}
		if table == "schema_versions" {
			continue
		}
		t := sc.tables[table]
		if t == nil {
			t = &tableInfo{name: table}
			sc.tables[table] = t
		}
		if generated != "NEVER" {
			continue // a tsvector the server derives from the row
		}
		t.cols = append(t.cols, col)
		if identity == "YES" {
			t.identity = append(t.identity, col)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	fks, err := q.QueryContext(ctx, `SELECT DISTINCT cl.relname, ref.relname FROM pg_constraint con
		JOIN pg_class cl ON cl.oid = con.conrelid JOIN pg_class ref ON ref.oid = con.confrelid
		JOIN pg_namespace n ON n.oid = cl.relnamespace
		WHERE con.contype = 'f' AND n.nspname = current_schema()`)
	if err != nil {
		return nil, err
	}
	defer fks.Close()
	for fks.Next() {
		var table, ref string
		if err := fks.Scan(&table, &ref); err != nil {
			return nil, err
		}
		if t := sc.tables[table]; t != nil {
			t.refs = append(t.refs, ref)
		}
	}
	return sc, fks.Err()
}

// fkOrder lists the tables so that every table comes after the tables its
// foreign keys name (by name otherwise, for a stable report).
func fkOrder(tables map[string]*tableInfo) ([]string, error) {
	names := make([]string, 0, len(tables))
	for n := range tables {
		names = append(names, n)
	}
	sort.Strings(names)
	var order []string
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(n string) error
	visit = func(n string) error {
		switch state[n] {
		case 1:
			return fmt.Errorf("store copy: the foreign keys of %s form a cycle", n)
		case 2:
			return nil
		}
		state[n] = 1
		t := tables[n]
		refs := append([]string(nil), t.refs...)
		sort.Strings(refs)
		for _, r := range refs {
			if r == n || tables[r] == nil {
				continue
			}
			if err := visit(r); err != nil {
				return err
			}
		}
		state[n] = 2
		order = append(order, n)
		return nil
	}
	for _, n := range names {
		if err := visit(n); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// latestVersions is each component's newest migration.
func latestVersions(migs []Migrations) (map[string]int, error) {
	out := map[string]int{}
	for _, m := range migs {
		entries, err := fs.ReadDir(m.FS, ".")
		if err != nil {
			return nil, fmt.Errorf("read %s migrations: %w", m.Component, err)
		}
		v := 0
		for _, e := range entries {
			num, _, ok := strings.Cut(e.Name(), "_")
			if n, err := strconv.Atoi(num); ok && err == nil && strings.HasSuffix(e.Name(), ".sql") && n > v {
				v = n
			}
		}
		out[m.Component] = max(out[m.Component], v)
	}
	return out, nil
}

// checkVersions refuses a store whose schema this binary does not know
// (newer versions, or components it has never heard of), and one whose
// schema is older than this binary's: the tables would not match.
func checkVersions(ctx context.Context, s *Store, known map[string]int, role string) error {
	rows, err := s.DB.QueryContext(ctx, `SELECT component, MAX(version) FROM schema_versions GROUP BY component ORDER BY component`)
	if err != nil {
		return fmt.Errorf("store copy: the %s %s has no openclaw schema (%v)", role, s.Path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var comp string
		var v int
		if err := rows.Scan(&comp, &v); err != nil {
			return err
		}
		k, ok := known[comp]
		switch {
		case !ok:
			return fmt.Errorf("store copy: the %s %s has tables of component %q, which this openclaw does not know: it was written by a newer version; copy it with that version", role, s.Path, comp)
		case v > k:
			return fmt.Errorf("store copy: the %s %s has the %s schema at version %d, newer than this openclaw's %d: copy it with the version that wrote it", role, s.Path, comp, v, k)
		case v < k:
			return fmt.Errorf("store copy: the %s %s has the %s schema at version %d, older than this openclaw's %d: let this version's gateway open it once to migrate it, then copy", role, s.Path, comp, v, k)
		}
	}
	return rows.Err()
}

// SnapshotSQLite writes a consistent copy of the SQLite database at src
// to dst (which must not exist) with VACUUM INTO, over a read-only
// connection: the source is never written. store copy migrates the
// snapshot, not the source, when the source's schema is behind.
func SnapshotSQLite(ctx context.Context, src, dst string) error {
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("no database at %s: %w", src, err)
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "busy_timeout(5000)")
	db, err := sql.Open("sqlite", "file:"+src+"?"+q.Encode())
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, dst); err != nil {
		return fmt.Errorf("snapshot %s: %w", src, err)
	}
	return os.Chmod(dst, 0o600)
}

// OpenCopySource opens place as Copy's source without writing it. A
// PostgreSQL database is opened as it is (its schema must be this
// binary's). A SQLite file is snapshotted into a temporary folder and the
// snapshot migrated, so a file a version or two behind copies too; the
// store's Path still names the file. close closes it and removes the
// snapshot.
func OpenCopySource(ctx context.Context, place string, migs ...Migrations) (st *Store, close func(), err error) {
	if IsURL(place) {
		st, err := openPostgres(ctx, place)
		if err != nil {
			return nil, nil, err
		}
		return st, func() { st.Close() }, nil
	}
	if _, err := os.Stat(place); err != nil {
		return nil, nil, fmt.Errorf("no database at %s: %w", place, err)
	}
	if err := isOpenClawDB(ctx, place); err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", "openclaw-store-copy-")
	if err != nil {
		return nil, nil, err
	}
	snap := filepath.Join(dir, FileName)
	if err := SnapshotSQLite(ctx, place, snap); err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	st, err = Open(ctx, snap, migs...)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	st.Path = place
	return st, func() { st.Close(); os.RemoveAll(dir) }, nil
}

// ownTables names the tables the migrations create, from a scratch SQLite
// database they are applied to (the .postgres.sql variants create the
// same tables).
func ownTables(ctx context.Context, migs []Migrations) (map[string]bool, error) {
	dir, err := os.MkdirTemp("", "openclaw-store-schema-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	st, err := Open(ctx, filepath.Join(dir, FileName), migs...)
	if err != nil {
		return nil, fmt.Errorf("store copy: the schema this openclaw knows: %w", err)
	}
	defer st.Close()
	sc, err := readSQLiteSchema(ctx, st.DB)
	if err != nil {
		return nil, err
	}
	own := map[string]bool{}
	for name := range sc.tables {
		own[name] = true
	}
	return own, nil
}

// isOpenClawDB refuses a SQLite file that is not a gateway's database
// (no schema_versions table), over a read-only connection: migrating its
// snapshot would make it look like an empty one.
func isOpenClawDB(ctx context.Context, path string) error {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "busy_timeout(5000)")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return err
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_versions'`).Scan(&n); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if n == 0 {
		return fmt.Errorf("%s is not an openclaw database (it has no schema_versions table)", path)
	}
	return nil
}
