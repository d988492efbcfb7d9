package fs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// TestWorkspaceConfinement runs the path-escape table (security.md A2.5:
// GHSA-r5fq-947m-xm57, CVE-2026-32055, CVE-2026-27523) through every
// tool and checks that nothing outside the workspace is read or changed.
func TestWorkspaceConfinement(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.txt"), "secret\n")
	// setup makes a fresh workspace for each call, as calls change it.
	setup := func(t *testing.T) map[string]tools.Tool {
		dir, m := newTools(t)
		writeFile(t, filepath.Join(dir, "in.txt"), "inside\n")
		for link, target := range map[string]string{
			"out-link":   filepath.Join(outside, "secret.txt"),
			"out-dir":    outside,
			"dangling":   filepath.Join(outside, "created.txt"),
			"dangle-dir": filepath.Join(outside, "newdir"),
		} {
			if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Link(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "hard.txt")); err != nil {
			t.Fatal(err)
		}
		return m
	}
	tests := []struct {
		name string
		path string
		// lexical is the error every tool gives before touching the disk;
		// "" means the os.Root walk decides (symlinks).
		lexical string
	}{
		{"dot-dot", "../x", `path "../x" is outside the workspace`},
		{"dot-dot secret", "../" + filepath.Base(outside) + "/secret.txt", "is outside the workspace"},
		{"etc passwd", "/etc/passwd", `path "/etc/passwd" is outside the workspace`},
		{"absolute outside", filepath.Join(outside, "secret.txt"), "is outside the workspace"},
		{"inner dot-dot", "a/../../x", `path "a/../../x" is outside the workspace`},
		{"deep dot-dot", "a/b/../../../x", "is outside the workspace"},
		{"NUL", "in.txt\x00../../x", "contains a NUL byte"},
		{"very long path", strings.Repeat("a/", 3000) + "x", "is too long"},
		{"very long name", strings.Repeat("n", 300), "longer than 255 bytes"},
		{"windows long path", `\\?\C:\Windows\x`, "contains a backslash"},
		{"backslash dot-dot", `..\x`, "contains a backslash"},
		{"symlink to outside file", "out-link", ""},
		{"symlinked dir to outside", "out-dir/secret.txt", ""},
		{"new file in symlinked dir", "out-dir/new.txt", ""},
		{"dangling symlink to outside", "dangling", ""},
		{"missing leaf under dangling dir", "dangle-dir/x.txt", ""},
		{"hard link to outside file", "hard.txt", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := map[string]map[string]any{
				"read":  {"path": tt.path},
				"write": {"path": tt.path, "content": "pwned\n"},
				"edit":  {"path": tt.path, "oldText": "secret", "newText": "pwned"},
			}
			for _, patch := range []string{
				"*** Begin Patch\n*** Add File: " + tt.path + "\n+pwned\n*** End Patch",
				"*** Begin Patch\n*** Update File: " + tt.path + "\n-secret\n+pwned\n*** End Patch",
				"*** Begin Patch\n*** Delete File: " + tt.path + "\n*** End Patch",
				"*** Begin Patch\n*** Update File: in.txt\n*** Move to: " + tt.path + "\n-inside\n+pwned\n*** End Patch",
			} {
				calls["apply_patch "+patch] = map[string]any{"patch": patch}
			}
			for name, args := range calls {
				tool := setup(t)[strings.Fields(name)[0]]
				r := run(t, tool, args)
				if strings.Contains(r.Text, "secret\n") {
					t.Errorf("%s: read outside: %q", name, r.Text)
				}
				if name == "read" && strings.Contains(r.Text, "secret") && !strings.Contains(r.Text, "secret.txt") {
					t.Errorf("%s: read outside: %q", name, r.Text)
				}
				if tt.lexical != "" && (!r.IsError || !strings.Contains(r.Text, tt.lexical)) {
					t.Errorf("%s: got %q, want error %q", name, r.Text, tt.lexical)
				}
				// Only write may succeed: it replaces the symlink (or hard
				// link) itself with a file inside the workspace.
				if tool.Spec().Name != "write" && !r.IsError {
					t.Errorf("%s: not refused: %q", name, r.Text)
				}
				assertOutsideIntact(t, outside)
			}
		})
	}
}

// TestHardLinkRefused performs the attack of a hard link in the
// workspace to a file outside it, which os.Root cannot see: the link is a
// regular file. Every tool that reads the file must refuse it and say why
// and what to do; write replaces the name with a new file, leaving the
// outside file as it was.
func TestHardLinkRefused(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.txt"), "secret\n")
	dir, m := newTools(t)
	writeFile(t, filepath.Join(dir, "own.txt"), "own\n")
	if err := os.Link(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "hard.txt")); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string]map[string]any{
		"read":        {"path": "hard.txt"},
		"edit":        {"path": "hard.txt", "oldText": "secret", "newText": "pwned"},
		"apply_patch": {"patch": "*** Begin Patch\n*** Update File: hard.txt\n-secret\n+pwned\n*** End Patch"},
	} {
		r := run(t, m[name], args)
		if !r.IsError || !strings.Contains(r.Text, "hard.txt") || !strings.Contains(r.Text, "more than one hard link") || !strings.Contains(r.Text, "cp, not ln") {
			t.Errorf("%s: %q", name, r.Text)
		}
	}
	if r := run(t, m["read"], map[string]any{"path": "own.txt"}); r.IsError || !strings.Contains(r.Text, "own") {
		t.Errorf("read of a file with one link: %q", r.Text)
	}
	if r := run(t, m["write"], map[string]any{"path": "hard.txt", "content": "mine\n"}); r.IsError {
		t.Fatalf("write: %q", r.Text)
	}
	if r := run(t, m["read"], map[string]any{"path": "hard.txt"}); r.IsError || !strings.Contains(r.Text, "mine") {
		t.Errorf("read after write: %q", r.Text)
	}
	assertOutsideIntact(t, outside)
}

// assertOutsideIntact checks that outside holds only secret.txt, unchanged.
func assertOutsideIntact(t *testing.T, outside string) {
	t.Helper()
	var names []string
	filepath.WalkDir(outside, func(p string, d os.DirEntry, err error) error {
		if p != outside {
			names = append(names, strings.TrimPrefix(p, outside+"/"))
		}
		return nil
	})
	if !slices.Equal(names, []string{"secret.txt"}) {
		t.Errorf("outside holds %q", names)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != "secret\n" {
		t.Errorf("secret.txt = %q", b)
	}
}

// TestConfinementUnicodeDots checks that look-alike dots are plain names
// that stay inside the workspace.
func TestConfinementUnicodeDots(t *testing.T) {
	dir, m := newTools(t)
	for _, p := range []string{"\u2024\u2024/x", "\uff0e\uff0e/y", "\u2025/z"} {
		if r := run(t, m["write"], map[string]any{"path": p, "content": "ok"}); r.IsError {
			t.Fatalf("%q: %s", p, r.Text)
		}
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%q not inside the workspace: %v", p, err)
		}
	}
}

// TestConfinementParentSwap swaps a parent directory for a symlink to
// outside in a loop while writing through it (CVE-2026-32977,
// CVE-2026-33574): nothing may ever land outside.
func TestConfinementParentSwap(t *testing.T) {
	dir, m := newTools(t)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.txt"), "secret\n")
	sub, real := filepath.Join(dir, "sub"), filepath.Join(dir, "sub-real")
	writeFile(t, filepath.Join(sub, "f.txt"), "start\n")

	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			// Errors are expected while the tools race us; keep swapping.
			os.Rename(sub, real)
			os.Symlink(outside, sub)
			os.Remove(sub)
			os.Rename(real, sub)
		}
	}()
	f := false
	for i := range 300 {
		run(t, m["write"], map[string]any{"path": "sub/f.txt", "content": "pwned\n"})
		run(t, m["write"], map[string]any{"path": "sub/secret.txt", "content": "pwned\n", "createDirs": f})
		run(t, m["edit"], map[string]any{"path": "sub/secret.txt", "oldText": "secret", "newText": "pwned"})
		if i%10 == 0 {
			run(t, m["apply_patch"], map[string]any{"patch": "*** Begin Patch\n*** Add File: sub/new.txt\n+pwned\n*** Delete File: sub/secret.txt\n*** End Patch"})
		}
	}
	close(done)
	wg.Wait()
	assertOutsideIntact(t, outside)
}
