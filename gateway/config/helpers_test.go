package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testFile is the name in-memory configs are parsed as.
const testFile = "/cfg/openclaw.json"

// envFunc turns a map into a Getenv.
func envFunc(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// parseTest parses src as testFile and returns the snapshot and the errors
// and warnings as short strings (file name without its directory).
func parseTest(t *testing.T, src string, env map[string]string) (snap *Snapshot, errs, warns []string) {
	t.Helper()
	snap, err := Parse(testFile, []byte(src), LoadOptions{Getenv: envFunc(env)})
	if err != nil {
		var le *LoadError
		if !errors.As(err, &le) {
			t.Fatalf("Parse: %v", err)
		}
		errs = shortIssues(le.Issues)
	}
	if snap != nil {
		warns = shortIssues(snap.Warnings)
	}
	return snap, errs, warns
}

func shortIssues(is Issues) []string {
	out := make([]string, len(is))
	for i, issue := range is {
		issue.File = filepath.Base(issue.File)
		out[i] = issue.String()
	}
	return out
}

// writeFile writes a file under dir, creating directories.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// containsAll reports whether every want string is a substring of some got.
func containsAll(got []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, g := range got {
			if strings.Contains(g, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
