package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// engine opens an empty store on one of the two databases.
type engine struct {
	name string
	open func(t *testing.T, migs ...Migrations) (*Store, error)
}

// engines are SQLite and, where the machine has it, PostgreSQL.
var engines = []engine{
	{DriverSQLite, func(t *testing.T, migs ...Migrations) (*Store, error) {
		return Open(context.Background(), filepath.Join(t.TempDir(), FileName), migs...)
	}},
	{DriverPostgres, func(t *testing.T, migs ...Migrations) (*Store, error) {
		return OpenPostgres(context.Background(), pgtest.URL(t), migs...)
	}},
}

func TestMigrate(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		files   fstest.MapFS
		wantV   int
		wantErr string
	}{
		{"empty", fstest.MapFS{}, 0, ""},
		{"two in order", fstest.MapFS{
			"001_a.sql": {Data: []byte("CREATE TABLE a(x INTEGER);")},
			"002_b.sql": {Data: []byte("ALTER TABLE a ADD COLUMN y TEXT;")},
		}, 2, ""},
		{"bad name", fstest.MapFS{"x_a.sql": {Data: []byte("SELECT 1;")}}, 0, "must start with a positive number"},
		{"duplicate version", fstest.MapFS{
			"001_a.sql": {Data: []byte("SELECT 1;")}, "001_b.sql": {Data: []byte("SELECT 1;")},
		}, 0, "share version 1"},
		{"bad sql rolls back", fstest.MapFS{
			"001_a.sql": {Data: []byte("CREATE TABLE a(x INTEGER);")},
			"002_b.sql": {Data: []byte("CREATE TABLE oops(;")},
		}, 1, "apply comp migration 002_b.sql"},
	}
	for _, e := range engines {
		for _, tt := range tests {
			t.Run(e.name+"/"+tt.name, func(t *testing.T) {
				s, err := e.open(t)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				err = s.Migrate(ctx, Migrations{Component: "comp", FS: tt.files})
				if tt.wantErr == "" && err != nil {
					t.Fatalf("Migrate: %v", err)
				}
				if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
					t.Fatalf("Migrate error = %v, want containing %q", err, tt.wantErr)
				}
				v, err := s.Version(ctx, "comp")
				if err != nil {
					t.Fatal(err)
				}
				if v != tt.wantV {
					t.Fatalf("version = %d, want %d", v, tt.wantV)
				}
			})
		}
	}
}

func TestReopenIsIdempotentAndPrivate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state", FileName)
	m := Migrations{Component: "c", FS: fstest.MapFS{"001_t.sql": {Data: []byte("CREATE TABLE t(v TEXT);")}}}
	s, err := Open(ctx, path, m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB.ExecContext(ctx, `INSERT INTO t VALUES ('kept')`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(ctx, path, m)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	var v, mode string
	if err := s.DB.QueryRowContext(ctx, `SELECT v FROM t`).Scan(&v); err != nil || v != "kept" {
		t.Fatalf("row after reopen = %q, %v", v, err)
	}
	if err := s.DB.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v", mode, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("database mode = %v, want 0600", fi.Mode().Perm())
	}
}

// Transactions that read and then write, from many connections at once, must
// queue for the write lock rather than fail with SQLITE_BUSY: device pairing
// does exactly this while other connections write.
func TestConcurrentReadThenWriteTransactions(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) { concurrentReadThenWrite(t, e) })
	}
}

func concurrentReadThenWrite(t *testing.T, e engine) {
	ctx := context.Background()
	s, err := e.open(t, Migrations{Component: "comp", FS: fstest.MapFS{
		"001_a.sql": {Data: []byte("CREATE TABLE a(n INTEGER);")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const workers, each = 12, 25
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func() {
			for i := 0; i < each; i++ {
				tx, err := s.DB.BeginTx(ctx, nil)
				if err != nil {
					errs <- err
					return
				}
				var n int
				if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM a`).Scan(&n); err != nil {
					tx.Rollback()
					errs <- err
					return
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO a(n) VALUES (?)`, n); err != nil {
					tx.Rollback()
					errs <- err
					return
				}
				if err := tx.Commit(); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Fatalf("transaction: %v", err)
		}
	}
	// Serialised transactions each saw every earlier row, so the counts
	// they read are 0..N-1 with none repeated.
	var rows, distinct int
	if err := s.DB.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT n) FROM a`).Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	if rows != workers*each || distinct != rows {
		t.Fatalf("rows = %d, distinct counts = %d, want %d of each", rows, distinct, workers*each)
	}
}

// TestVerbatim: a PostgreSQL store's verbatim pool sees its tables and
// sends statements unrewritten (LIKE stays case-sensitive), and closes
// with the store; a SQLite store has none.
func TestVerbatim(t *testing.T) {
	ctx := context.Background()
	lite, err := engines[0].open(t)
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	if _, err := Verbatim(lite.DB); err == nil {
		t.Error("a SQLite store gave a verbatim pool")
	}
	st, err := engines[1].open(t)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Verbatim(st.DB)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	if again, _ := Verbatim(st.DB); again != v {
		t.Error("a second Verbatim opened another pool")
	}
	if _, err := st.DB.ExecContext(ctx, `CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER)`); err != nil {
		t.Fatal(err)
	}
	if _, err := v.ExecContext(ctx, `INSERT INTO kv (k, v) VALUES ($1, $2)`, "Abc", 1); err != nil {
		t.Fatal(err)
	}
	var rewritten, verbatim int
	q := `SELECT count(*) FROM kv WHERE k LIKE 'abc'`
	if err := st.DB.QueryRowContext(ctx, q).Scan(&rewritten); err != nil {
		t.Fatal(err)
	}
	if err := v.QueryRowContext(ctx, q).Scan(&verbatim); err != nil {
		t.Fatal(err)
	}
	if rewritten != 1 || verbatim != 0 {
		t.Errorf("LIKE 'abc' matched %d rows through the store, %d verbatim; want 1 and 0", rewritten, verbatim)
	}
	st.Close()
	if err := v.PingContext(ctx); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("verbatim pool after the store closed: ping err %v", err)
	}
	if _, err := Verbatim(st.DB); err == nil {
		t.Error("a closed store gave a verbatim pool")
	}
}
