package sqltool

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pragmaOf reads PRAGMA name from the file at path on a connection of
// its own, to see what really changed.
func pragmaOf(t *testing.T, path, name string) string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	if err := db.QueryRow(`PRAGMA ` + name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestPragmaWritesNeedApproval performs the attack of a model on a
// writable datasource setting PRAGMAs, which SQLite's authorizer reports
// as PRAGMA and not as a write, and many of which SQLite applies while it
// compiles them: each must wait for a person's approval, and must not take
// effect when the approval is denied.
func TestPragmaWritesNeedApproval(t *testing.T) {
	tests := []struct {
		sql, pragma, before, after string
	}{
		{`PRAGMA user_version = 5`, "user_version", "0", "5"},
		{`PRAGMA main.application_id = 7`, "application_id", "0", "7"},
		{`PRAGMA journal_mode = WAL`, "journal_mode", "delete", "wal"},
		{`pragma "JOURNAL_MODE"('wal')`, "journal_mode", "delete", "wal"},
		{`PRAGMA auto_vacuum = FULL`, "auto_vacuum", "0", "0"}, // applies only at the next VACUUM
	}
	for _, tt := range tests {
		for _, allow := range []bool{false, true} {
			name := tt.sql + map[bool]string{false: " denied", true: " approved"}[allow]
			t.Run(name, func(t *testing.T) {
				ap := &fakeApprover{allow: allow}
				e := setup(t, ap)
				args, _ := json.Marshal(QueryArgs{Datasource: "rw", SQL: tt.sql})
				got, err := call(t, e.query, string(args))
				if ap.count() != 1 {
					t.Fatalf("%d approval requests, want 1 (got %s, %v)", ap.count(), got, err)
				}
				want := tt.before
				if allow {
					want = tt.after
					if err != nil {
						t.Fatalf("approved: %v", err)
					}
				} else if err == nil || !strings.Contains(err.Error(), "the write was not approved") {
					t.Fatalf("denied: got %s, %v", got, err)
				}
				e.closer.Close()
				if v := pragmaOf(t, e.abs, tt.pragma); v != want {
					t.Errorf("PRAGMA %s = %s afterwards, want %s", tt.pragma, v, want)
				}
			})
		}
	}
}

// TestPragmaConnectionSettings performs the same attack with settings that
// live on the pooled connection (foreign_keys, cache_size): denied, they
// must not apply; approved, they must not outlive the call either, since
// the next call borrowing the connection was never approved.
func TestPragmaConnectionSettings(t *testing.T) {
	for _, allow := range []bool{false, true} {
		ap := &fakeApprover{allow: allow}
		e := setup(t, ap, func(c *Config) {
			c.Datasources[1].DSN += "&_pragma=foreign_keys(1)"
		})
		for _, q := range []string{`PRAGMA foreign_keys = OFF`, `PRAGMA cache_size = -10000000`} {
			args, _ := json.Marshal(QueryArgs{Datasource: "rw", SQL: q})
			if _, err := call(t, e.query, string(args)); (err == nil) != allow {
				t.Errorf("%s (allow %v): %v", q, allow, err)
			}
		}
		if ap.count() != 2 {
			t.Errorf("allow %v: %d approval requests, want 2", allow, ap.count())
		}
		// Calls run one at a time, so this one gets the same pooled
		// connection when it was kept.
		for q, want := range map[string]string{`PRAGMA foreign_keys`: `[[1]]`, `PRAGMA cache_size`: `[[-2000]]`} {
			got, err := call(t, e.query, `{"datasource":"rw","sql":"`+q+`"}`)
			if err != nil || !strings.Contains(got, `"rows":`+want) {
				t.Errorf("allow %v: %s afterwards: %s, %v; want %s", allow, q, got, err, want)
			}
		}
		if ap.count() != 2 {
			t.Errorf("reading a PRAGMA asked for approval")
		}
	}
}

// TestDangerousStatementsRefused checks what no approval lets through on a
// writable datasource: other database files, the schema as raw text,
// native code, the process-wide heap limits. Nobody is asked, and nothing
// happens.
func TestDangerousStatementsRefused(t *testing.T) {
	ap := &fakeApprover{allow: true}
	e := setup(t, ap)
	other := filepath.Join(t.TempDir(), "other.db")
	for _, tt := range []struct{ sql, wantErr string }{
		{`ATTACH DATABASE '` + other + `' AS o`, "ATTACH and DETACH are not allowed"},
		{`ATTACH 'file:` + other + `?mode=rwc' AS o`, "ATTACH and DETACH are not allowed"},
		{`PRAGMA writable_schema = 1`, "PRAGMA writable_schema is not allowed"},
		{`PRAGMA writable_schema = RESET`, "PRAGMA writable_schema is not allowed"},
		{`PRAGMA schema_version = 1`, "PRAGMA schema_version may be read but not set"},
		{`PRAGMA hard_heap_limit = 1`, "PRAGMA hard_heap_limit may be read but not set"},
		{`PRAGMA soft_heap_limit = 1`, "PRAGMA soft_heap_limit may be read but not set"},
		{`PRAGMA trusted_schema = 1`, "PRAGMA trusted_schema is not allowed"},
		{`PRAGMA query_only = 1`, "PRAGMA query_only is not allowed"},
		{`SELECT load_extension('` + other + `')`, "function load_extension is not allowed"},
		{`VACUUM INTO '` + other + `'`, "VACUUM INTO is not allowed"},
	} {
		args, _ := json.Marshal(QueryArgs{Datasource: "rw", SQL: tt.sql})
		if got, err := call(t, e.query, string(args)); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: %s, %v; want %q", tt.sql, got, err, tt.wantErr)
		}
	}
	if n := ap.count(); n != 0 {
		t.Errorf("%d approval requests for statements refused outright", n)
	}
	if _, err := os.Stat(other); err == nil {
		t.Errorf("a database file was created outside the datasource")
	}
	if got, err := call(t, e.query, `{"datasource":"rw","sql":"PRAGMA schema_version"}`); err != nil {
		t.Errorf("reading schema_version: %s, %v", got, err)
	}
}

// TestReadOnlyPragmas checks a read-only datasource: PRAGMA settings are
// refused, including those that change only the connection (a bigger
// cache or an in-memory temp store would let a query use more memory),
// and PRAGMAs that only report still work, as statements and as tables.
func TestReadOnlyPragmas(t *testing.T) {
	ap := &fakeApprover{allow: true}
	e := setup(t, ap)
	for _, q := range []string{
		`PRAGMA cache_size = -10000000`, `PRAGMA temp_store = MEMORY`, `PRAGMA foreign_keys = 0`,
		`PRAGMA journal_mode = WAL`, `PRAGMA mmap_size = 1000000000`, `PRAGMA optimize`, `PRAGMA wal_checkpoint`,
	} {
		args, _ := json.Marshal(QueryArgs{Datasource: "ro", SQL: q})
		if got, err := call(t, e.query, string(args)); err == nil || !strings.Contains(err.Error(), `datasource "ro" is read-only: PRAGMA`) {
			t.Errorf("%s: %s, %v", q, got, err)
		}
	}
	for q, want := range map[string]string{
		`PRAGMA cache_size`:                               `[[-2000]]`,
		`PRAGMA temp_store`:                               `[[0]]`,
		`PRAGMA index_list(users)`:                        `"rows":[]`,
		`PRAGMA integrity_check(1)`:                       `[["ok"]]`,
		`SELECT name FROM pragma_table_info('users')`:     `[["id"],["name"],["born"],["avatar"]]`,
		`SELECT count(*) FROM pragma_index_list('users')`: `[[0]]`,
	} {
		args, _ := json.Marshal(QueryArgs{Datasource: "ro", SQL: q})
		if got, err := call(t, e.query, string(args)); err != nil || !strings.Contains(got, want) {
			t.Errorf("%s: %s, %v; want %s", q, got, err, want)
		}
	}
	if n := ap.count(); n != 0 {
		t.Errorf("%d approval requests on a read-only datasource", n)
	}
}
