package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHardLinkRefused performs the hard-link attack on the memory tools:
// a Markdown file outside the workspace, hard-linked in as a memory file,
// must be neither read nor edited, nor indexed for memory_search.
func TestHardLinkRefused(t *testing.T) {
	f := newFixture(t)
	outside := filepath.Join(t.TempDir(), "diary.md")
	os.WriteFile(outside, []byte("the launch codes are zebra\n"), 0o600)
	os.MkdirAll(f.dirs["alice"], 0o700)
	os.WriteFile(filepath.Join(f.dirs["alice"], "MEMORY.md"), []byte("a zebra at the zoo\n"), 0o600)
	if err := os.Link(outside, filepath.Join(f.dirs["alice"], "notes.md")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		call func() (string, error)
	}{
		{"memory_get", func() (string, error) { return f.call(t, f.get, "alice", `{"path":"notes.md"}`) }},
		{"read", func() (string, error) { return f.call(t, f.ws, "alice", `{"action":"read","path":"notes.md"}`) }},
		{"edit", func() (string, error) {
			return f.call(t, f.ws, "alice", `{"action":"edit","path":"notes.md","oldText":"zebra","newText":"horse"}`)
		}},
	} {
		got, err := tt.call()
		if err == nil || strings.Contains(got, "launch") || !strings.Contains(err.Error(), "more than one hard link") {
			t.Errorf("%s: got %q, %v; want the hard link refused", tt.name, got, err)
		}
	}
	got, err := f.call(t, f.search, "alice", `{"query":"zebra"}`)
	if err != nil || strings.Contains(got, "launch") || !strings.Contains(got, "MEMORY.md") {
		t.Errorf("memory_search: %s, %v; want MEMORY.md only", got, err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "the launch codes are zebra\n" {
		t.Errorf("the outside file changed: %q", b)
	}
}
