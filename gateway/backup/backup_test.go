package backup

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store"
)

// liveState builds a state directory as a running gateway leaves it: a
// WAL database with committed rows not yet checkpointed (the connection
// stays open), credentials, a lock under tmp/, a log, and links that
// point outside. It returns the state dir and a directory outside it
// holding a secret the links name.
func liveState(t *testing.T) (state, outside string) {
	t.Helper()
	base := t.TempDir()
	state = filepath.Join(base, "state")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{state, outside, filepath.Join(state, "credentials"), filepath.Join(state, "tmp", "openclaw-0"), filepath.Join(state, "logs")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(state, "openclaw.json"), `{gateway: {port: 18789}}`)
	write(filepath.Join(state, "credentials", "oauth.json"), `{"token":"cred"}`)
	write(filepath.Join(state, "tmp", "openclaw-0", "gateway.state.lock"), `{"pid":1}`)
	write(filepath.Join(state, "logs", "gateway.log"), "line\n")
	write(filepath.Join(outside, "secret.txt"), "OUTSIDE-SECRET")
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(state, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(state, "leakdir")); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(state, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// No checkpoint: SQLite checkpoints on its own only past 1000 pages.
	if _, err := st.DB.Exec(`PRAGMA wal_autocheckpoint=0; CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('committed-in-wal')`); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(state, store.FileName+"-wal")); err != nil || fi.Size() == 0 {
		t.Fatalf("test setup: the database has no WAL content (%v)", err)
	}
	return state, outside
}

// readArchive returns the archive's entries by name.
func readArchive(t *testing.T, p string) map[string]*tar.Header {
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
	out := map[string]*tar.Header{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		if bytes.Contains(body, []byte("OUTSIDE-SECRET")) {
			t.Errorf("entry %s holds the file a symlink points at outside the state", h.Name)
		}
		out[h.Name] = h
	}
}

func TestCreateWhileLiveThenVerify(t *testing.T) {
	state, _ := liveState(t)
	outDir := t.TempDir()
	ctx := context.Background()
	res, err := Create(ctx, Options{StateDir: state, ConfigPath: filepath.Join(state, "openclaw.json"), Output: outDir,
		IncludeWorkspace: true, Workspaces: []string{filepath.Join(state, "workspace")}, RuntimeVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(res.ArchivePath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("archive mode %v, want 0600", fi.Mode().Perm())
	}
	if filepath.Dir(res.ArchivePath) != outDir || !strings.HasSuffix(res.ArchivePath, "-openclaw-backup.tar.gz") {
		t.Errorf("archive path %s", res.ArchivePath)
	}
	ents := readArchive(t, res.ArchivePath)
	pay := payloadPath(res.ArchiveRoot, state)
	for _, want := range []string{pay + "/openclaw.json", pay + "/credentials/oauth.json", pay + "/" + store.FileName, res.ArchiveRoot + "/manifest.json"} {
		if _, ok := ents[want]; !ok {
			t.Errorf("archive lacks %s", want)
		}
	}
	for name, h := range ents {
		for _, bad := range []string{"-wal", "-shm", "/tmp/openclaw-0", "gateway.log", "leak"} {
			if strings.Contains(name, bad) {
				t.Errorf("archive holds %s", name)
			}
		}
		if h.Typeflag != tar.TypeReg && h.Typeflag != tar.TypeDir {
			t.Errorf("archive entry %s has type %c", name, h.Typeflag)
		}
	}
	if len(res.ExternalLinks) != 2 {
		t.Errorf("links recorded %+v, want leak.txt and leakdir", res.ExternalLinks)
	}
	if len(res.Databases) != 1 {
		t.Errorf("databases %v", res.Databases)
	}
	v, err := Verify(ctx, res.ArchivePath)
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK || v.DatabasesChecked != 1 || v.AssetCount != 1 || v.ArchiveRoot != res.ArchiveRoot {
		t.Errorf("verify %+v", v)
	}

	// The snapshot holds the row still only in the live WAL.
	target := filepath.Join(t.TempDir(), "restored")
	if _, err := Restore(ctx, res.ArchivePath, target, []string{state}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(target, filepath.FromSlash(pay), store.FileName)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var got string
	if err := db.QueryRow(`SELECT v FROM t`).Scan(&got); err != nil || got != "committed-in-wal" {
		t.Errorf("restored database row %q, %v", got, err)
	}
}

func TestCreateOnlyConfigAndDryRun(t *testing.T) {
	state, _ := liveState(t)
	ctx := context.Background()
	cfg := filepath.Join(state, "openclaw.json")
	dir := t.TempDir()
	dry, err := Create(ctx, Options{StateDir: state, ConfigPath: cfg, DefaultDir: dir, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("dry run wrote %v", ents)
	}
	if len(dry.Assets) != 1 || dry.Assets[0].Kind != "state" || filepath.Dir(dry.ArchivePath) != dir {
		t.Errorf("dry run plan %+v", dry)
	}
	res, err := Create(ctx, Options{StateDir: state, ConfigPath: cfg, DefaultDir: dir, OnlyConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	ents := readArchive(t, res.ArchivePath)
	if len(ents) != 2 {
		t.Errorf("only-config archive entries %v, want the config and the manifest", keysOf(ents))
	}
	if _, err := Verify(ctx, res.ArchivePath); err != nil {
		t.Error(err)
	}
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestCreateRefusesOutput(t *testing.T) {
	state, _ := liveState(t)
	existing := filepath.Join(t.TempDir(), "x.tar.gz")
	os.WriteFile(existing, []byte("keep"), 0o600)
	cases := []struct{ name, output, want string }{
		{"inside state", filepath.Join(state, "b.tar.gz"), "inside a backed-up directory"},
		{"state itself", state, "inside a backed-up directory"},
		{"existing file", existing, "never overwritten"},
		{"missing dir", filepath.Join(t.TempDir(), "no", "b.tar.gz"), "does not exist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Create(context.Background(), Options{StateDir: state, ConfigPath: filepath.Join(state, "openclaw.json"), Output: c.output})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep" {
		t.Error("existing file changed")
	}
	// Without --output, a working directory inside the state falls back
	// to home.
	home := t.TempDir()
	res, err := Create(context.Background(), Options{StateDir: state, ConfigPath: filepath.Join(state, "openclaw.json"), DefaultDir: filepath.Join(state, "credentials"), Home: home, DryRun: true})
	if err != nil || filepath.Dir(res.ArchivePath) != home {
		t.Errorf("default dir inside state: %v, %v", res, err)
	}
}

// tent is one entry of a crafted archive.
type tent struct {
	name string
	typ  byte
	body string
	link string
}

// craft writes a tar.gz of entries; with manifest set it appends a
// manifest listing every regular payload entry's digest (tamper then
// changes the bodies after the digests are taken).
func craft(t *testing.T, root string, ents []tent, manifest bool, tamper map[string]string, dbs []string) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	m := Manifest{SchemaVersion: 1, ArchiveRoot: root, Entries: []Entry{}, Databases: dbs}
	for _, e := range ents {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		body := e.body
		if typ == tar.TypeReg {
			sum := sha256.Sum256([]byte(body))
			m.Entries = append(m.Entries, Entry{Path: strings.TrimSuffix(e.name, "/"), Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:])})
			if v, ok := tamper[e.name]; ok {
				body = v
			}
		} else {
			body = ""
		}
		if err := tw.WriteHeader(&tar.Header{Name: e.name, Typeflag: typ, Size: int64(len(body)), Linkname: e.link, Mode: 0o600, ModTime: time.Unix(0, 0)}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	if manifest {
		mb, _ := json.Marshal(m)
		tw.WriteHeader(&tar.Header{Name: root + "/manifest.json", Typeflag: tar.TypeReg, Size: int64(len(mb)), Mode: 0o600})
		tw.Write(mb)
	}
	tw.Close()
	gz.Close()
	p := filepath.Join(t.TempDir(), "crafted.tar.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// corruptDB is a SQLite file whose b-tree pages are garbage.
func corruptDB(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.sqlite")
	db, err := sql.Open("sqlite", "file:"+p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE t (v TEXT); CREATE INDEX tv ON t(v);`); err != nil {
		t.Fatal(err)
	}
	tx, _ := db.Begin()
	for i := 0; i < 300; i++ {
		tx.Exec(`INSERT INTO t VALUES (?)`, strings.Repeat("x", 100)+string(rune('a'+i%26)))
	}
	tx.Commit()
	db.Close()
	b, _ := os.ReadFile(p)
	for i := 4096 + 200; i < len(b) && i < 4096*3; i++ {
		b[i] = 0x5a
	}
	return string(b)
}

func TestVerifyRefusesCraftedArchives(t *testing.T) {
	const r = "2026-01-01T00-00-00.000+00-00-openclaw-backup"
	ok := tent{name: r + "/payload/posix/s/openclaw.json", body: "{}"}
	cases := []struct {
		name     string
		ents     []tent
		manifest bool
		tamper   map[string]string
		dbs      []string
		want     string
	}{
		{"dotdot", []tent{ok, {name: r + "/payload/../../../etc/passwd", body: "x"}}, true, nil, nil, "climbs out"},
		{"leading dotdot", []tent{{name: "../evil", body: "x"}}, true, nil, nil, "climbs out"},
		{"absolute", []tent{{name: "/etc/cron.d/evil", body: "x"}}, true, nil, nil, "absolute path"},
		{"backslash", []tent{ok, {name: r + `/payload/..\..\evil`, body: "x"}}, true, nil, nil, "backslash"},
		{"symlink", []tent{ok, {name: r + "/payload/posix/s/link", typ: tar.TypeSymlink, link: "/etc/passwd"}}, true, nil, nil, "is a link"},
		{"symlink then file through it", []tent{{name: r + "/payload/posix/s", typ: tar.TypeSymlink, link: "/tmp"}, {name: r + "/payload/posix/s/x", body: "x"}}, true, nil, nil, "is a link"},
		{"hardlink", []tent{ok, {name: r + "/payload/posix/s/h", typ: tar.TypeLink, link: "/etc/shadow"}}, true, nil, nil, "is a link"},
		{"device", []tent{ok, {name: r + "/payload/posix/s/dev", typ: tar.TypeChar}}, true, nil, nil, "only files and directories"},
		{"second root", []tent{ok, {name: "other/payload/x", body: "x"}}, true, nil, nil, "outside the archive root"},
		{"duplicate", []tent{ok, ok}, true, nil, nil, "appears twice"},
		{"no manifest", []tent{ok}, false, nil, nil, "no " + r + "/manifest.json"},
		{"tampered", []tent{ok}, true, map[string]string{ok.name: "{evil}"}, nil, "does not match the manifest"},
		{"outside payload", []tent{ok, {name: r + "/run.sh", body: "x"}}, true, nil, nil, "under payload/"},
		{"corrupt database", []tent{ok, {name: r + "/payload/posix/s/openclaw.sqlite", body: corruptDB(t)}}, true, nil, []string{r + "/payload/posix/s/openclaw.sqlite"}, "database " + r + "/payload/posix/s/openclaw.sqlite"},
		{"listed database missing", []tent{ok}, true, nil, []string{r + "/payload/posix/s/openclaw.sqlite"}, "not a SQLite file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := craft(t, r, c.ents, c.manifest, c.tamper, c.dbs)
			_, err := Verify(context.Background(), p)
			var inv *InvalidError
			if !errors.As(err, &inv) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want an InvalidError containing %q", err, c.want)
			}
			// Restore refuses too, and leaves nothing next to the target.
			parent := t.TempDir()
			if _, err := Restore(context.Background(), p, filepath.Join(parent, "t"), nil); err == nil {
				t.Fatal("restore accepted it")
			}
			if ents, _ := os.ReadDir(parent); len(ents) != 0 {
				t.Errorf("restore left %v", ents)
			}
		})
	}
}

func TestVerifyRefusesUnlistedEntry(t *testing.T) {
	const r = "root-openclaw-backup"
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: r + "/payload/posix/s/extra", Typeflag: tar.TypeReg, Size: 1, Mode: 0o600})
	tw.Write([]byte("x"))
	mb, _ := json.Marshal(Manifest{SchemaVersion: 1, ArchiveRoot: r, Entries: []Entry{}})
	tw.WriteHeader(&tar.Header{Name: r + "/manifest.json", Typeflag: tar.TypeReg, Size: int64(len(mb)), Mode: 0o600})
	tw.Write(mb)
	tw.Close()
	gz.Close()
	p := filepath.Join(t.TempDir(), "a.tar.gz")
	os.WriteFile(p, buf.Bytes(), 0o600)
	if _, err := Verify(context.Background(), p); err == nil || !strings.Contains(err.Error(), "not listed in the manifest") {
		t.Fatalf("err %v", err)
	}
}

func TestRestoreRefusesTargets(t *testing.T) {
	state, _ := liveState(t)
	ctx := context.Background()
	res, err := Create(ctx, Options{StateDir: state, ConfigPath: filepath.Join(state, "openclaw.json"), Output: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	nonEmpty := t.TempDir()
	os.WriteFile(filepath.Join(nonEmpty, "keep"), []byte("k"), 0o600)
	cases := []struct{ name, target, want string }{
		{"non-empty", nonEmpty, "not empty"},
		{"inside live state", filepath.Join(state, "restored"), "inside the live directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Restore(ctx, res.ArchivePath, c.target, []string{state})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(state, "restored")); err == nil {
		t.Error("restore wrote into the live state")
	}
	if ents, _ := os.ReadDir(nonEmpty); len(ents) != 1 {
		t.Errorf("non-empty target changed: %v", ents)
	}
}

func TestCheckName(t *testing.T) {
	cases := []struct {
		in   string
		ok   bool
		want string
	}{
		{"r/payload/posix/a", true, "r/payload/posix/a"},
		{"r/payload/", true, "r/payload"},
		{"r//x", false, ""},
		{"r/./x", false, ""},
		{"r/x/..", false, ""},
		{"C:/x", false, ""},
		{"r/x\x00y", false, ""},
		{"", false, ""},
	}
	for _, c := range cases {
		got, err := checkName(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("checkName(%q) = %q, %v", c.in, got, err)
		}
	}
}

func TestName(t *testing.T) {
	got := Name(time.Date(2026, 3, 9, 8, 0, 0, 0, time.FixedZone("", 8*3600)))
	if got != "2026-03-09T08-00-00.000+08-00-openclaw-backup" {
		t.Errorf("Name = %s", got)
	}
}

// A stopped gateway leaves a WAL-mode database without -wal and -shm;
// the read-only snapshot must still open it.
func TestCreateClosedWALDatabase(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	st, err := store.Open(context.Background(), filepath.Join(state, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB.Exec(`CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('x')`); err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, s := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(filepath.Join(state, store.FileName+s)); err == nil {
			t.Fatalf("test setup: %s left behind", s)
		}
	}
	before, _ := os.ReadFile(filepath.Join(state, store.FileName))
	res, err := Create(context.Background(), Options{StateDir: state, Output: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := Verify(context.Background(), res.ArchivePath); err != nil || v.DatabasesChecked != 1 {
		t.Fatalf("verify %+v, %v", v, err)
	}
	// A read-only reader may leave an empty -wal beside the file; the
	// database itself is untouched.
	after, _ := os.ReadFile(filepath.Join(state, store.FileName))
	if !bytes.Equal(before, after) {
		t.Error("the backup changed the database file")
	}
	if fi, err := os.Stat(filepath.Join(state, store.FileName+"-wal")); err == nil && fi.Size() != 0 {
		t.Errorf("the backup wrote %d bytes of WAL", fi.Size())
	}
}

// A file swapped for a link out of the state between the walk and the
// open (a race an agent with file access can try) is refused, not read.
func TestAddFileRefusesLinkSwappedIn(t *testing.T) {
	state, outside := liveState(t)
	r, err := os.OpenRoot(state)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var buf bytes.Buffer
	w := &writer{ctx: context.Background(), root: "r", scratch: t.TempDir(), res: &Result{}}
	w.gz = gzip.NewWriter(&buf)
	w.tw = tar.NewWriter(w.gz)
	// leak.txt is the link the walk would have seen as a regular file.
	err = w.addFile(r, "leak.txt", filepath.Join(state, "leak.txt"), "r/payload/leak.txt", false)
	if err == nil {
		t.Fatal("a link out of the state was read")
	}
	if len(w.entries) != 0 || w.count != 0 {
		t.Errorf("the outside file %s reached the archive", outside)
	}
}
