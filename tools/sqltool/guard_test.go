package sqltool

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSplitStatement(t *testing.T) {
	tests := []struct {
		in, text, first string
		wantErr         string
	}{
		{"SELECT 1", "SELECT 1", "SELECT", ""},
		{"select 1;", "select 1", "SELECT", ""},
		{"SELECT 1 ; ; -- bye\n /* c */ ", "SELECT 1 ", "SELECT", ""},
		{"SELECT ';' , \"a;b\", `c;d`, [e;f]", "SELECT ';' , \"a;b\", `c;d`, [e;f]", "SELECT", ""},
		{"SELECT 'it''s;'", "SELECT 'it''s;'", "SELECT", ""},
		{"SELECT 1 -- ; DROP TABLE t\n", "SELECT 1 -- ; DROP TABLE t\n", "SELECT", ""},
		{"SELECT 1 /* ; DROP TABLE t */", "SELECT 1 /* ; DROP TABLE t */", "SELECT", ""},
		{"SELECT 1 /* unterminated ; DROP", "SELECT 1 /* unterminated ; DROP", "SELECT", ""},
		{"SELECT :a, @b, $c::d", "SELECT :a, @b, $c::d", "SELECT", ""},
		{"SELECT 1; SELECT 2", "", "", "only one statement per call"},
		{"SELECT 1;DROP TABLE t", "", "", "only one statement per call"},
		{"SELECT 1; 2", "", "", "only one statement per call"},
		{"SELECT $a('x); DELETE FROM t; --'", "", "", "only one statement per call"},
		{"SELECT 'unterminated", "", "", "unterminated ' quote"},
		{"SELECT [x", "", "", "unterminated [ identifier"},
		{"SELECT 1\x00; DROP TABLE t", "", "", "NUL byte"},
		{"", "", "", "sql is empty"},
		{" ; -- x", "", "", "sql is empty"},
	}
	for _, tt := range tests {
		st, err := splitStatement(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: %+v, %v; want error %q", tt.in, st, err, tt.wantErr)
			}
			continue
		}
		if err != nil || st.text != tt.text || st.keywords[0] != tt.first {
			t.Errorf("%q: %+v, %v; want %q", tt.in, st, err, tt.text)
		}
	}
	if _, err := splitStatement("SELECT '" + strings.Repeat("x", maxSQLBytes) + "'"); err == nil {
		t.Errorf("oversized sql accepted")
	}
}

// TestAuthorizerStopsSecondStatement checks the second line on its own:
// text with two statements handed straight to the driver, past the
// splitter, must not run the second one.
func TestAuthorizerStopsSecondStatement(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	makeDB(t, path)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	cn, auth, err := conn(ctx, db, Datasource{Name: "w", ReadOnly: ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	stmt, err := cn.PrepareContext(ctx, "SELECT 1; DELETE FROM users")
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	if auth.done() {
		t.Errorf("SELECT classified as a write")
	}
	_, err = stmt.ExecContext(ctx)
	if err == nil || !strings.Contains(auth.explain(err).Error(), "only one statement per call") {
		t.Fatalf("err %v", err)
	}
	cn.Close()
	db.Close()
	if n := countUsers(t, path); n != 1502 {
		t.Errorf("second statement ran: %d users", n)
	}
}

// FuzzSplitStatement checks the splitter against SQLite itself: whatever it
// accepts as one statement is prepared on an in-memory database under the
// authorizer, which refuses any further statement the driver would compile;
// such a refusal means the splitter let two statements through.
func FuzzSplitStatement(f *testing.F) {
	for _, s := range []string{
		"SELECT 1", "SELECT 1; SELECT 2", "SELECT ';'", `SELECT "a""b"; x`, "SELECT [a;b]", "SELECT `;`",
		"SELECT 1 -- c\n; SELECT 2", "SELECT 1 /* ; */", "SELECT $a(;) ; SELECT 2", "SELECT $a('x); DELETE FROM t; --'",
		"SELECT :a::b(x;y)", "SELECT x'00'; SELECT 2", "CREATE TABLE t(a); INSERT INTO t VALUES(1)", "SELECT @é(; )",
		"SELECT #a(", "VACUUM INTO 'x'", ";;;", "SELECT 1;\v\f",
	} {
		f.Add(s)
	}
	db, err := sql.Open("sqlite", "file:fuzz?mode=memory")
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	f.Fuzz(func(t *testing.T, in string) {
		st, err := splitStatement(in)
		if err != nil {
			return
		}
		if !strings.HasPrefix(in, st.text) || len(st.keywords) == 0 {
			t.Fatalf("%q: bad split %+v", in, st)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		switch st.keywords[0] {
		case "ANALYZE", "VACUUM":
			return // they run SQL of their own, which strict mode would flag
		}
		cn, auth, err := conn(ctx, db, Datasource{Name: "fuzz", ReadOnly: ptr(true)})
		if err != nil {
			t.Skip(err)
		}
		defer cn.Close()
		auth.strict = true
		stmt, err := cn.PrepareContext(ctx, st.text)
		if err != nil {
			return // SQLite refused the first statement: nothing ran
		}
		defer stmt.Close()
		auth.done()
		rows, err := stmt.QueryContext(ctx)
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		if err != nil && strings.Contains(auth.explain(err).Error(), "only one statement per call") {
			t.Fatalf("%q: the splitter accepted %q, which SQLite read as more than one statement", in, st.text)
		}
	})
}

// TestReadOnlyDSN checks the two protections SQLite applies on its own,
// without the authorizer: the file opened read-only and query_only on.
func TestReadOnlyDSN(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	makeDB(t, path)
	dsn, err := buildDSN(Datasource{Name: "r", DSN: path + "?_pragma=query_only(0)&_query_only=0&mode=rw&_pragma=busy_timeout(100)"}, path)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // the DELETE must meet the connection with query_only off
	var on int
	if err := db.QueryRow(`PRAGMA query_only`).Scan(&on); err != nil || on != 1 {
		t.Fatalf("query_only = %d, %v (dsn %s)", on, err, dsn)
	}
	if _, err := db.Exec(`PRAGMA query_only = 0`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM users`); err == nil || !strings.Contains(err.Error(), "readonly") {
		t.Fatalf("delete with query_only off: %v; want mode=ro to refuse it", err)
	}
}
