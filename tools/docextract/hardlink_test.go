package docextract

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// TestHardLinkRefused performs the hard-link attack on
// DocumentExtractTool: a file outside the workspace, hard-linked in, must
// not be extracted.
func TestHardLinkRefused(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret words"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	tool := Tools(func(tools.Who) (string, error) { return ws, nil })[0]
	res, err := tool.Call(context.Background(), tools.Call{Args: []byte(`{"path":"notes.txt"}`)})
	if err == nil || strings.Contains(res.Text, "secret words") || !strings.Contains(err.Error(), "more than one hard link") {
		t.Fatalf("got %q, %v; want the hard link refused", res.Text, err)
	}
}
