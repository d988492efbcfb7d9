package main

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBackupCreateVerifyCLI(t *testing.T) {
	home := isolate(t)
	state := filepath.Join(home, ".openclaw")
	os.MkdirAll(filepath.Join(state, "credentials"), 0o700)
	os.WriteFile(filepath.Join(state, "openclaw.json"), []byte("{}"), 0o600)
	out := t.TempDir()
	stdout, stderr, err := runCLI(t, "backup", "create", "--output", out, "--verify", "--json")
	if err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	var res struct {
		ArchivePath string `json:"archivePath"`
		Verified    bool   `json:"verified"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || !res.Verified || filepath.Dir(res.ArchivePath) != out {
		t.Fatalf("create: %+v %v\n%s", res, err, stdout)
	}
	if stdout, _, err = runCLI(t, "backup", "verify", res.ArchivePath); err != nil || !strings.HasPrefix(stdout, "Backup archive OK: ") {
		t.Errorf("verify: %v\n%s", err, stdout)
	}
}

// An archive whose entry climbs out is refused with exit 1 and
// OpenClaw's wording.
func TestBackupVerifyCLIRefusesTraversal(t *testing.T) {
	isolate(t)
	p := filepath.Join(t.TempDir(), "evil.tar.gz")
	f, _ := os.Create(p)
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "root/payload/../../../../tmp/evil", Typeflag: tar.TypeReg, Size: 1, Mode: 0o600})
	tw.Write([]byte("x"))
	tw.Close()
	gz.Close()
	f.Close()
	_, stderr, err := runCLI(t, "backup", "verify", p)
	if err == nil || !strings.Contains(stderr, "Backup archive verification failed: "+p) || !strings.Contains(stderr, "climbs out") {
		t.Fatalf("err %v, stderr %q", err, stderr)
	}
	target := filepath.Join(t.TempDir(), "t")
	if _, _, err := runCLI(t, "backup", "restore", p, "--target", target); err == nil {
		t.Fatal("restore accepted it")
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("restore left the target behind")
	}
}
