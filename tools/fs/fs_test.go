package fs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// newTools returns the tools on a fresh workspace directory (not yet
// created: the tools create it).
func newTools(t *testing.T) (string, map[string]tools.Tool) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ws")
	m := map[string]tools.Tool{}
	for _, tl := range Tools(func(who tools.Who) (string, error) { return dir, nil }) {
		m[tl.Spec().Name] = tl
	}
	return dir, m
}

// run calls a tool and folds a returned error into the result, as the
// runner does.
func run(t *testing.T, tl tools.Tool, args any) tools.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tl.Call(context.Background(), tools.Call{Name: tl.Spec().Name, Args: raw, Who: tools.Who{AgentID: "main"}})
	if err != nil {
		return tools.Result{Text: err.Error(), IsError: true}
	}
	return res
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestSpecs(t *testing.T) {
	_, m := newTools(t)
	for name, dangerous := range map[string]bool{"read": false, "write": true, "edit": true, "apply_patch": true} {
		tl := m[name]
		if tl == nil {
			t.Fatalf("no %s tool", name)
		}
		s := tl.Spec()
		if s.Dangerous != dangerous || s.Source != tools.SourceCore || s.Timeout != tools.TimeoutFast ||
			len(s.Groups) != 1 || s.Groups[0] != "group:fs" || len(s.Parameters) == 0 || s.Description == "" {
			t.Errorf("%s spec = %+v", name, s)
		}
	}
}

func TestWorkspaceCreated(t *testing.T) {
	dir, m := newTools(t)
	if r := run(t, m["write"], map[string]any{"path": "a.txt", "content": "x"}); r.IsError {
		t.Fatal(r.Text)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("workspace %v, %v", fi, err)
	}
}

func TestWrite(t *testing.T) {
	dir, m := newTools(t)
	f := false
	tests := []struct {
		name    string
		args    map[string]any
		want    string // result text, or error substring
		wantErr bool
	}{
		{"new", map[string]any{"path": "a.txt", "content": "hello"}, "wrote 5 bytes to a.txt", false},
		{"nested", map[string]any{"path": "d/e/f.txt", "content": "x"}, "wrote 1 bytes to d/e/f.txt", false},
		{"absolute inside", map[string]any{"path": filepath.Join(dir, "abs.txt"), "content": ""}, "wrote 0 bytes to abs.txt", false},
		{"no createDirs", map[string]any{"path": "missing/f.txt", "content": "x", "createDirs": f}, "directory missing does not exist", true},
		{"directory", map[string]any{"path": "d", "content": "x"}, "d is a directory", true},
		{"missing content", map[string]any{"path": "b.txt"}, "missing required content", true},
		{"unknown field", map[string]any{"path": "b.txt", "content": "", "mode": 7}, `unknown field "mode"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, m["write"], tt.args)
			if r.IsError != tt.wantErr || !strings.Contains(r.Text, tt.want) {
				t.Fatalf("got %q (error %v), want %q", r.Text, r.IsError, tt.want)
			}
		})
	}
	for path, perm := range map[string]os.FileMode{"a.txt": 0o600, "d/e/f.txt": 0o600, "d": 0o700, "d/e": 0o700} {
		fi, err := os.Stat(filepath.Join(dir, path))
		if err != nil || fi.Mode().Perm() != perm {
			t.Errorf("%s: %v %v, want mode %v", path, fi, err, perm)
		}
	}
	// Replacing a file keeps its mode; no temporary file is left behind.
	os.Chmod(filepath.Join(dir, "a.txt"), 0o750)
	run(t, m["write"], map[string]any{"path": "a.txt", "content": "again"})
	if fi, _ := os.Stat(filepath.Join(dir, "a.txt")); fi.Mode().Perm() != 0o750 {
		t.Errorf("mode after replace = %v", fi.Mode())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "again" {
		t.Errorf("content = %q", b)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("left %s", e.Name())
		}
	}
}

func TestEdit(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		args    map[string]any
		want    string // result text or error
		after   string
		wantErr bool
	}{
		{"one", "a b c", map[string]any{"oldText": "b", "newText": "B"}, "replaced 1 match in f.txt", "a B c", false},
		{"multi-line", "x\ny\nz\n", map[string]any{"oldText": "y\nz", "newText": "Y"}, "replaced 1 match in f.txt", "x\nY\n", false},
		{"missing", "a b c", map[string]any{"oldText": "q", "newText": "Q"}, "oldText not found in f.txt", "a b c", true},
		{"ambiguous", "a a a", map[string]any{"oldText": "a", "newText": "b"}, "oldText matches 3 places in f.txt; add context or set replaceAll", "a a a", true},
		{"replaceAll", "a a a", map[string]any{"oldText": "a", "newText": "b", "replaceAll": true}, "replaced 3 matches in f.txt", "b b b", false},
		{"empty oldText", "a", map[string]any{"oldText": "", "newText": "b"}, "edit f.txt: oldText is empty", "a", true},
		{"delete text", "keep drop", map[string]any{"oldText": " drop", "newText": ""}, "replaced 1 match in f.txt", "keep", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, m := newTools(t)
			writeFile(t, filepath.Join(dir, "f.txt"), tt.file)
			tt.args["path"] = "f.txt"
			r := run(t, m["edit"], tt.args)
			if r.IsError != tt.wantErr || r.Text != tt.want {
				t.Fatalf("got %q (error %v), want %q", r.Text, r.IsError, tt.want)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(b) != tt.after {
				t.Errorf("file = %q, want %q", b, tt.after)
			}
		})
	}
	_, m := newTools(t)
	if r := run(t, m["edit"], map[string]any{"path": "nope.txt", "oldText": "a", "newText": "b"}); !r.IsError || !strings.Contains(r.Text, "nope.txt") {
		t.Errorf("missing file: %q", r.Text)
	}
}

func TestWriteNewNeverReplaces(t *testing.T) {
	ws, err := OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for i, want := range []string{"exports/a.txt", "exports/a-2.txt", "exports/a-3.txt"} {
		rel, err := WriteNew(ws.Root(), "exports", "a", "txt", []byte{byte('0' + i)})
		if err != nil || rel != want {
			t.Fatalf("write %d: %q, %v; want %q", i, rel, err, want)
		}
	}
	if b, _ := ws.Root().ReadFile("exports/a.txt"); string(b) != "0" {
		t.Fatalf("first file replaced: %q", b)
	}
}
