package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
)

// TestOpenPlace: a path opens SQLite, a postgres:// or postgresql:// URL
// PostgreSQL (or, in a build without the driver, OpenPostgres's refusal),
// and an empty place is refused.
func TestOpenPlace(t *testing.T) {
	migs := Migrations{Component: "comp", FS: fstest.MapFS{"001_a.sql": {Data: []byte("CREATE TABLE a(x INTEGER);")}}}
	tests := []struct {
		name       string
		place      func(t *testing.T) string
		wantDriver string
		wantErr    string
	}{
		{"sqlite path", func(t *testing.T) string { return filepath.Join(t.TempDir(), FileName) }, DriverSQLite, ""},
		{"empty", func(t *testing.T) string { return " " }, "", "no database given"},
		{"postgres url", func(t *testing.T) string {
			if pgDriverValue == nil {
				return "postgres://u:pw@127.0.0.1:1/db"
			}
			return pgtest.URL(t)
		}, DriverPostgres, ""},
		{"postgresql url", func(t *testing.T) string {
			if pgDriverValue == nil {
				return "postgresql://u:pw@127.0.0.1:1/db"
			}
			return "postgresql" + strings.TrimPrefix(pgtest.URL(t), "postgres")
		}, DriverPostgres, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			place := tt.place(t)
			wantErr := tt.wantErr
			if IsURL(place) && pgDriverValue == nil {
				wantErr = "this build has no PostgreSQL support"
			}
			s, err := OpenPlace(context.Background(), place, migs)
			if wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), wantErr) {
					t.Fatalf("err %v, want %q", err, wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := s.Driver; got != tt.wantDriver && !(got == "" && tt.wantDriver == DriverSQLite) {
				t.Fatalf("driver %q, want %q", got, tt.wantDriver)
			}
			if v, err := s.Version(context.Background(), "comp"); err != nil || v != 1 {
				t.Fatalf("version %d, %v; want 1", v, err)
			}
		})
	}
}

func TestRedactPlace(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b/openclaw.sqlite":                     "/a/b/openclaw.sqlite",
		"postgres://u:secret@h:5432/db":            "postgres://u@h:5432/db",
		"POSTGRESQL://u:secret@h/db?sslmode=false": "POSTGRESQL://u@h/db?sslmode=false",
	} {
		if got := RedactPlace(in); got != want {
			t.Errorf("RedactPlace(%q) = %q, want %q", in, got, want)
		}
	}
}
