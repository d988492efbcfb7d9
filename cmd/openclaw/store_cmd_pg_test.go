//go:build postgres

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestStoreCopyPostgres: this gateway's SQLite state to PostgreSQL
// (store copy and migrate --to) and back to a new file, with a password
// in the URL that no output and no error shows.
func TestStoreCopyPostgres(t *testing.T) {
	state := seedState(t)
	const secret = "s3cr3t-Passw0rd"
	// The test server trusts loopback: any password is accepted.
	url := strings.Replace(pgtest.URL(t), "postgres://openclaw@", "postgres://openclaw:"+secret+"@", 1)
	noSecret := func(what, out, stderr string, err error) {
		t.Helper()
		all := out + stderr
		if err != nil {
			all += err.Error()
		}
		if strings.Contains(all, secret) {
			t.Fatalf("%s shows the password:\n%s", what, all)
		}
	}

	out, stderr, err := runCLI(t, "store", "copy", "--to", url)
	noSecret("store copy", out, stderr, err)
	if err != nil || !strings.Contains(out, "Copied 4 rows from "+filepath.Join(state, "openclaw.sqlite")+" to postgres://openclaw@") {
		t.Fatalf("store copy: %v\n%s%s", err, out, stderr)
	}

	out, stderr, err = runCLI(t, "migrate", "--to", url)
	noSecret("migrate --to onto rows", out, stderr, err)
	if err == nil || !strings.Contains(stderr, "already holds rows") {
		t.Fatalf("migrate --to onto rows: %v\n%s", err, stderr)
	}
	out, stderr, err = runCLI(t, "migrate", "--to", url, "--replace")
	noSecret("migrate --to --replace", out, stderr, err)
	if err != nil || !strings.Contains(out, "Copied 4 rows") {
		t.Fatalf("migrate --to --replace: %v\n%s%s", err, out, stderr)
	}

	back := filepath.Join(t.TempDir(), "back.sqlite")
	out, stderr, err = runCLI(t, "store", "copy", "--from", url, "--to", back)
	noSecret("store copy back", out, stderr, err)
	if err != nil {
		t.Fatalf("store copy back: %v\n%s", err, stderr)
	}
	if n := countRows(t, back, "transcript_messages"); n != 1 {
		t.Fatalf("back has %d transcript rows", n)
	}
	if n := countRows(t, back, "memory_fts WHERE memory_fts MATCH 'zebra'"); n != 1 {
		t.Fatalf("back's search finds %d", n)
	}

	// A server that is not there: the error names the place, not the password.
	out, stderr, err = runCLI(t, "store", "copy", "--to", "postgres://openclaw:"+secret+"@127.0.0.1:1/db?connect_timeout=2")
	noSecret("unreachable server", out, stderr, err)
	if err == nil || !strings.Contains(stderr, "postgres://openclaw@127.0.0.1:1/db") {
		t.Fatalf("unreachable server: %v\n%s", err, stderr)
	}
}
