package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Drivers, as the config's store.driver names them.
const (
	DriverSQLite   = "sqlite"
	DriverPostgres = "postgres"
)

// pgDriverName is the database/sql driver that speaks to PostgreSQL
// through pgx, with every statement rewritten from SQLite's dialect. It
// is built in with the postgres build tag (postgres_pgx.go): pgx's 3.8
// MiB would take the release binary past its 40 MiB budget, and only a
// gateway that shares a database needs it.
const pgDriverName = "openclaw-postgres"

// pgVerbatimDriver is pgx's own database/sql driver, registered with it:
// statements as written (Verbatim).
const pgVerbatimDriver = "pgx"

// pgDriverValue is the registered driver; nil in a build without it.
var pgDriverValue driver.Driver

// pgConnector opens connections to url whose write transactions check
// fence (see Lease); set by the build with the driver.
var pgConnector func(url string, fence *atomic.Int64) (driver.Connector, error)

// OpenPostgres opens the gateway's database on a PostgreSQL server
// (url is a postgres:// URL or a key=value DSN) and applies the
// migrations, as Open does for SQLite.
func OpenPostgres(ctx context.Context, url string, migs ...Migrations) (*Store, error) {
	s, err := openPostgres(ctx, url)
	if err != nil {
		return nil, err
	}
	if err := s.Migrate(ctx, migs...); err != nil {
		s.DB.Close()
		return nil, err
	}
	return s, nil
}

// openPostgres connects without touching the schema (store copy reads a
// source it must not write).
func openPostgres(ctx context.Context, url string) (*Store, error) {
	if pgDriverValue == nil {
		return nil, errors.New("store.driver postgres: this build has no PostgreSQL support (build with -tags postgres; scripts/gateway.sh does with OPENCLAW_TAGS=postgres)")
	}
	if url == "" {
		return nil, errors.New("store.url is empty: give the postgres:// URL of the database")
	}
	fence := new(atomic.Int64)
	conn, err := pgConnector(url, fence)
	if err != nil {
		return nil, fmt.Errorf("open postgres database %s: %w", redactURL(url), err)
	}
	db := sql.OpenDB(conn)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open postgres database %s: %w", redactURL(url), err)
	}
	db.SetMaxIdleConns(16)
	db.SetConnMaxIdleTime(5 * time.Minute)
	pgURLs.Store(db, url)
	return &Store{DB: db, Path: redactURL(url), Driver: DriverPostgres, fence: fence}, nil
}

// pgURLs is the URL each open PostgreSQL store was opened with, for its
// verbatim pool (Verbatim).
var pgURLs sync.Map // *sql.DB -> string

// verbatimDBs are the verbatim pools opened so far, closed with their
// store.
var (
	verbatimMu  sync.Mutex
	verbatimDBs = map[*sql.DB]*sql.DB{}
)

// Verbatim is, for a store opened by OpenPostgres, a second pool on the
// same database whose statements reach the server as they are written,
// not rewritten from SQLite's dialect: for a library that speaks
// PostgreSQL itself (whatsmeow's device store). Its transactions do not
// take the writer lock. It is opened once per store and closed with it.
func Verbatim(db *sql.DB) (*sql.DB, error) {
	url, ok := pgURLs.Load(db)
	if !ok || !IsPostgres(db) {
		return nil, errors.New("store: a verbatim pool is for a store opened by OpenPostgres")
	}
	verbatimMu.Lock()
	defer verbatimMu.Unlock()
	if v := verbatimDBs[db]; v != nil {
		return v, nil
	}
	v, err := sql.Open(pgVerbatimDriver, url.(string))
	if err != nil {
		return nil, fmt.Errorf("open postgres database: %w", err)
	}
	verbatimDBs[db] = v
	return v, nil
}

// closeVerbatim closes db's verbatim pool, if it has one.
func closeVerbatim(db *sql.DB) {
	pgURLs.Delete(db)
	verbatimMu.Lock()
	v := verbatimDBs[db]
	delete(verbatimDBs, db)
	verbatimMu.Unlock()
	if v != nil {
		v.Close()
	}
}

// redactURL drops the password of a database URL, for errors and logs.
func redactURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return "(postgres DSN)"
	}
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return u
	}
	user, _, _ := strings.Cut(rest[:at], ":")
	return scheme + "://" + user + "@" + rest[at+1:]
}

// writerLock is the advisory lock every write transaction takes first.
// SQLite has one writer at a time, and the components count on it: a
// transaction that reads and then writes (a pairing, a queue claim) sees
// no other writer's rows appear in between. On PostgreSQL the same
// holds only with that lock held to the transaction's end.
const writerLock = "SELECT pg_advisory_xact_lock(7366029)"

// fenceCheck reads the lease's epoch inside a write transaction, after
// the writer lock: a gateway whose lease a standby took (which bumps the
// epoch under the same lock) sees a newer epoch and commits nothing.
const fenceCheck = "SELECT epoch FROM store_lease WHERE id = 1"

// ErrFenced is the error of a write transaction begun by a gateway that
// is no longer the active one.
var ErrFenced = errors.New("store: this gateway lost its lease to another gateway; it may no longer write")

// IsPostgres says whether db is a store opened by OpenPostgres, for a
// component that writes a statement per engine (full-text search).
func IsPostgres(db *sql.DB) bool {
	return pgDriverValue != nil && db.Driver() == pgDriverValue
}

// TSQuery turns the FTS5 expressions the components build (quoted terms
// joined by AND or OR, see memory's matchExpr and wiki.MatchExpr) into
// PostgreSQL's to_tsquery syntax, each term a quoted lexeme.
func TSQuery(match string) string {
	var b strings.Builder
	for i := 0; i < len(match); {
		switch {
		case match[i] == '"':
			j := i + 1
			var term strings.Builder
			for j < len(match) {
				if match[j] == '"' {
					if j+1 < len(match) && match[j+1] == '"' {
						term.WriteByte('"')
						j += 2
						continue
					}
					break
				}
				term.WriteByte(match[j])
				j++
			}
			t := strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(term.String())
			b.WriteString("'" + t + "'")
			i = j + 1
		case strings.HasPrefix(match[i:], " AND "):
			b.WriteString(" & ")
			i += 5
		case strings.HasPrefix(match[i:], " OR "):
			b.WriteString(" | ")
			i += 4
		default:
			i++ // nothing else is in the expressions built here
		}
	}
	return b.String()
}

// The letters PGFold folds, for full-text search that ignores case and
// the common Latin diacritics, as FTS5's unicode61 remove_diacritics
// does (PostgreSQL's unaccent is an extension a database may not have).
// The components' .postgres.sql migrations spell the same expression.
const (
	pgFoldFrom = "àáâãäåāăąèéêëēĕėęěìíîïĩīĭįòóôõöøōŏőùúûüũūŭůűųñńňçćčďđğģķĺļľłśşšţťýÿźżž"
	pgFoldTo   = "aaaaaaaaaeeeeeeeeeiiiiiiiioooooooooouuuuuuuuuunnncccddggklllsssttyyzzz"
)

// PGFold is the SQL expression of expr lower-cased with its diacritics
// folded.
func PGFold(expr string) string {
	return "translate(lower(" + expr + "), '" + pgFoldFrom + "', '" + pgFoldTo + "')"
}
