package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/statelock"
	"github.com/openclaw-go/openclaw/gateway/store"
)

// seedState writes a gateway database into the isolated home's state
// directory, as a gateway would have left it, and returns the state dir.
func seedState(t *testing.T) string {
	t.Helper()
	home := isolate(t)
	state := filepath.Join(home, ".openclaw")
	st, err := store.Open(context.Background(), filepath.Join(state, store.FileName), storeMigrations()...)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, q := range []string{
		`INSERT INTO sessions(key, session_id, agent_id, kind, created_at, started_at, updated_at) VALUES ('agent:main:main', 's-1', 'main', 'direct', 1, 2, 3)`,
		`INSERT INTO transcript_messages(session_id, seq, role, content, created_at) VALUES ('s-1', 1, 'user', '{"text":"hello"}', 10)`,
		`INSERT INTO cron_jobs(id, spec, created_at, updated_at) VALUES ('job-1', '{}', 1, 2)`,
		`INSERT INTO memory_chunks(id, agent_id, path, chunk, start_line, end_line, body) VALUES (1, 'main', 'MEMORY.md', 0, 1, 1, 'zebra notes')`,
	} {
		if _, err := st.DB.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return state
}

func countRows(t *testing.T, path, table string) int {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var n int
	if err := st.DB.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStoreCopyCommand: `openclaw store copy` end to end between SQLite
// files: the default source, the per-table report, the dry run that
// writes nothing, the refusal of a target with rows and --replace, and
// the refusal while a gateway runs on the state.
func TestStoreCopyCommand(t *testing.T) {
	state := seedState(t)
	target := filepath.Join(t.TempDir(), "copy", "openclaw.sqlite")

	if _, _, err := runCLI(t, "store", "copy"); err == nil || !strings.Contains(err.Error(), "--to is required") {
		t.Fatalf("no --to: %v", err)
	}

	out, _, err := runCLI(t, "store", "copy", "--to", target, "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Dry run: would copy 4 rows") || !strings.Contains(out, "Nothing was written") {
		t.Fatalf("dry run output:\n%s", out)
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the dry run created the target (%v)", err)
	}

	out, _, err = runCLI(t, "store", "copy", "--to", target)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Copied 4 rows from " + filepath.Join(state, store.FileName) + " to " + target, "TABLE", "sessions", "transcript_messages"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := countRows(t, target, "transcript_messages"); n != 1 {
		t.Fatalf("target has %d transcript rows", n)
	}
	// The search index was built on the target.
	if n := countRows(t, target, "memory_fts WHERE memory_fts MATCH 'zebra'"); n != 1 {
		t.Fatalf("target search finds %d", n)
	}

	_, stderr, err := runCLI(t, "store", "copy", "--to", target)
	if err == nil || !strings.Contains(stderr, "already holds rows") || !strings.Contains(stderr, "--replace") {
		t.Fatalf("second copy: %v\n%s", err, stderr)
	}
	if _, _, err := runCLI(t, "store", "copy", "--to", target, "--replace"); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, target, "sessions"); n != 1 {
		t.Fatalf("after --replace the target has %d sessions", n)
	}

	// Back the other way, as JSON.
	back := filepath.Join(t.TempDir(), "back.sqlite")
	out, _, err = runCLI(t, "store", "copy", "--from", target, "--to", back, "--json")
	if err != nil || !strings.Contains(out, `"rows": 4`) {
		t.Fatalf("json copy: %v\n%s", err, out)
	}

	lock, err := statelock.Acquire(state, filepath.Join(state, "openclaw.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	_, stderr, err = runCLI(t, "store", "copy", "--to", filepath.Join(t.TempDir(), "x.sqlite"))
	if err == nil || !strings.Contains(stderr, "a gateway is running on "+state) || !strings.Contains(stderr, "stop it first") {
		t.Fatalf("with a gateway running: %v\n%s", err, stderr)
	}
}

// TestMigrateToRefusals: migrate --to takes a URL, and not with --from.
func TestMigrateToRefusals(t *testing.T) {
	isolate(t)
	if _, _, err := runCLI(t, "migrate", "--to", "x.sqlite"); err == nil || !strings.Contains(err.Error(), "postgres:// URL") {
		t.Fatalf("file --to: %v", err)
	}
	if _, _, err := runCLI(t, "migrate", "--to", "postgres://h/db", "--from", "/x"); err == nil || !strings.Contains(err.Error(), "give one") {
		t.Fatalf("--from and --to: %v", err)
	}
}
