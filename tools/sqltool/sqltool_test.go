package sqltool

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// fakeApprover records requests and answers with allow.
type fakeApprover struct {
	allow bool
	mu    sync.Mutex
	reqs  []tools.ApprovalRequest
}

func (f *fakeApprover) Approve(_ context.Context, r tools.ApprovalRequest) (bool, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, r)
	return f.allow, "ap-1", nil
}

func (f *fakeApprover) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

// makeDB writes a small SQLite database at path.
func makeDB(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, born DATETIME, avatar BLOB)`,
		`CREATE VIEW names AS SELECT name FROM users`,
		`INSERT INTO users (name, born, avatar) VALUES ('ann', '2001-02-03T04:05:06Z', x'00ff10'), ('bob', NULL, 'hi')`,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 1500) INSERT INTO users (name) SELECT 'u' || i FROM n`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func ptr[T any](v T) *T { return &v }

type env struct {
	ws, abs   string
	ap        *fakeApprover
	ds, query tools.Tool
	closer    interface{ Close() error }
}

// setup makes a workspace with data.db (read-only source "ro", relative
// DSN), an operator file outside it (writable source "rw", absolute DSN),
// and a writable workspace source "scratch"; opts change the Config.
func setup(t *testing.T, ap *fakeApprover, opts ...func(*Config)) *env {
	t.Helper()
	ws := t.TempDir()
	makeDB(t, filepath.Join(ws, "data.db"))
	abs := filepath.Join(t.TempDir(), "ops.db")
	makeDB(t, abs)
	cfg := Config{
		Datasources: []Datasource{
			{Name: "ro", Driver: "sqlite", DSN: "data.db", Description: "app data"},
			{Name: "rw", Driver: "sqlite", DSN: abs + "?_pragma=busy_timeout(1000)", ReadOnly: ptr(false), Description: "secret-free"},
			{Name: "scratch", Driver: "sqlite", DSN: "file:scratch.db", ReadOnly: ptr(false)},
		},
		Workspace: func(tools.Who) (string, error) { return ws, nil },
	}
	if ap != nil {
		cfg.Approver = ap
	}
	for _, o := range opts {
		o(&cfg)
	}
	ts, closer, err := Tools(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closer.Close() })
	return &env{ws: ws, abs: abs, ap: ap, ds: ts[0], query: ts[1], closer: closer}
}

func call(t *testing.T, tl tools.Tool, args string) (string, error) {
	t.Helper()
	r, err := tl.Call(context.Background(), tools.Call{Args: json.RawMessage(args), Who: tools.Who{AgentID: "a1", RunID: "r1"}})
	if err == nil && r.IsError {
		return "", &resultErr{r.Text}
	}
	return r.Text, err
}

type resultErr struct{ s string }

func (e *resultErr) Error() string { return e.s }

func TestSpecs(t *testing.T) {
	e := setup(t, nil)
	if s := e.ds.Spec(); s.Name != "DatasourceTool" || s.Tier != tools.TierCore || s.Timeout != tools.TimeoutFast || s.Dangerous {
		t.Errorf("DatasourceTool spec %+v", s)
	}
	if s := e.query.Spec(); s.Name != "SqlQueryTool" || s.Source != tools.SourceCore || !s.Dangerous || s.Groups[0] != "group:sql" {
		t.Errorf("SqlQueryTool spec %+v", s)
	}
	if !strings.Contains(string(e.query.Spec().Parameters), `"maxRows"`) {
		t.Errorf("schema %s", e.query.Spec().Parameters)
	}
}

func TestDatasourceTool(t *testing.T) {
	e := setup(t, nil)
	tests := []struct {
		name, args string
		want       []string // substrings of the answer
		wantErr    string
		notWant    []string
	}{
		{"list", `{"action":"list"}`,
			[]string{`{"name":"ro","driver":"sqlite","readOnly":true,"description":"app data"}`, `"name":"rw","driver":"sqlite","readOnly":false`, `"name":"scratch"`},
			"", []string{"data.db", "ops.db", "busy_timeout", "scratch.db", "DSN", "dsn"}},
		{"tables", `{"action":"describe","name":"ro"}`,
			[]string{`[{"name":"names","type":"view"},{"name":"users","type":"table"}]`}, "", []string{"sqlite_"}},
		{"columns", `{"action":"describe","name":"rw","table":"users"}`,
			[]string{`{"name":"id","type":"INTEGER","notnull":false,"pk":1}`, `{"name":"name","type":"TEXT","notnull":true,"pk":0}`, `{"name":"avatar","type":"BLOB"`}, "", nil},
		{"view columns", `{"action":"describe","name":"ro","table":"names"}`, []string{`"name":"name"`}, "", nil},
		{"no table", `{"action":"describe","name":"ro","table":"nope"}`, nil, `datasource "ro" has no table or view "nope"`, nil},
		{"no name", `{"action":"describe"}`, nil, "needs the datasource name", nil},
		{"unknown", `{"action":"describe","name":"prod"}`, nil, `unknown datasource "prod" (known: ro, rw, scratch)`, nil},
		{"bad action", `{"action":"drop"}`, nil, `unknown action "drop"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := call(t, e.ds, tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s\nmissing %s", got, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("%s\nmust not contain %s", got, w)
				}
			}
		})
	}
}

func TestQueries(t *testing.T) {
	e := setup(t, &fakeApprover{allow: true})
	tests := []struct {
		name, args string
		want       string // exact JSON answer, or a prefix ending in "…"
		wantErr    string
	}{
		{"params", `{"datasource":"ro","sql":"SELECT id, name FROM users WHERE name = ? OR id = ? ORDER BY id","params":["bob",1]}`,
			`{"columns":["id","name"],"rows":[[1,"ann"],[2,"bob"]],"rowCount":2,"truncated":false}`, ""},
		{"values", `{"datasource":"ro","sql":"SELECT avatar, born, 1.5, NULL, ? FROM users WHERE id < 3 ORDER BY id;","params":[true]}`,
			`{"columns":["avatar","born","1.5","NULL","?"],"rows":[[{"base64":"AP8Q"},"2001-02-03T04:05:06Z",1.5,null,1],["hi",null,1.5,null,1]],"rowCount":2,"truncated":false}`, ""},
		{"default maxRows", `{"datasource":"ro","sql":"SELECT id FROM users"}`, "…", ""},
		{"maxRows", `{"datasource":"ro","sql":"SELECT id FROM users ORDER BY id","maxRows":2}`,
			`{"columns":["id"],"rows":[[1],[2]],"rowCount":2,"truncated":true,"truncatedReason":"there are more rows than maxRows (2); narrow the query with WHERE, or page with LIMIT and OFFSET"}`, ""},
		{"exact maxRows not truncated", `{"datasource":"ro","sql":"SELECT id FROM users WHERE id <= 2 ORDER BY id","maxRows":2}`,
			`{"columns":["id"],"rows":[[1],[2]],"rowCount":2,"truncated":false}`, ""},
		{"negative maxRows", `{"datasource":"ro","sql":"SELECT 1","maxRows":-1}`, "", "maxRows must not be negative"},
		{"pragma read", `{"datasource":"ro","sql":"PRAGMA table_info(users)"}`, `{"columns":["cid","name","type","notnull","dflt_value","pk"]…`, ""},
		{"bad param", `{"datasource":"ro","sql":"SELECT ?","params":[[1]]}`, "", "params[0] must be a string, number, boolean or null"},
		{"unknown", `{"datasource":"prod","sql":"SELECT 1"}`, "", `unknown datasource "prod" (known: ro, rw, scratch)`},
		{"bad sql", `{"datasource":"ro","sql":"SELEC 1"}`, "", `near "SELEC": syntax error`},
		{"no table", `{"datasource":"ro","sql":"SELECT * FROM nope"}`, "", "no such table: nope"},
		{"empty", `{"datasource":"ro","sql":"  -- nothing\n"}`, "", "sql is empty"},
		{"two statements", `{"datasource":"ro","sql":"SELECT 1; SELECT 2"}`, "", "only one statement per call"},
		{"hidden second statement", `{"datasource":"rw","sql":"SELECT $a('x); DELETE FROM users; --'"}`, "", "only one statement per call"},
		{"semicolon in string ok", `{"datasource":"ro","sql":"SELECT 'a;b' AS s; -- done\n;"}`, `{"columns":["s"],"rows":[["a;b"]],"rowCount":1,"truncated":false}`, ""},
		{"write on read-only", `{"datasource":"ro","sql":"DELETE FROM users"}`, "", `datasource "ro" is read-only`},
		{"write via CTE on read-only", `{"datasource":"ro","sql":"WITH x AS (SELECT 1) INSERT INTO users(name) SELECT 'z' FROM x"}`, "", `datasource "ro" is read-only`},
		{"DDL on read-only", `{"datasource":"ro","sql":"CREATE TEMP TABLE t(x)"}`, "", `datasource "ro" is read-only`},
		{"attach read-only", `{"datasource":"ro","sql":"ATTACH DATABASE 'other.db' AS o"}`, "", "ATTACH and DETACH are not allowed"},
		{"attach writable", `{"datasource":"rw","sql":"ATTACH 'other.db' AS o"}`, "", "ATTACH and DETACH are not allowed"},
		{"detach", `{"datasource":"rw","sql":"DETACH o"}`, "", "not allowed"},
		{"load_extension", `{"datasource":"rw","sql":"SELECT load_extension('/tmp/x.so')"}`, "", "function load_extension is not allowed"},
		{"query_only off", `{"datasource":"ro","sql":"PRAGMA query_only = 0"}`, "", "PRAGMA query_only is not allowed"},
		{"writable_schema", `{"datasource":"rw","sql":"PRAGMA writable_schema=1"}`, "", "PRAGMA writable_schema is not allowed"},
		{"begin", `{"datasource":"rw","sql":"BEGIN"}`, "", "transactions are not supported"},
		{"vacuum into", `{"datasource":"ro","sql":"VACUUM INTO '/tmp/sqltool-vacuum-into-test.db'"}`, "", "VACUUM INTO is not allowed"},
		{"vacuum read-only", `{"datasource":"ro","sql":"vacuum"}`, "", `datasource "ro" is read-only`},
		{"vacuum writable", `{"datasource":"rw","sql":"VACUUM"}`, "", "VACUUM is not supported"},
		{"vacuum into writable", `{"datasource":"rw","sql":"vacuum main into ?","params":["/tmp/sqltool-vacuum-into-test.db"]}`, "", "VACUUM INTO is not allowed"},
		{"missing args", `{"datasource":"ro"}`, "", "missing required sql"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := call(t, e.query, tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %s, err %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p, ok := strings.CutSuffix(tt.want, "…"); ok {
				if !strings.HasPrefix(got, p) {
					t.Fatalf("got %.200s, want prefix %s", got, p)
				}
			} else if got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	if n := e.ap.count(); n != 0 {
		t.Errorf("%d approval requests for statements that were all refused or read-only", n)
	}
	var r QueryResult
	got, _ := call(t, e.query, `{"datasource":"ro","sql":"SELECT id FROM users"}`)
	if err := json.Unmarshal([]byte(got), &r); err != nil || r.RowCount != DefaultMaxRows || !r.Truncated {
		t.Errorf("default maxRows: %d rows, truncated %v, %v", r.RowCount, r.Truncated, err)
	}
	got, _ = call(t, e.query, `{"datasource":"ro","sql":"SELECT id FROM users","maxRows":5000}`)
	if err := json.Unmarshal([]byte(got), &r); err != nil || r.RowCount != MaxMaxRows || !r.Truncated {
		t.Errorf("capped maxRows: %d rows, truncated %v, %v", r.RowCount, r.Truncated, err)
	}
	got, _ = call(t, e.query, `{"datasource":"ro","sql":"SELECT id, printf('%.500c', 'x') FROM users","maxRows":1000}`)
	if err := json.Unmarshal([]byte(got), &r); err != nil || r.RowCount == 0 || r.RowCount > 30 || !r.Truncated || len(got) > 16_000 {
		t.Errorf("wide rows: %d rows in %d bytes, truncated %v, %v", r.RowCount, len(got), r.Truncated, err)
	}
	if _, err := os.Stat("/tmp/sqltool-vacuum-into-test.db"); err == nil {
		t.Errorf("VACUUM INTO wrote a file")
	}
}

// countUsers reopens the file on its own to see what really is in it.
func countUsers(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM users`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestReadOnlyFileUnchanged(t *testing.T) {
	e := setup(t, &fakeApprover{allow: true})
	path := filepath.Join(e.ws, "data.db")
	before, _ := os.ReadFile(path)
	for _, q := range []string{
		`DELETE FROM users`, `UPDATE users SET name = 'x'`, `DROP TABLE users`, `INSERT INTO users(name) VALUES ('y')`,
		`PRAGMA user_version = 7`, `REPLACE INTO users(id, name) VALUES (1, 'q')`, `ALTER TABLE users ADD COLUMN z`,
	} {
		args, _ := json.Marshal(QueryArgs{Datasource: "ro", SQL: q})
		if got, err := call(t, e.query, string(args)); err == nil {
			t.Errorf("%s: allowed: %s", q, got)
		} else if !strings.Contains(err.Error(), "read-only") {
			t.Errorf("%s: %v, want a read-only error", q, err)
		}
	}
	e.closer.Close()
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Errorf("read-only database file changed")
	}
	if n := countUsers(t, path); n != 1502 {
		t.Errorf("users = %d after refused writes", n)
	}
	if e.ap.count() != 0 {
		t.Errorf("approval asked for a read-only source")
	}
}

func TestWritesNeedApproval(t *testing.T) {
	tests := []struct {
		name    string
		ap      *fakeApprover
		wantErr string
		want    int // users in the file afterwards
	}{
		{"approved", &fakeApprover{allow: true}, "", 1503},
		{"denied", &fakeApprover{allow: false}, "the write was not approved", 1502},
		{"no approver", nil, "nobody can approve them here", 1502},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t, tt.ap)
			got, err := call(t, e.query, `{"datasource":"rw","sql":"INSERT INTO users(name) VALUES (?)","params":["zed"]}`)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %s, %v; want %q", got, err, tt.wantErr)
				}
			} else if err != nil || got != `{"rowsAffected":1}` {
				t.Fatalf("got %s, %v", got, err)
			}
			if tt.ap != nil {
				if len(tt.ap.reqs) != 1 {
					t.Fatalf("%d approval requests", len(tt.ap.reqs))
				}
				r := tt.ap.reqs[0]
				if r.Tool != "SqlQueryTool" || r.Who.AgentID != "a1" || !strings.Contains(string(r.Args), "INSERT INTO users") || !strings.Contains(r.Reason, `"rw"`) {
					t.Errorf("approval request %+v %s", r, r.Args)
				}
			}
			// Reads on the writable source need no approval.
			if _, err := call(t, e.query, `{"datasource":"rw","sql":"SELECT count(*) FROM users"}`); err != nil {
				t.Fatal(err)
			}
			if tt.ap != nil && len(tt.ap.reqs) != 1 {
				t.Errorf("a read asked for approval")
			}
			e.closer.Close()
			if n := countUsers(t, e.abs); n != tt.want {
				t.Errorf("users = %d, want %d", n, tt.want)
			}
		})
	}
}

func TestScratchCreatedInWorkspace(t *testing.T) {
	e := setup(t, &fakeApprover{allow: true})
	for _, q := range []string{`CREATE TABLE notes (body TEXT)`, `INSERT INTO notes VALUES ('a'), ('b')`} {
		args, _ := json.Marshal(QueryArgs{Datasource: "scratch", SQL: q})
		if _, err := call(t, e.query, string(args)); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := os.Stat(filepath.Join(e.ws, "scratch.db")); err != nil {
		t.Fatalf("scratch.db not in the workspace: %v", err)
	}
	if e.ap.count() != 2 {
		t.Errorf("%d approvals, want 2", e.ap.count())
	}
}

func TestWorkspaceEscapes(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	makeDB(t, filepath.Join(outside, "secret.db"))
	if err := os.Symlink(filepath.Join(outside, "secret.db"), filepath.Join(ws, "link.db")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "dir")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dsn string
		readOnly  bool
		wantErr   string
	}{
		{"dotdot", "../secret.db", true, "outside the workspace"},
		{"dotdot file uri", "file:../../secret.db?mode=rw", true, "outside the workspace"},
		{"symlink file", "link.db", true, "leads outside the workspace"},
		{"symlink dir for a new file", "dir/new.db", false, "leads outside the workspace"},
		{"missing read-only file", "absent.db", true, "does not exist in the workspace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, closer, err := Tools(Config{
				Datasources: []Datasource{{Name: "x", Driver: "sqlite", DSN: tt.dsn, ReadOnly: ptr(tt.readOnly)}},
				Workspace:   func(tools.Who) (string, error) { return ws, nil },
				Approver:    &fakeApprover{allow: true},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer closer.Close()
			_, err = call(t, ts[1], `{"datasource":"x","sql":"CREATE TABLE t(x)"}`)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), `datasource "x"`) {
				t.Fatalf("err %v, want %q", err, tt.wantErr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "new.db")); err == nil {
		t.Errorf("a database was created outside the workspace")
	}
}

func TestConfigValidation(t *testing.T) {
	ws := func(tools.Who) (string, error) { return "/nowhere", nil }
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"duplicate", Config{Workspace: ws, Datasources: []Datasource{{Name: "a", Driver: "sqlite", DSN: "a.db"}, {Name: "a", Driver: "sqlite", DSN: "b.db"}}}, `datasource "a" is configured twice`},
		{"driver", Config{Workspace: ws, Datasources: []Datasource{{Name: "pg", Driver: "postgres", DSN: "host=x"}}}, `datasource "pg": unknown driver "postgres"`},
		{"empty dsn", Config{Workspace: ws, Datasources: []Datasource{{Name: "e", Driver: "sqlite", DSN: " "}}}, `datasource "e": empty DSN`},
		{"no name", Config{Workspace: ws, Datasources: []Datasource{{Driver: "sqlite", DSN: "a.db"}}}, "datasource #1 has no name"},
		{"memory", Config{Workspace: ws, Datasources: []Datasource{{Name: "m", Driver: "sqlite", DSN: ":memory:"}}}, `datasource "m": DSN names no database file`},
		{"no workspace", Config{Datasources: []Datasource{{Name: "r", Driver: "sqlite", DSN: "a.db"}}}, `datasource "r": relative DSN needs a workspace resolver`},
		{"remote host", Config{Datasources: []Datasource{{Name: "h", Driver: "sqlite", DSN: "file://evil/x.db"}}}, `datasource "h": DSN names host "evil"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Tools(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err %v, want %q", err, tt.wantErr)
			}
		})
	}
	if _, c, err := Tools(Config{}); err != nil || c.Close() != nil {
		t.Errorf("empty config: %v", err)
	}
}

func TestClosed(t *testing.T) {
	e := setup(t, nil)
	if _, err := call(t, e.query, `{"datasource":"ro","sql":"SELECT 1"}`); err != nil {
		t.Fatal(err)
	}
	if err := e.closer.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, e.query, `{"datasource":"ro","sql":"SELECT 1"}`); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("after Close: %v", err)
	}
}

func TestConcurrentCalls(t *testing.T) {
	e := setup(t, &fakeApprover{allow: true})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sqlText := `SELECT count(*) FROM users`
			if i%4 == 0 {
				sqlText = `DELETE FROM users` // refused: read-only
			}
			args, _ := json.Marshal(QueryArgs{Datasource: "ro", SQL: sqlText})
			_, err := call(t, e.query, string(args))
			if (i%4 == 0) != (err != nil) {
				t.Errorf("call %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
}

// TestWritableDDL runs schema changes on a writable source: SQLite compiles
// some of them again while they run, which the authorizer must allow.
func TestWritableDDL(t *testing.T) {
	e := setup(t, &fakeApprover{allow: true})
	for _, q := range []string{
		`CREATE INDEX users_name ON users(name)`,
		`ALTER TABLE users ADD COLUMN email TEXT`,
		`ALTER TABLE users RENAME COLUMN email TO mail`,
		`ALTER TABLE users DROP COLUMN mail`,
		`ALTER TABLE users RENAME TO people`,
		`ANALYZE`,
		`REINDEX`,
		`UPDATE people SET name = upper(name) WHERE id = 1`,
		`CREATE TABLE t2 AS SELECT id FROM people`,
		`DROP VIEW names`,
		`DROP TABLE t2`,
		`PRAGMA user_version = 3`,
	} {
		args, _ := json.Marshal(QueryArgs{Datasource: "rw", SQL: q})
		if _, err := call(t, e.query, string(args)); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
}

// TestHardLinkedDatabaseRefused performs the hard-link attack on a
// datasource with a relative DSN: SQLite opens the file by path, so a
// workspace file hard-linked to a database elsewhere (the gateway's own,
// say) must be refused before it is opened.
func TestHardLinkedDatabaseRefused(t *testing.T) {
	ws := t.TempDir()
	secret := filepath.Join(t.TempDir(), "openclaw.sqlite")
	makeDB(t, secret)
	if err := os.Link(secret, filepath.Join(ws, "data.db")); err != nil {
		t.Fatal(err)
	}
	ts, closer, err := Tools(Config{
		Datasources: []Datasource{{Name: "x", Driver: "sqlite", DSN: "data.db"}},
		Workspace:   func(tools.Who) (string, error) { return ws, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	got, err := call(t, ts[1], `{"datasource":"x","sql":"SELECT name FROM users LIMIT 1"}`)
	if err == nil || strings.Contains(got, "ann") || !strings.Contains(err.Error(), "more than one hard link") {
		t.Fatalf("got %s, %v; want the hard link refused", got, err)
	}
}
