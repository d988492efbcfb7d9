package sandbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
	"github.com/openclaw-go/openclaw/tools/sandbox"
)

// TestFileToolsOverSSH: read, write, edit and apply_patch of a caller in
// an ssh sandbox act on its remote workspace, never on the local copy it
// was seeded from; a symlink planted there (as exec could) does not lead
// them to the remote host's /etc; workspaceAccess ro refuses changes.
func TestFileToolsOverSSH(t *testing.T) {
	srv := sandbox.StartSSHD(t)
	root := t.TempDir()
	local := filepath.Join(root, "agent-ws")
	if err := os.MkdirAll(local, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(local, "notes.md"), []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	remoteRoot := filepath.Join(root, "remote")
	m := &sandbox.Manager{}
	build := func(access string) (map[string]tools.Tool, string) {
		s := srv.Settings(remoteRoot)
		s.WorkspaceAccess = access
		b, err := sandbox.Resolve(s, sandbox.Caller{AgentID: "main", SessionKey: "agent:main:x", AgentWorkspace: local}, filepath.Join(root, "state"))
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]tools.Tool{}
		for _, tl := range fs.ToolsWith(fs.Config{
			Workspace: func(tools.Who) (string, error) { return "", errors.New("the local workspace was asked for") },
			Remote:    func(tools.Who) (fs.Remote, error) { return m.Files(b), nil },
			Mount:     func(tools.Who) string { return b.Mount() },
			ReadOnly: func(tools.Who) string {
				if b.ReadOnly() {
					return "the sandbox is ro"
				}
				return ""
			},
		}) {
			byName[tl.Spec().Name] = tl
		}
		return byName, m.Files(b).Dir()
	}
	rw, rdir := build(sandbox.AccessRW)
	call := func(tl tools.Tool, args map[string]any) (string, bool) {
		t.Helper()
		raw, _ := json.Marshal(args)
		res, err := tl.Call(context.Background(), tools.Call{Name: tl.Spec().Name, Args: raw, Who: tools.Who{AgentID: "main"}})
		if err != nil {
			return err.Error(), true
		}
		return res.Text, res.IsError
	}
	// The first call seeds the remote workspace; then plant the links.
	if out, isErr := call(rw["read"], map[string]any{"path": "notes.md"}); isErr || !strings.Contains(out, "hello") {
		t.Fatalf("first read: %q", out)
	}
	for name, target := range map[string]string{"etc": "/etc", "host": "/etc/hostname"} {
		if err := os.Symlink(target, filepath.Join(rdir, name)); err != nil {
			t.Fatal(err)
		}
	}
	hostname, _ := os.ReadFile("/etc/hostname")
	patch := "*** Begin Patch\n*** Add File: added.md\n+added\n*** Update File: notes.md\n@@\n-hi there\n+patched\n*** End Patch"
	for _, tc := range []struct {
		name    string
		tool    string
		args    map[string]any
		wantErr bool
		want    string
	}{
		{"read by the sandbox path", "read", map[string]any{"path": "/workspace/notes.md"}, false, "hello"},
		{"read by the remote path", "read", map[string]any{"path": rdir + "/notes.md"}, false, "hello"},
		{"write", "write", map[string]any{"path": "sub/new.md", "content": "new"}, false, "wrote 3 bytes"},
		{"edit", "edit", map[string]any{"path": "notes.md", "oldText": "hello", "newText": "hi there"}, false, "replaced 1"},
		{"read the edit", "read", map[string]any{"path": "notes.md"}, false, "hi there"},
		{"apply_patch", "apply_patch", map[string]any{"patch": patch}, false, "A added.md"},
		{"a symlinked /etc", "read", map[string]any{"path": "etc/hostname"}, true, "outside"},
		{"a symlink to a host file", "read", map[string]any{"path": "host"}, true, "outside"},
		{"a write through a symlinked /etc", "write", map[string]any{"path": "etc/openclaw-pwned", "content": "x"}, true, "outside"},
		{"dot-dot", "read", map[string]any{"path": "../../x"}, true, "outside"},
		{"an absolute host path", "read", map[string]any{"path": "/etc/hostname"}, true, "outside"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, isErr := call(rw[tc.tool], tc.args)
			if isErr != tc.wantErr || !strings.Contains(out, tc.want) {
				t.Fatalf("error %v, %q; want error %v with %q", isErr, out, tc.wantErr, tc.want)
			}
			if len(hostname) > 0 && tc.wantErr && strings.Contains(out, strings.TrimSpace(string(hostname))) {
				t.Fatalf("read the host's /etc/hostname: %q", out)
			}
		})
	}
	for rel, want := range map[string]string{"sub/new.md": "new", "notes.md": "patched\n", "added.md": "added\n"} {
		if got, err := os.ReadFile(filepath.Join(rdir, rel)); err != nil || string(got) != want {
			t.Errorf("remote %s: %q, %v; want %q", rel, got, err, want)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(local, "notes.md")); string(got) != "hello\n" {
		t.Errorf("the local copy changed: %q", got)
	}
	if _, err := os.Stat("/etc/openclaw-pwned"); err == nil {
		t.Error("wrote into /etc")
	}

	ro, _ := build(sandbox.AccessRO)
	if out, isErr := call(ro["read"], map[string]any{"path": "/agent/notes.md"}); isErr || !strings.Contains(out, "patched") {
		t.Fatalf("ro read: %q", out)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"write", map[string]any{"path": "x.md", "content": "x"}},
		{"edit", map[string]any{"path": "notes.md", "oldText": "patched", "newText": "x"}},
		{"apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Delete File: notes.md\n*** End Patch"}},
	} {
		if out, isErr := call(ro[tc.tool], tc.args); !isErr || !strings.Contains(out, "read-only") {
			t.Errorf("ro %s: error %v, %q", tc.tool, isErr, out)
		}
	}
}
