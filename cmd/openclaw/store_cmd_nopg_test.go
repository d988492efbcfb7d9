//go:build !postgres

package main

import (
	"strings"
	"testing"
)

// TestStoreCopyNoPostgres: the release build refuses a postgres:// place
// with OpenPostgres's explanation, and shows no password.
func TestStoreCopyNoPostgres(t *testing.T) {
	seedState(t)
	for _, args := range [][]string{
		{"store", "copy", "--to", "postgres://openclaw:hunter2secret@127.0.0.1:1/db"},
		{"migrate", "--to", "postgresql://openclaw:hunter2secret@127.0.0.1:1/db"},
	} {
		out, stderr, err := runCLI(t, args...)
		if err == nil || !strings.Contains(stderr, "this build has no PostgreSQL support (build with -tags postgres") {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
		if strings.Contains(out+stderr+err.Error(), "hunter2secret") {
			t.Fatalf("%v shows the password:\n%s%s", args, out, stderr)
		}
	}
}
