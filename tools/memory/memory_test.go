package memory

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
	"github.com/openclaw-go/openclaw/tools"
)

// fixture is the memory tools over two agents' workspaces and one DB.
type fixture struct {
	db              *sql.DB
	dirs            map[string]string // agent → workspace
	ws, search, get tools.Tool
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	st := storetest.Open(t, Migrations())
	base := t.TempDir()
	f := &fixture{db: st.DB, dirs: map[string]string{
		"alice": filepath.Join(base, "alice"),
		"bob":   filepath.Join(base, "bob"),
	}}
	ts := Tools(func(who tools.Who) (string, error) { return f.dirs[who.AgentID], nil }, st.DB)
	if len(ts) != 3 {
		t.Fatalf("Tools returned %d tools", len(ts))
	}
	f.ws, f.search, f.get = ts[0], ts[1], ts[2]
	return f
}

func (f *fixture) call(t *testing.T, tl tools.Tool, agent, args string) (string, error) {
	t.Helper()
	r, err := tl.Call(context.Background(), tools.Call{Name: tl.Spec().Name, Args: json.RawMessage(args), Who: tools.Who{AgentID: agent}})
	if err == nil && r.IsError {
		t.Fatalf("%s %s: error result %q", tl.Spec().Name, args, r.Text)
	}
	return r.Text, err
}

func TestSpecs(t *testing.T) {
	f := newFixture(t)
	for _, tl := range []tools.Tool{f.ws, f.search, f.get} {
		s := tl.Spec()
		if s.Source != tools.SourceCore || s.Timeout != tools.TimeoutFast || s.Dangerous ||
			len(s.Groups) != 1 || s.Groups[0] != "group:memory" || !json.Valid(s.Parameters) {
			t.Errorf("%s: spec %+v", s.Name, s)
		}
	}
}

func TestWorkspaceMemory(t *testing.T) {
	f := newFixture(t)
	outside := filepath.Join(t.TempDir(), "secret.md")
	os.WriteFile(outside, []byte("secret"), 0o600)
	os.MkdirAll(f.dirs["alice"], 0o700)
	os.Symlink(outside, filepath.Join(f.dirs["alice"], "link.md"))
	os.WriteFile(filepath.Join(f.dirs["alice"], "notes.txt"), []byte("x"), 0o600)
	absInside := filepath.Join(f.dirs["alice"], "PROFILE.md")

	tests := []struct {
		name, args string
		want       string // substring of the result
		wantErr    string // substring of the error
	}{
		{"write new", `{"action":"write","path":"MEMORY.md","content":"# Memory\n\nLikes tea.\n"}`, "wrote 21 bytes to MEMORY.md", ""},
		{"read", `{"action":"read","path":"MEMORY.md"}`, "# Memory\n\nLikes tea.\n", ""},
		{"edit", `{"action":"edit","path":"MEMORY.md","oldText":"tea","newText":"coffee"}`, "edited MEMORY.md", ""},
		{"read edited", `{"action":"read","path":"./MEMORY.md"}`, "Likes coffee.", ""},
		{"write daily note makes dir", `{"action":"write","path":"memory/2026-11-30.md","content":"went hiking"}`, "memory/2026-11-30.md", ""},
		{"write absolute inside", `{"action":"write","path":"` + absInside + `","content":"name: Alice"}`, "PROFILE.md", ""},
		{"list", `{"action":"list"}`, "MEMORY.md\t", ""},
		{"list dir", `{"action":"list","path":"memory"}`, "memory/2026-11-30.md\t", ""},
		{"edit missing text", `{"action":"edit","path":"MEMORY.md","oldText":"juice","newText":"x"}`, "", "oldText was not found"},
		{"edit ambiguous", `{"action":"edit","path":"MEMORY.md","oldText":"e","newText":"x"}`, "", "occurs"},
		{"edit no newText", `{"action":"edit","path":"MEMORY.md","oldText":"coffee"}`, "", "newText is required"},
		{"edit missing file", `{"action":"edit","path":"nope.md","oldText":"a","newText":"b"}`, "", "does not exist"},
		{"read missing", `{"action":"read","path":"nope.md"}`, "", "does not exist"},
		{"write no content", `{"action":"write","path":"x.md"}`, "", "content is required"},
		{"non-md", `{"action":"read","path":"notes.txt"}`, "", "not a Markdown file"},
		{"write non-md", `{"action":"write","path":"run.sh","content":"x"}`, "", "not a Markdown file"},
		{"traversal", `{"action":"write","path":"../escape.md","content":"x"}`, "", "outside the workspace"},
		{"deep traversal", `{"action":"read","path":"memory/../../bob/MEMORY.md"}`, "", "outside the workspace"},
		{"absolute outside", `{"action":"read","path":"` + outside + `"}`, "", "outside the workspace"},
		{"symlink escape", `{"action":"read","path":"link.md"}`, "", "path escapes"},
		{"backslash", `{"action":"read","path":"..\\x.md"}`, "", "forward slashes"},
		{"empty path", `{"action":"read"}`, "", "path is empty"},
		{"unknown action", `{"action":"delete","path":"MEMORY.md"}`, "", "unknown action"},
		{"list traversal", `{"action":"list","path":".."}`, "", "outside the workspace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.call(t, f.ws, "alice", tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(got, tt.want) {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(f.dirs["alice"]), "escape.md")); err == nil {
		t.Error("a write escaped the workspace")
	}
	left, _ := filepath.Glob(filepath.Join(f.dirs["alice"], ".memory-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if fi, err := os.Stat(filepath.Join(f.dirs["alice"], "MEMORY.md")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("MEMORY.md mode: %v, %v", fi, err)
	}
}

func TestGet(t *testing.T) {
	f := newFixture(t)
	os.MkdirAll(f.dirs["alice"], 0o700)
	os.WriteFile(filepath.Join(f.dirs["alice"], "MEMORY.md"), []byte("one\ntwo\nthree\nfour\n"), 0o600)
	os.WriteFile(filepath.Join(f.dirs["alice"], "empty.md"), nil, 0o600)
	tests := []struct {
		name, args string
		want       getResult
		wantErr    string
	}{
		{"whole", `{"path":"MEMORY.md"}`, getResult{Path: "MEMORY.md", StartLine: 1, EndLine: 4, TotalLines: 4, Text: "one\ntwo\nthree\nfour"}, ""},
		{"range", `{"path":"MEMORY.md","startLine":2,"lines":2}`, getResult{Path: "MEMORY.md", StartLine: 2, EndLine: 3, TotalLines: 4, Text: "two\nthree", NextStartLine: 4}, ""},
		{"to end", `{"path":"MEMORY.md","startLine":4,"lines":10}`, getResult{Path: "MEMORY.md", StartLine: 4, EndLine: 4, TotalLines: 4, Text: "four"}, ""},
		{"empty file", `{"path":"empty.md"}`, getResult{Path: "empty.md", StartLine: 1}, ""},
		{"past end", `{"path":"MEMORY.md","startLine":9}`, getResult{}, "past the end"},
		{"non-md", `{"path":"../MEMORY.txt"}`, getResult{}, "outside the workspace"},
		{"txt", `{"path":"x.txt"}`, getResult{}, "not a Markdown file"},
		{"missing", `{"path":"nope.md"}`, getResult{}, "does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.call(t, f.get, "alice", tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var res getResult
			if err := json.Unmarshal([]byte(got), &res); err != nil || res != tt.want {
				t.Fatalf("got %+v (%v); want %+v", res, err, tt.want)
			}
		})
	}
}

func TestMain(m *testing.M) { pgtest.Main(m) }
