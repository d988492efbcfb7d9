package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// fsTree builds a directory with subdirectories, hidden ones, files and
// symlinks (to a directory inside, to one outside, to a file, dangling).
func fsTree(t *testing.T) (root, outside string) {
	t.Helper()
	root, outside = t.TempDir(), t.TempDir()
	for _, d := range []string{"b", "a", ".hidden", "Zed", "a/deep"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"file.txt", ".dotfile"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"link-in":      filepath.Join(root, "a"),
		"link-out":     outside,
		".link-hidden": outside,
		"link-file":    filepath.Join(root, "file.txt"),
		"link-dangle":  filepath.Join(root, "missing"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	return root, outside
}

func invokeListDir(t *testing.T, h *Host, params string) (dirListing, string, *resultError) {
	t.Helper()
	req := invokeRequest{ID: "i1", NodeID: "n1", Command: CmdFsListDir}
	if params != "" {
		req.ParamsJSON = &params
	}
	res := h.invoke(context.Background(), req)
	if !res.OK {
		return dirListing{}, "", res.Error
	}
	var l dirListing
	dec := json.NewDecoder(strings.NewReader(res.PayloadJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		t.Fatalf("payload %s: %v", res.PayloadJSON, err)
	}
	return l, res.PayloadJSON, nil
}

func names(l dirListing) []string {
	out := []string{}
	for _, e := range l.Entries {
		out = append(out, e.Name)
	}
	return out
}

func TestListDir(t *testing.T) {
	h := newTestHost(t, "", "")
	if !slices.Contains(h.Commands(), CmdFsListDir) {
		t.Fatalf("fs.listDir not declared: %v", h.Commands())
	}
	root, outside := fsTree(t)
	notReadable := filepath.Join(root, "b")
	file := filepath.Join(root, "file.txt")
	all := []string{"Zed", "a", "b", "link-in", "link-out", ".hidden", ".link-hidden"}

	tests := []struct {
		name      string
		params    string
		want      []string // entry names, in order
		truncated bool
		wantCode  string
		wantMsg   string
	}{
		{name: "subdirectories, hidden last", params: fmt.Sprintf(`{"path":%q}`, root), want: all},
		{name: "unclean path", params: fmt.Sprintf(`{"path":%q}`, root+"/a/../"), want: all},
		{name: "limit truncates", params: fmt.Sprintf(`{"path":%q,"limit":2}`, root), want: []string{"Zed", "a"}, truncated: true},
		{name: "limit equal to count", params: fmt.Sprintf(`{"path":%q,"limit":7}`, root), want: all},
		{name: "null limit is the default", params: fmt.Sprintf(`{"path":%q,"limit":null}`, root), want: all},
		{name: "nested", params: fmt.Sprintf(`{"path":%q}`, filepath.Join(root, "a")), want: []string{"deep"}},
		{name: "empty dir", params: fmt.Sprintf(`{"path":%q}`, filepath.Join(root, "a", "deep")), want: []string{}},
		{name: "symlinked dir is listed", params: fmt.Sprintf(`{"path":%q}`, filepath.Join(root, "link-in")), want: []string{"deep"}},
		{name: "relative path", params: `{"path":"a/b"}`, wantCode: "INVALID_REQUEST", wantMsg: "must be absolute"},
		{name: "dot path", params: `{"path":"."}`, wantCode: "INVALID_REQUEST", wantMsg: "must be absolute"},
		{name: "blank path", params: `{"path":"  "}`, wantCode: "INVALID_REQUEST", wantMsg: "must be absolute"},
		{name: "path not a string", params: `{"path":7}`, wantCode: "INVALID_REQUEST", wantMsg: "path must be a string"},
		{name: "null path", params: `{"path":null}`, wantCode: "INVALID_REQUEST", wantMsg: "path must be a string"},
		{name: "NUL in path", params: `{"path":"/tmp/\u0000x"}`, wantCode: "INVALID_REQUEST", wantMsg: "NUL"},
		{name: "missing dir", params: fmt.Sprintf(`{"path":%q}`, filepath.Join(root, "nope")), wantCode: "INVALID_REQUEST", wantMsg: "does not exist"},
		{name: "a file", params: fmt.Sprintf(`{"path":%q}`, file), wantCode: "INVALID_REQUEST", wantMsg: "is not a directory"},
		{name: "symlink to a file", params: fmt.Sprintf(`{"path":%q}`, filepath.Join(root, "link-file")), wantCode: "INVALID_REQUEST", wantMsg: "is not a directory"},
		{name: "dangling symlink", params: fmt.Sprintf(`{"path":%q}`, filepath.Join(root, "link-dangle")), wantCode: "INVALID_REQUEST", wantMsg: "does not exist"},
		{name: "limit zero", params: fmt.Sprintf(`{"path":%q,"limit":0}`, root), wantCode: "INVALID_REQUEST", wantMsg: "limit must be"},
		{name: "limit too big", params: fmt.Sprintf(`{"path":%q,"limit":%d}`, root, MaxListDirEntries+1), wantCode: "INVALID_REQUEST", wantMsg: "limit must be"},
		{name: "limit not an integer", params: fmt.Sprintf(`{"path":%q,"limit":1.5}`, root), wantCode: "INVALID_REQUEST", wantMsg: "limit must be"},
		{name: "params not an object", params: `["/"]`, wantCode: "INVALID_REQUEST"},
	}
	if runtime.GOOS != "windows" && os.Geteuid() != 0 {
		if err := os.Chmod(notReadable, 0o311); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(notReadable, 0o755) })
		tests = append(tests, struct {
			name      string
			params    string
			want      []string
			truncated bool
			wantCode  string
			wantMsg   string
		}{name: "unreadable dir", params: fmt.Sprintf(`{"path":%q}`, notReadable), wantCode: "INVALID_REQUEST", wantMsg: "not readable: permission denied"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, payload, rerr := invokeListDir(t, h, tt.params)
			if tt.wantCode != "" {
				if rerr == nil || rerr.Code != tt.wantCode || !strings.Contains(rerr.Message, tt.wantMsg) ||
					!strings.HasPrefix(rerr.Message, tt.wantCode+": ") {
					t.Fatalf("got %+v (payload %s), want %s %q", rerr, payload, tt.wantCode, tt.wantMsg)
				}
				return
			}
			if rerr != nil {
				t.Fatalf("error %+v", rerr)
			}
			if got := names(l); !slices.Equal(got, tt.want) {
				t.Fatalf("entries %v, want %v", got, tt.want)
			}
			if l.Truncated != tt.truncated || strings.Contains(payload, "truncated") != tt.truncated {
				t.Fatalf("truncated %v, want %v: %s", l.Truncated, tt.truncated, payload)
			}
			if !strings.Contains(payload, `"entries":[`) {
				t.Fatalf("entries not an array: %s", payload)
			}
			if l.Home == "" || !filepath.IsAbs(l.Path) || l.Parent != filepath.Dir(l.Path) {
				t.Fatalf("listing %s", payload)
			}
			for _, e := range l.Entries {
				if e.Path != filepath.Join(l.Path, e.Name) || e.Hidden != strings.HasPrefix(e.Name, ".") {
					t.Fatalf("entry %+v in %s", e, payload)
				}
			}
		})
	}

	// Symlinks are reported under their own path: nothing resolves to or
	// reads from the target.
	l, payload, rerr := invokeListDir(t, h, fmt.Sprintf(`{"path":%q}`, root))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if l.Path != root || strings.Contains(payload, outside) || strings.Contains(payload, "secret") {
		t.Fatalf("listing follows links: %s", payload)
	}
}

func TestListDirShape(t *testing.T) {
	h := newTestHost(t, "", "")
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, payload, rerr := invokeListDir(t, h, fmt.Sprintf(`{"path":%q}`, root))
	if rerr != nil {
		t.Fatal(rerr)
	}
	want := fmt.Sprintf(`{"path":%q,"parent":%q,"home":%q,"entries":[{"name":"src","path":%q},{"name":".git","path":%q,"hidden":true}]}`,
		root, filepath.Dir(root), homeDir(), filepath.Join(root, "src"), filepath.Join(root, ".git"))
	if payload != want {
		t.Fatalf("payload\n%s\nwant\n%s", payload, want)
	}

	// The filesystem root has no parent.
	if runtime.GOOS != "windows" {
		_, payload, rerr = invokeListDir(t, h, `{"path":"/"}`)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if strings.Contains(payload, `"parent"`) || !strings.HasPrefix(payload, `{"path":"/","home":`) {
			t.Fatalf("root listing %s", payload)
		}
	}
}

func TestListDirDefaultsToHome(t *testing.T) {
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "projects"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	h := newTestHost(t, "", "")
	for _, params := range []string{"", `{}`, `{"path":""}`, `null`} {
		l, payload, rerr := invokeListDir(t, h, params)
		if rerr != nil {
			t.Fatalf("%q: %+v", params, rerr)
		}
		if l.Path != home || l.Home != home || !slices.Equal(names(l), []string{"projects"}) {
			t.Fatalf("%q: %s", params, payload)
		}
	}
}

func TestListDirCapsEntries(t *testing.T) {
	h := newTestHost(t, "", "")
	root := t.TempDir()
	for i := range MaxListDirEntries + 3 {
		if err := os.Mkdir(filepath.Join(root, fmt.Sprintf("d%05d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	l, _, rerr := invokeListDir(t, h, fmt.Sprintf(`{"path":%q}`, root))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if len(l.Entries) != MaxListDirEntries || !l.Truncated || l.Entries[0].Name != "d00000" ||
		l.Entries[MaxListDirEntries-1].Name != fmt.Sprintf("d%05d", MaxListDirEntries-1) {
		t.Fatalf("%d entries, truncated %v, first %v", len(l.Entries), l.Truncated, l.Entries[0])
	}
}

func TestListDirTimeout(t *testing.T) {
	h := newTestHost(t, "", "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	raw := json.RawMessage(fmt.Sprintf(`{"path":%q}`, t.TempDir()))
	_, perr := h.listDir(ctx, raw, 0)
	if perr == nil || perr.Code != "UNAVAILABLE" {
		t.Fatalf("cancelled: %v", perr)
	}
	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, perr = h.listDir(ctx, raw, time.Minute)
	if perr == nil || perr.Code != protocol.CodeTimeout {
		t.Fatalf("deadline: %v", perr)
	}
}

func TestListDirOptOut(t *testing.T) {
	h, err := New(Config{URL: "ws://127.0.0.1:1", StateDir: t.TempDir(), Commands: []string{CmdSystemWhich}})
	if err != nil {
		t.Fatal(err)
	}
	p := `{"path":"/"}`
	res := h.invoke(context.Background(), invokeRequest{ID: "i", Command: CmdFsListDir, ParamsJSON: &p})
	if res.OK || res.Error == nil || res.Error.Code != "UNAVAILABLE" {
		t.Fatalf("undeclared fs.listDir served: %+v", res)
	}
	if _, err := New(Config{URL: "ws://127.0.0.1:1", StateDir: t.TempDir(), Commands: []string{CmdFsListDir}}); err != nil {
		t.Fatalf("--commands fs.listDir: %v", err)
	}
}

// TestFSError covers the messages for paths a root test run cannot make
// unreadable.
func TestFSError(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "open", Path: "/x", Err: fs.ErrPermission}, "INVALID_REQUEST: fs.listDir /x is not readable: permission denied"},
		{&fs.PathError{Op: "stat", Path: "/x", Err: fs.ErrNotExist}, "INVALID_REQUEST: fs.listDir /x does not exist"},
		{&fs.PathError{Op: "readdirent", Path: "/x", Err: errors.New("input/output error")}, "INVALID_REQUEST: fs.listDir /x is not readable: input/output error"},
	}
	for _, tt := range tests {
		if got := fsError("/x", tt.err); got.Code != "INVALID_REQUEST" || got.Message != tt.want {
			t.Errorf("fsError(%v) = %v, want %q", tt.err, got, tt.want)
		}
	}
}
