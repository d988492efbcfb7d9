package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "sub", "openclaw.json")
	if err := WriteFile(fresh, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o600 {
		t.Fatalf("new file mode %v, want 0600", fi.Mode().Perm())
	}
	if di, _ := os.Stat(filepath.Dir(fresh)); di.Mode().Perm() != 0o700 {
		t.Fatalf("new dir mode %v, want 0700", di.Mode().Perm())
	}
	kept := filepath.Join(dir, "kept.json")
	os.WriteFile(kept, []byte("old"), 0o640)
	if err := WriteFile(kept, []byte("new")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(kept)
	fi, _ := os.Stat(kept)
	if string(b) != "new" || fi.Mode().Perm() != 0o640 {
		t.Fatalf("rewrite: %q mode %v", b, fi.Mode().Perm())
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".openclaw-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}
