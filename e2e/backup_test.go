package e2e

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackupWhileGatewayRuns runs `openclaw backup create` against the
// state of a running gateway (its database open in WAL mode), then
// `backup verify` and `backup restore`: the archive is 0600, holds the
// database as a snapshot without -wal or -shm sidecars and without the
// gateway's lock, and verifies (manifest digests, integrity_check).
func TestBackupWhileGatewayRuns(t *testing.T) {
	needOurBin(t)
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{})
	c := ourClient(t, g)
	// A call, so the gateway has written (paired the CLI's device).
	c.run(t, "health", "--json").mustSucceed(t)
	if _, err := os.Stat(filepath.Join(g.StateDir, "openclaw.sqlite-wal")); err != nil {
		t.Logf("no WAL file while running (%v); the snapshot is still taken through SQLite", err)
	}

	out := t.TempDir()
	r := c.run(t, "backup", "create", "--output", out, "--json")
	r.mustSucceed(t)
	var created struct {
		ArchivePath string   `json:"archivePath"`
		ArchiveRoot string   `json:"archiveRoot"`
		Databases   []string `json:"databases"`
		Assets      []struct {
			Kind string `json:"kind"`
		} `json:"assets"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &created); err != nil {
		t.Fatalf("backup create --json: %v\n%s", err, r)
	}
	if len(created.Databases) != 1 || !strings.HasSuffix(created.Databases[0], "/openclaw.sqlite") {
		t.Errorf("databases %v, want the state database", created.Databases)
	}
	fi, err := os.Stat(created.ArchivePath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("archive mode %v", fi.Mode().Perm())
	}
	for _, name := range archiveNames(t, created.ArchivePath) {
		for _, bad := range []string{"-wal", "-shm", "gateway.state.lock"} {
			if strings.Contains(name, bad) {
				t.Errorf("archive holds %s", name)
			}
		}
		if strings.Contains(name, g.Token) {
			t.Errorf("an entry name holds the token")
		}
	}

	r = c.run(t, "backup", "verify", created.ArchivePath, "--json")
	r.mustSucceed(t)
	var verified struct {
		OK               bool   `json:"ok"`
		ArchiveRoot      string `json:"archiveRoot"`
		DatabasesChecked int    `json:"databasesChecked"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &verified); err != nil || !verified.OK || verified.ArchiveRoot != created.ArchiveRoot || verified.DatabasesChecked != 1 {
		t.Fatalf("backup verify: %+v %v\n%s", verified, err, r)
	}

	// The gateway is still up and the restored database opens.
	c.run(t, "health", "--json").mustSucceed(t)
	target := filepath.Join(t.TempDir(), "restored")
	c.run(t, "backup", "restore", created.ArchivePath, "--target", target).mustSucceed(t)
	var found bool
	filepath.WalkDir(target, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "openclaw.sqlite" {
			found = true
		}
		return nil
	})
	if !found {
		t.Error("restore wrote no openclaw.sqlite")
	}

	// A restore into the live state is refused.
	r = c.run(t, "backup", "restore", created.ArchivePath, "--target", filepath.Join(g.StateDir, "restored"))
	if r.Code == 0 {
		t.Errorf("restore into the live state was accepted:\n%s", r)
	}
}

func archiveNames(t *testing.T, p string) []string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
	}
}
