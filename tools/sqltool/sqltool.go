// Package sqltool holds MateClaw's database tools: DatasourceTool, which
// lists the operator's named connections and describes their tables, and
// SqlQueryTool, which runs one SQL statement against one of them.
//
// Only SQLite is built in (modernc.org/sqlite, no cgo). Datasources are
// read-only unless the operator says otherwise, and read-only is enforced
// by SQLite itself: the file is opened with mode=ro, the connection runs
// with PRAGMA query_only, and every statement is compiled under an
// authorizer that refuses writes, PRAGMA settings, ATTACH/DETACH and
// load_extension. Writes to a writable datasource, PRAGMA settings
// included, go through the gateway's Approver, the way exec asks for a
// person's approval. What one statement may cost is bounded by SQLite's
// own limits, a time limit and caps on the answer (see limits.go).
package sqltool

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
)

// DriverSQLite is the only driver built in.
const DriverSQLite = "sqlite"

// Datasource is one named connection the operator configured.
type Datasource struct {
	Name   string
	Driver string
	// DSN is a SQLite file path, optionally with query parameters. A
	// relative path lies inside the calling agent's workspace; an absolute
	// one is used as given. It is never shown to the model.
	DSN         string
	Description string
	// ReadOnly defaults to true when nil.
	ReadOnly *bool
}

// readOnly applies the default.
func (d Datasource) readOnly() bool { return d.ReadOnly == nil || *d.ReadOnly }

// Config wires the tools to the gateway.
type Config struct {
	Datasources []Datasource
	// Workspace maps a caller to its workspace directory; needed only when
	// a datasource has a relative DSN.
	Workspace func(who tools.Who) (string, error)
	// Approver asks a person before a write to a writable datasource; nil
	// refuses such writes, since nobody could approve them.
	Approver tools.Approver
	// QueryTimeout bounds one statement (not the approval wait). Default
	// tools.TimeoutFast.
	QueryTimeout time.Duration
}

// Tools validates cfg and returns DatasourceTool and SqlQueryTool, and the
// closer of the database handles they open; close it when the tools are
// unregistered.
func Tools(cfg Config) ([]tools.Tool, io.Closer, error) {
	if err := cfg.validate(); err != nil {
		return nil, nil, err
	}
	if cfg.QueryTimeout <= 0 {
		cfg.QueryTimeout = tools.TimeoutFast
	}
	p := &pools{cfg: cfg, dbs: map[string]*sql.DB{}}
	return []tools.Tool{newDatasourceTool(p), newQueryTool(p)}, p, nil
}

// validate refuses a configuration that could not work, naming the
// datasource at fault.
func (cfg Config) validate() error {
	seen := map[string]bool{}
	for i, d := range cfg.Datasources {
		name := strings.TrimSpace(d.Name)
		switch {
		case name == "":
			return fmt.Errorf("sqltool: datasource #%d has no name", i+1)
		case name != d.Name:
			return fmt.Errorf("sqltool: datasource %q: name has leading or trailing white space", d.Name)
		case seen[name]:
			return fmt.Errorf("sqltool: datasource %q is configured twice", name)
		case d.Driver != DriverSQLite:
			return fmt.Errorf("sqltool: datasource %q: unknown driver %q (only %q is built in)", name, d.Driver, DriverSQLite)
		case strings.TrimSpace(d.DSN) == "":
			return fmt.Errorf("sqltool: datasource %q: empty DSN", name)
		}
		if _, _, err := splitDSN(d.DSN); err != nil {
			return fmt.Errorf("sqltool: datasource %q: %w", name, err)
		}
		if !filepath.IsAbs(dsnPath(d.DSN)) && cfg.Workspace == nil {
			return fmt.Errorf("sqltool: datasource %q: relative DSN needs a workspace resolver", name)
		}
		seen[name] = true
	}
	return nil
}

// pools keeps one *sql.DB per datasource and resolved file, so that
// agents with different workspaces get different databases.
type pools struct {
	cfg Config

	mu     sync.Mutex
	dbs    map[string]*sql.DB
	closed bool
}

// find returns the named datasource or an error listing the known ones.
func (p *pools) find(name string) (Datasource, error) {
	for _, d := range p.cfg.Datasources {
		if d.Name == name {
			return d, nil
		}
	}
	known := make([]string, 0, len(p.cfg.Datasources))
	for _, d := range p.cfg.Datasources {
		known = append(known, d.Name)
	}
	slices.Sort(known)
	if len(known) == 0 {
		return Datasource{}, fmt.Errorf("unknown datasource %q (no datasources are configured)", name)
	}
	return Datasource{}, fmt.Errorf("unknown datasource %q (known: %s)", name, strings.Join(known, ", "))
}

// open returns the pool for d as seen by who.
func (p *pools) open(who tools.Who, d Datasource) (*sql.DB, error) {
	path, err := p.resolve(who, d)
	if err != nil {
		return nil, err
	}
	dsn, err := buildDSN(d, path)
	if err != nil {
		return nil, err
	}
	key := d.Name + "\x00" + path
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("datasource %q: the sql tools are closed", d.Name)
	}
	if db, ok := p.dbs[key]; ok {
		return db, nil
	}
	db, err := sql.Open(DriverSQLite, dsn)
	if err != nil {
		return nil, fmt.Errorf("datasource %q: open: %w", d.Name, err)
	}
	// A handful of connections is plenty for one agent's tool calls, and
	// idle ones are let go so files are not held open for long.
	db.SetMaxOpenConns(4)
	db.SetConnMaxIdleTime(5 * time.Minute)
	p.dbs[key] = db
	return db, nil
}

// Close closes every database handle; later calls fail.
func (p *pools) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	var errs []error
	for k, db := range p.dbs {
		if err := db.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close datasource %q: %w", strings.SplitN(k, "\x00", 2)[0], err))
		}
		delete(p.dbs, k)
	}
	return errors.Join(errs...)
}

// splitDSN splits a DSN into its file path and query, accepting both a
// plain path and a "file:" URI.
func splitDSN(dsn string) (path string, query url.Values, err error) {
	rest, _ := strings.CutPrefix(dsn, "file:")
	path, raw, _ := strings.Cut(rest, "?")
	if strings.HasPrefix(dsn, "file:") {
		if path, err = url.PathUnescape(path); err != nil {
			return "", nil, fmt.Errorf("DSN path: %w", err)
		}
		// file:///abs and file://localhost/abs name an absolute path.
		if after, ok := strings.CutPrefix(path, "//"); ok {
			host, p, _ := strings.Cut(after, "/")
			if host != "" && host != "localhost" {
				return "", nil, fmt.Errorf("DSN names host %q; only local files are supported", host)
			}
			path = "/" + p
		}
	}
	if path == "" || path == ":memory:" {
		return "", nil, errors.New("DSN names no database file")
	}
	if query, err = url.ParseQuery(raw); err != nil {
		return "", nil, fmt.Errorf("DSN query: %w", err)
	}
	return path, query, nil
}

// dsnPath is splitDSN's path, for checks that already know it parses.
func dsnPath(dsn string) string {
	p, _, _ := splitDSN(dsn)
	return p
}

// resolve gives d's database file for who: an absolute DSN as the
// operator wrote it, a relative one inside who's workspace. SQLite opens
// the file itself, outside any os.Root, so symlinks are resolved here and
// the real path must still be inside the workspace.
func (p *pools) resolve(who tools.Who, d Datasource) (string, error) {
	path := dsnPath(d.DSN)
	if filepath.IsAbs(path) {
		return filepath.Clean(path), nil
	}
	dir, err := p.cfg.Workspace(who)
	if err != nil {
		return "", fmt.Errorf("datasource %q: resolve workspace: %w", d.Name, err)
	}
	ws, err := fs.OpenWorkspace(dir)
	if err != nil {
		return "", fmt.Errorf("datasource %q: %w", d.Name, err)
	}
	defer ws.Close()
	rel, err := ws.Rel(path)
	if err != nil {
		return "", fmt.Errorf("datasource %q: %w", d.Name, err)
	}
	abs := filepath.Join(dir, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(abs)
	switch {
	case err == nil:
	case errors.Is(err, os.ErrNotExist) && !d.readOnly():
		// A writable database may be created; its directory must exist
		// and be inside the workspace.
		parent, perr := filepath.EvalSymlinks(filepath.Dir(abs))
		if perr != nil {
			return "", fmt.Errorf("datasource %q: directory of %s: %w", d.Name, rel, perr)
		}
		real = filepath.Join(parent, filepath.Base(abs))
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("datasource %q: database file %s does not exist in the workspace", d.Name, rel)
	default:
		return "", fmt.Errorf("datasource %q: resolve %s: %w", d.Name, rel, err)
	}
	if _, err := ws.Rel(real); err != nil {
		return "", fmt.Errorf("datasource %q: %s leads outside the workspace: %w", d.Name, rel, err)
	}
	// SQLite opens the file by path, so a hard link to a database
	// elsewhere (the gateway's own, say) is refused here.
	if fi, err := os.Stat(real); err == nil {
		if err := fs.CheckLinks(fi); err != nil {
			return "", fmt.Errorf("datasource %q: %s: %w", d.Name, rel, err)
		}
	}
	return real, nil
}

// buildDSN makes the driver DSN for the file at path. Read-only sources
// get mode=ro (SQLite opens the file read-only, so no write can reach it
// whatever the SQL) and query_only, which the driver applies last on every
// new connection; writable ones get mode=rwc.
func buildDSN(d Datasource, path string) (string, error) {
	_, q, err := splitDSN(d.DSN)
	if err != nil {
		return "", fmt.Errorf("datasource %q: %w", d.Name, err)
	}
	// The operator's own protections must not be able to undo ours.
	q.Del("_query_only")
	q.Del("immutable")
	if d.readOnly() {
		q.Set("mode", "ro")
		pr := slices.DeleteFunc(q["_pragma"], func(v string) bool {
			return strings.Contains(strings.ToLower(v), "query_only")
		})
		q["_pragma"] = append(pr, "query_only(1)")
	} else {
		q.Set("mode", "rwc")
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	// url.URL writes "file:///abs"; SQLite reads that as the absolute path.
	return u.String(), nil
}

// conn borrows one connection from db, sets the call's SQLite limits (see
// setLimits) and installs a fresh authorizer on it, so that this call's
// statement, and only it, is judged by this call's policy. The caller
// closes the connection.
func conn(ctx context.Context, db *sql.DB, d Datasource) (*sql.Conn, *authorizer, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("datasource %q: connect: %w", d.Name, err)
	}
	if err := setLimits(c, maxValueBytes); err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("datasource %q: set limits: %w", d.Name, err)
	}
	a := &authorizer{ds: d.Name, readOnly: d.readOnly()}
	err = c.Raw(func(dc any) error {
		r, ok := dc.(sqlite.AuthorizerRegisterer)
		if !ok {
			return errors.New("the driver cannot install an authorizer")
		}
		return r.RegisterAuthorizer(a.check)
	})
	if err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("datasource %q: install authorizer: %w", d.Name, err)
	}
	return c, a, nil
}
