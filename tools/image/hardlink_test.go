package image

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// TestHardLinkRefused performs the hard-link attack on the image tool: a
// picture outside the workspace, hard-linked in, must not reach the model.
func TestHardLinkRefused(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "private.png"), pngBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(outside, "private.png"), filepath.Join(ws, "shot.png")); err != nil {
		t.Fatal(err)
	}
	an := &fakeAnalyzer{}
	tool := Tool(Config{Workspace: func(tools.Who) (string, error) { return ws, nil }, Analyzer: an})
	r := call(t, tool, `{"image":"shot.png","prompt":"what is it"}`)
	if !r.IsError || !strings.Contains(r.Text, "more than one hard link") || len(an.imgs) != 0 {
		t.Fatalf("got %q (%d images analysed); want the hard link refused", r.Text, len(an.imgs))
	}
}
