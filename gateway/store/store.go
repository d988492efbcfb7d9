// Package store opens the gateway's one SQLite database and runs each
// component's numbered migrations.
//
// Every component owns its tables: it hands Open a Migrations value (a
// component name and an fs.FS of files named NNN_description.sql) and the
// store applies the ones not yet recorded in the schema_versions table, each
// in its own transaction. The database runs in WAL mode with foreign keys
// on and a busy timeout, through modernc.org/sqlite (no cgo).
//
// A *Store is safe for concurrent use; it wraps one *sql.DB.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// FileName is the database file inside the state directory.
const FileName = "openclaw.sqlite"

// Store is the gateway's database.
type Store struct {
	DB *sql.DB
	// Path is the SQLite file, or the PostgreSQL URL without its password.
	Path string
	// Driver is DriverSQLite (also "") or DriverPostgres.
	Driver string

	// fence is the lease epoch every PostgreSQL write transaction must
	// find (0: none yet, nothing checked); the Lease sets it.
	fence *atomic.Int64
}

// Postgres says the store is on PostgreSQL, for the few statements a
// component writes per engine.
func (s *Store) Postgres() bool { return s.Driver == DriverPostgres }

// Migrations is one component's schema history.
type Migrations struct {
	// Component names the owner; versions are counted per component.
	Component string
	// FS holds files named like 001_devices.sql at its root.
	FS fs.FS
}

// Open opens (creating if needed) the database at path with mode 0600 and
// applies the given migrations in order.
func Open(ctx context.Context, path string, migs ...Migrations) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create state dir: %w", err)
	}
	if _, err := os.Stat(path); os.IsNotExist(err) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, fmt.Errorf("create database %s: %w", path, err)
		}
		f.Close()
	}
	q := url.Values{}
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// Every transaction here writes. A deferred one that reads first and
	// then writes cannot wait for the lock: if another connection committed
	// in between, SQLite answers SQLITE_BUSY at once, busy_timeout or not.
	// Taking the write lock at BEGIN makes such a transaction queue instead.
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	// Opening a connection parses the schema again; with the default of two
	// idle connections, a burst of concurrent work (channel lanes, tool
	// calls) would open and close connections all the time.
	db.SetMaxIdleConns(16)
	db.SetConnMaxIdleTime(5 * time.Minute)
	s := &Store{DB: db, Path: path}
	if err := s.Migrate(ctx, migs...); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the database (and its verbatim pool, see Verbatim).
func (s *Store) Close() error {
	closeVerbatim(s.DB)
	return s.DB.Close()
}

// Migrate applies the migrations not yet applied. It is idempotent.
func (s *Store) Migrate(ctx context.Context, migs ...Migrations) error {
	if s.Postgres() {
		// Gateways that start together on one database take turns: each
		// reads the versions only once the one before has applied its.
		c, err := s.DB.Conn(ctx)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		defer c.Close()
		if _, err := c.ExecContext(ctx, `SELECT pg_advisory_lock(?)`, migrateLock); err != nil {
			return fmt.Errorf("migrate: take the migration lock: %w", err)
		}
		defer c.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(?)`, migrateLock)
		if _, err := s.DB.ExecContext(ctx, leaseTable); err != nil {
			return fmt.Errorf("create store_lease: %w", err)
		}
	}
	if _, err := s.DB.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_versions (
		component TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL,
		applied_at INTEGER NOT NULL DEFAULT (unixepoch()), PRIMARY KEY (component, version))`); err != nil {
		return fmt.Errorf("create schema_versions: %w", err)
	}
	for _, m := range migs {
		if err := s.migrateOne(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

type migrationFile struct {
	version int
	name    string
}

func (s *Store) migrateOne(ctx context.Context, m Migrations) error {
	entries, err := fs.ReadDir(m.FS, ".")
	if err != nil {
		return fmt.Errorf("read %s migrations: %w", m.Component, err)
	}
	var files []migrationFile
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		// NNN_x.postgres.sql is NNN_x.sql as PostgreSQL needs it written
		// (an FTS5 table becomes a tsvector index).
		if base, pg := strings.CutSuffix(e.Name(), ".postgres.sql"); pg {
			if !s.Postgres() {
				continue
			}
			if !names[base+".sql"] {
				return fmt.Errorf("%s migration %q has no %s.sql beside it", m.Component, e.Name(), base)
			}
		} else if s.Postgres() && names[strings.TrimSuffix(e.Name(), ".sql")+".postgres.sql"] {
			continue
		}
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return fmt.Errorf("%s migration %q: name must start with a positive number and '_'", m.Component, e.Name())
		}
		files = append(files, migrationFile{v, e.Name()})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].version < files[j].version })
	for i := 1; i < len(files); i++ {
		if files[i].version == files[i-1].version {
			return fmt.Errorf("%s migrations %q and %q share version %d", m.Component, files[i-1].name, files[i].name, files[i].version)
		}
	}
	var current int
	if err := s.DB.QueryRowContext(ctx, `SELECT COALESCE(MAX(version),0) FROM schema_versions WHERE component=?`, m.Component).Scan(&current); err != nil {
		return fmt.Errorf("read %s schema version: %w", m.Component, err)
	}
	for _, f := range files {
		if f.version <= current {
			continue
		}
		body, err := fs.ReadFile(m.FS, f.name)
		if err != nil {
			return fmt.Errorf("read %s migration %s: %w", m.Component, f.name, err)
		}
		if err := s.apply(ctx, m.Component, f, string(body)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) apply(ctx context.Context, component string, f migrationFile, body string) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("apply %s migration %s: %w", component, f.name, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, body); err != nil {
		return fmt.Errorf("apply %s migration %s: %w", component, f.name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_versions(component, version, name) VALUES (?,?,?)`, component, f.version, f.name); err != nil {
		return fmt.Errorf("record %s migration %s: %w", component, f.name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit %s migration %s: %w", component, f.name, err)
	}
	return nil
}

// Version returns the latest applied migration of a component (0 if none).
func (s *Store) Version(ctx context.Context, component string) (int, error) {
	var v int
	err := s.DB.QueryRowContext(ctx, `SELECT COALESCE(MAX(version),0) FROM schema_versions WHERE component=?`, component).Scan(&v)
	return v, err
}

// FromDir is a component's migrations kept in a folder of an embedded
// file system, such as `//go:embed migrations/*.sql`.
func FromDir(component string, fsys fs.FS, dir string) Migrations {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(fmt.Sprintf("store: migrations of %s: %v", component, err)) // a wiring bug, found by any test
	}
	return Migrations{Component: component, FS: sub}
}

// IntegrityCheck runs PRAGMA integrity_check on the database at path over a
// read-only connection and returns its complaints (none when it answers
// "ok"). It never writes, so it is safe on a live gateway's database and
// on a copy inside an archive being verified.
func IntegrityCheck(ctx context.Context, path string) ([]string, error) {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "query_only(1)")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check(20)")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, err
		}
		if line != "ok" {
			out = append(out, line)
		}
	}
	return out, rows.Err()
}
