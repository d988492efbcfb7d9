package sandbox

import (
	"context"
	"errors"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sshBox is an ssh box on srv for access, and its remote workspace.
func sshBox(t *testing.T, srv sshServer, h host, access string) (*Box, string) {
	t.Helper()
	s := srv.settings(filepath.Join(t.TempDir(), "remote"))
	s.WorkspaceAccess = access
	b, err := Resolve(s, Caller{AgentID: "main", SessionKey: "agent:main:x", AgentWorkspace: h.ws}, h.state)
	if err != nil {
		t.Fatal(err)
	}
	return b, remoteDir(b)
}

// TestRemoteFiles: the file operations on an ssh box's workspace over a
// real sshd, and the attacks on its confinement: symlinks planted in the
// remote workspace that point at the host's files (a file, a folder,
// /etc itself, "..") are refused for reads and writes, and nothing is
// written through them.
func TestRemoteFiles(t *testing.T) {
	srv := startSSHD(t)
	h := newHost(t)
	b, rdir := sshBox(t, srv, h, AccessRW)
	ctx := context.Background()
	f := (&Manager{}).Files(b)
	if f.Dir() != rdir {
		t.Fatalf("Dir %q, want %q", f.Dir(), rdir)
	}
	// The first operation seeds the remote workspace.
	if data, err := f.ReadFile(ctx, "notes.md"); err != nil || string(data) != "agent notes" {
		t.Fatalf("read the seeded file: %q, %v", data, err)
	}
	outside := filepath.Join(t.TempDir(), "outside")
	write(t, filepath.Join(outside, "secret.txt"), h.secret)
	for name, target := range map[string]string{
		"leak": filepath.Join(outside, "secret.txt"), "out": outside, "etc": "/etc", "up": "..",
		"inner": "notes.md", "loop": "loop",
	} {
		if err := os.Symlink(target, filepath.Join(rdir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(outside, "secret.txt"), filepath.Join(rdir, "hard")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, rel string
		want      string // the content read, or a fragment of the error
		outside   bool   // the error wraps ErrOutside
	}{
		{name: "a plain file", rel: "notes.md", want: "agent notes"},
		{name: "a symlink inside", rel: "inner", want: "agent notes"},
		{name: "a symlink to a host file", rel: "leak", outside: true},
		{name: "a symlinked folder outside", rel: "out/secret.txt", outside: true},
		{name: "a symlink to /etc", rel: "etc/hostname", outside: true},
		{name: "a symlink to the parent", rel: "up/" + filepath.Base(rdir) + "/notes.md", outside: true},
		{name: "dot-dot", rel: "../x", outside: true},
		{name: "an absolute path", rel: "/etc/hostname", outside: true},
		{name: "a symlink loop", rel: "loop", outside: true},
		{name: "a hard link", rel: "hard", want: "hard links"},
		{name: "a missing file", rel: "nope.md", want: "no such file"},
		{name: "a folder", rel: ".", want: "directory"},
		{name: "a newline in the name", rel: "a\nb", want: "control characters"},
	} {
		t.Run("read "+tc.name, func(t *testing.T) {
			data, err := f.ReadFile(ctx, tc.rel)
			if strings.Contains(string(data), h.secret) || (err != nil && strings.Contains(err.Error(), h.secret)) {
				t.Fatalf("read the host's secret through %s", tc.rel)
			}
			switch {
			case tc.outside:
				if !errors.Is(err, ErrOutside) {
					t.Fatalf("%q, %v: want ErrOutside", data, err)
				}
			case err == nil:
				if string(data) != tc.want {
					t.Fatalf("read %q, want %q", data, tc.want)
				}
			case !strings.Contains(err.Error(), tc.want):
				t.Fatalf("%v, want %q", err, tc.want)
			}
		})
	}
	if _, err := f.ReadFile(ctx, "nope.md"); !errors.Is(err, iofs.ErrNotExist) {
		t.Fatalf("a missing file: %v, want ErrNotExist", err)
	}
	for _, rel := range []string{"leak", "out/evil.txt", "etc/evil.txt", "out/new/evil.txt"} {
		if err := f.WriteFile(ctx, rel, []byte("pwned"), true); !errors.Is(err, ErrOutside) {
			t.Errorf("write %s: %v, want ErrOutside", rel, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(got) != h.secret {
		t.Fatalf("the host file was changed: %q", got)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Fatalf("files appeared outside: %v", entries)
	}

	// Writes, in new folders, keeping a replaced file's mode.
	if err := f.WriteFile(ctx, "sub/deep/new.md", []byte("it's \"new\" $HOME\n"), true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(rdir, "sub/deep/new.md")); string(got) != "it's \"new\" $HOME\n" {
		t.Fatalf("wrote %q", got)
	}
	// Names the remote shell must not interpret.
	odd := "it's a $(touch pwned) `x` ; name*.md"
	if err := f.WriteFile(ctx, "sub/"+odd, []byte("odd"), false); err != nil {
		t.Fatal(err)
	}
	if data, err := f.ReadFile(ctx, "sub/"+odd); err != nil || string(data) != "odd" {
		t.Fatalf("read an odd name: %q %v", data, err)
	}
	home, _ := os.UserHomeDir() // where the remote login shell starts
	for _, d := range []string{home, rdir, filepath.Join(rdir, "sub")} {
		if _, err := os.Stat(filepath.Join(d, "pwned")); err == nil {
			t.Fatalf("the remote shell ran a command in a file name (%s/pwned)", d)
		}
	}
	if err := f.WriteFile(ctx, "other/x.md", []byte("x"), false); !errors.Is(err, iofs.ErrNotExist) {
		t.Fatalf("write without mkdirs into a missing folder: %v", err)
	}
	os.Chmod(filepath.Join(rdir, "notes.md"), 0o640)
	if err := f.WriteFile(ctx, "inner", nil, false); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(rdir, "notes.md")); err != nil || fi.Size() != 0 || fi.Mode().Perm() != 0o640 {
		t.Fatalf("writing through the inner link: %v %v", fi, err)
	}
	if fi, err := f.Stat(ctx, "sub"); err != nil || !fi.IsDir() {
		t.Fatalf("stat a folder: %v %v", fi, err)
	}
	if fi, err := f.Stat(ctx, "sub/deep/new.md"); err != nil || !fi.Mode().IsRegular() || fi.Size() != 17 {
		t.Fatalf("stat a file: %v %v", fi, err)
	}
	if _, err := f.Stat(ctx, "leak"); !errors.Is(err, ErrOutside) {
		t.Fatalf("stat through a link outside: %v", err)
	}
	// Remove takes a link itself, never its target.
	if err := f.Remove(ctx, "leak"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(outside, "secret.txt")); err != nil {
		t.Fatalf("removing the link removed its target: %v", err)
	}
	if err := f.Remove(ctx, "sub"); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("removed a folder: %v", err)
	}

	// workspaceAccess ro: reads work, changes are refused before ssh.
	bro, _ := sshBox(t, srv, h, AccessRO)
	fro := (&Manager{}).Files(bro)
	if _, err := fro.ReadFile(ctx, "notes.md"); err != nil {
		t.Fatal(err)
	}
	if err := fro.WriteFile(ctx, "x.md", []byte("x"), true); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("ro write: %v", err)
	}
	if err := fro.Remove(ctx, "notes.md"); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("ro remove: %v", err)
	}
}

// TestFileScriptRefuses: paths the remote script must never be built
// for, refused before any connection.
func TestFileScriptRefuses(t *testing.T) {
	for _, tc := range []struct {
		rel     string
		op      fileOp
		outside bool
	}{
		{rel: "", outside: true},
		{rel: "/etc/passwd", outside: true},
		{rel: "..", outside: true},
		{rel: "../x", outside: true},
		{rel: "a/../../x", outside: true},
		{rel: "a//b", outside: true},
		{rel: "a\nb"},
		{rel: "a\x1bb"},
		{rel: ".", op: opWrite},
		{rel: ".", op: opRemove},
	} {
		_, err := fileScript("/root", tc.rel, tc.op, false)
		if err == nil || errors.Is(err, ErrOutside) != tc.outside {
			t.Errorf("%q: %v (outside %v)", tc.rel, err, tc.outside)
		}
	}
	// Every caller's value is quoted: a name cannot end the quoting.
	s, err := fileScript("/r/it's", "a'b/c d$(x)", opRead, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`'/r/it'\''s'`, `'a'\''b'`, `'c d$(x)'`} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %s:\n%s", want, s)
		}
	}
}
