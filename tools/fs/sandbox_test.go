package fs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// TestSandboxedFileTools: a sandboxed caller's file tools name files as
// its commands see them (/workspace/..., /agent/...), a read-only
// sandbox refuses every change, and symlinks in the workspace still
// reach nothing outside it.
func TestSandboxedFileTools(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "ws")
	secret := filepath.Join(root, "openclaw.json")
	writeFile(t, filepath.Join(dir, "a.txt"), "hello\n")
	writeFile(t, secret, `{token: "SECRET"}`)
	if err := os.Symlink(secret, filepath.Join(dir, "cfg")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..", filepath.Join(dir, "up")); err != nil {
		t.Fatal(err)
	}
	build := func(mount, readOnly string) map[string]tools.Tool {
		m := map[string]tools.Tool{}
		for _, tl := range ToolsWith(Config{
			Workspace: func(tools.Who) (string, error) { return dir, nil },
			ReadOnly:  func(tools.Who) string { return readOnly },
			Mount:     func(tools.Who) string { return mount },
		}) {
			m[tl.Spec().Name] = tl
		}
		return m
	}
	rw, ro := build("/workspace", ""), build("/agent", "the sandbox is ro")
	patch := "*** Begin Patch\n*** Add File: p.txt\n+x\n*** End Patch"
	for _, tc := range []struct {
		name    string
		tool    tools.Tool
		args    map[string]any
		wantErr bool
		want    string
	}{
		{"read by its sandbox path", rw["read"], map[string]any{"path": "/workspace/a.txt"}, false, "hello"},
		{"read relative", rw["read"], map[string]any{"path": "a.txt"}, false, "hello"},
		{"write by its sandbox path", rw["write"], map[string]any{"path": "/workspace/b.txt", "content": "b"}, false, ""},
		{"a prefix look-alike is not the mount", rw["read"], map[string]any{"path": "/workspacex/a.txt"}, true, "outside"},
		{"climbing out of the mount", rw["read"], map[string]any{"path": "/workspace/../openclaw.json"}, true, ""},
		{"symlink to a host file", rw["read"], map[string]any{"path": "cfg"}, true, ""},
		{"symlinked parent", rw["read"], map[string]any{"path": "up/openclaw.json"}, true, ""},
		{"write through a symlinked parent", rw["write"], map[string]any{"path": "up/evil.txt", "content": "x"}, true, ""},
		{"ro reads", ro["read"], map[string]any{"path": "/agent/a.txt"}, false, "hello"},
		{"ro refuses write", ro["write"], map[string]any{"path": "/agent/c.txt", "content": "c"}, true, "read-only"},
		{"ro refuses edit", ro["edit"], map[string]any{"path": "a.txt", "oldText": "hello", "newText": "bye"}, true, "read-only"},
		{"ro refuses apply_patch", ro["apply_patch"], map[string]any{"patch": patch}, true, "read-only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tc.tool, tc.args)
			if res.IsError != tc.wantErr || !strings.Contains(res.Text, tc.want) {
				t.Fatalf("error %v, %q; want error %v with %q", res.IsError, res.Text, tc.wantErr, tc.want)
			}
			if strings.Contains(res.Text, "SECRET") {
				t.Fatalf("leaked the host file: %q", res.Text)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "hello\n" {
		t.Errorf("ro changed a.txt: %q", b)
	}
	for _, p := range []string{filepath.Join(dir, "c.txt"), filepath.Join(dir, "p.txt"), filepath.Join(root, "evil.txt")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}
