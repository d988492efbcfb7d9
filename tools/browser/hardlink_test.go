package browser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUploadHardLinkRefused performs the hard-link attack on browser
// uploads: Chromium opens the file by path and sends it to a web page, so
// a workspace file hard-linked to one outside must be refused before.
func TestUploadHardLinkRefused(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o600)
	if err := os.Link(filepath.Join(outside, "secret"), filepath.Join(ws, "cv.pdf")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "own.pdf"), []byte("mine"), 0o600)
	if _, err := uploadPaths(ws, []string{"own.pdf", "cv.pdf"}); err == nil || !strings.Contains(err.Error(), "more than one hard link") {
		t.Fatalf("err %v; want the hard link refused", err)
	}
	if got, err := uploadPaths(ws, []string{"own.pdf"}); err != nil || len(got) != 1 {
		t.Fatalf("own file: %v, %v", got, err)
	}
}
