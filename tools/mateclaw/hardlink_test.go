package mateclaw

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// TestFileTypeHardLinkRefused performs the hard-link attack on
// FileTypeDetectorTool, which reads a file's first bytes.
func TestFileTypeHardLinkRefused(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o600)
	if err := os.Link(filepath.Join(outside, "secret"), filepath.Join(ws, "note.txt")); err != nil {
		t.Fatal(err)
	}
	ft := Tools(time.Now, func(tools.Who) (string, error) { return ws, nil })[1]
	_, err := ft.Call(context.Background(), tools.Call{Args: []byte(`{"path":"note.txt"}`)})
	if err == nil || !strings.Contains(err.Error(), "more than one hard link") {
		t.Fatalf("err %v; want the hard link refused", err)
	}
}
