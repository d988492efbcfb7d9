package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Drivers, as the config's store.driver names them.
const (
	DriverSQLite   = "sqlite"
	DriverPostgres = "postgres"
)

// pgDriverName is the database/sql driver that speaks to PostgreSQL
// through pgx, with every statement rewritten from SQLite's dialect. It
// is built in with the postgres build tag (postgres_pgx.go), which keeps
// pgx out of the release binary until the store config key ships.
const pgDriverName = "openclaw-postgres"

// pgDriverValue is the registered driver; nil in a build without it.
var pgDriverValue driver.Driver

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
		return nil, errors.New("store.driver postgres: this build has no PostgreSQL support (build with -tags postgres)")
	}
	if url == "" {
		return nil, errors.New("store.url is empty: give the postgres:// URL of the database")
	}
	db, err := sql.Open(pgDriverName, url)
	if err != nil {
		return nil, fmt.Errorf("open postgres database: %w", err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open postgres database %s: %w", redactURL(url), err)
	}
	db.SetMaxIdleConns(16)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return &Store{DB: db, Path: redactURL(url), Driver: DriverPostgres}, nil
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
