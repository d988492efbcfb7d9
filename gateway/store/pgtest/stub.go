//go:build !postgres

package pgtest

import (
	"os"
	"testing"
)

// Main runs the package's tests.
func Main(m *testing.M) { os.Exit(m.Run()) }

// Stop does nothing: no server runs in this build.
func Stop() {}

// URL skips the test: this build has no PostgreSQL driver.
func URL(t testing.TB) string {
	t.Helper()
	if os.Getenv("OPENCLAW_TEST_POSTGRES") == "require" {
		t.Fatal("pgtest: PostgreSQL is required, but this build has no PostgreSQL support: test with -tags postgres")
	}
	t.Skip("pgtest: built without the postgres tag")
	return ""
}
