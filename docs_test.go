package openclaw

import (
	"io/fs"
	"strings"
	"testing"
)

// The docs tool answers from these; a rename that drops one would leave
// agents guessing.
func TestDocsEmbedded(t *testing.T) {
	for _, name := range []string{"README.md", "docs/ARCHITECTURE.md", "openclaw.json.example"} {
		b, err := fs.ReadFile(Docs, name)
		if err != nil {
			t.Fatalf("%s not embedded: %v", name, err)
		}
		if len(strings.TrimSpace(string(b))) == 0 {
			t.Fatalf("%s is empty", name)
		}
	}
}
