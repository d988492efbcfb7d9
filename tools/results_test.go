package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/gateway/store/storetest"
	"github.com/openclaw-go/openclaw/policy/execpolicy"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/docextract"
	"github.com/openclaw-go/openclaw/tools/fs"
	"github.com/openclaw-go/openclaw/tools/memory"
	"github.com/openclaw-go/openclaw/tools/netguard"
	"github.com/openclaw-go/openclaw/tools/shell"
	"github.com/openclaw-go/openclaw/tools/web"
)

// giantLine is one line of 100,000 characters, some of them three bytes
// long, so that characters and bytes differ.
func giantLine() string {
	var b strings.Builder
	for i := range 100_000 {
		if i%10 == 0 {
			b.WriteRune('字')
		} else {
			b.WriteByte(byte('a' + i%26))
		}
	}
	return b.String()
}

// manyLines are 3,000 lines of about 60 characters, numbered.
func manyLines() string {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "line %04d %s\n", i, strings.Repeat("m", 50))
	}
	return b.String()
}

var (
	nextStart  = regexp.MustCompile(`nextStartLine=(\d+)(?: nextStartColumn=(\d+))?\]$`)
	nextOffset = regexp.MustCompile(`call log with offset=(\d+)\]$`)
)

// resultCase is one tool's oversized answer: the call, how to follow its
// continuation hint (nil when it has none) and what paging must yield.
type resultCase struct {
	name  string
	tool  string
	args  map[string]any
	json  bool
	hint  string // must survive the cap
	next  func(t *testing.T, text string, got *strings.Builder) map[string]any
	whole string // what the pages put together give back, when paged
}

// TestEveryToolFitsTheRunnersCap runs each tool that can answer long
// through the Runner with its real cap: every answer fits, JSON stays
// JSON, and the tool's continuation hints survive, so paging by them
// gives back the whole file.
func TestEveryToolFitsTheRunnersCap(t *testing.T) {
	ws := t.TempDir()
	workspace := func(tools.Who) (string, error) { return ws, nil }
	giant, lines := giantLine(), manyLines()
	for name, content := range map[string]string{"giant.txt": giant, "lines.txt": lines, "memory/notes.md": lines, "memory/giant.md": giant, "doc.txt": giant} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st := storetest.Open(t, memory.Migrations())
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, giant)
	}))
	defer page.Close()

	full := execpolicy.DefaultPolicy()
	full.Security = execpolicy.SecurityFull
	full.Ask = execpolicy.AskOff
	procs := shell.NewProcesses()
	reg := tools.NewRegistry()
	all := append(fs.Tools(workspace), shell.Tools(shell.Config{Workspace: workspace, Policy: func(string) execpolicy.Policy { return full }}, procs)...)
	all = append(all, memory.Tools(workspace, st.DB)...)
	all = append(all, docextract.Tools(workspace)...)
	all = append(all, web.FetchTool(web.FetchConfig{Network: netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}}))
	if err := reg.Register(all...); err != nil {
		t.Fatal(err)
	}
	runner := &tools.Runner{Registry: reg}
	who := tools.Who{AgentID: "main", SessionKey: "agent:main:main", Owner: true}

	// A background run whose log is longer than one answer.
	bg := runner.Run(context.Background(), tools.Call{Name: "exec", Who: who,
		Args: json.RawMessage(`{"command":"i=0; while [ $i -lt 3000 ]; do printf 'log %04d mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm\n' $i; i=$((i+1)); done","background":true}`)})
	var started struct{ SessionID string }
	if err := json.Unmarshal([]byte(bg.Text), &started); err != nil || started.SessionID == "" {
		t.Fatalf("background exec: %s", bg.Text)
	}
	waitForExit(t, runner, who, started.SessionID)
	var wantLog strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&wantLog, "log %04d %s\n", i, strings.Repeat("m", 48))
	}

	readNext := func(path string) func(*testing.T, string, *strings.Builder) map[string]any {
		return func(t *testing.T, text string, got *strings.Builder) map[string]any {
			_, body, _ := strings.Cut(text, "\n")
			m := nextStart.FindStringSubmatch(body)
			if m == nil {
				got.WriteString(body + "\n")
				return nil
			}
			got.WriteString(body[:strings.LastIndex(body, "\n[truncated")])
			line, _ := strconv.Atoi(m[1])
			if m[2] == "" {
				got.WriteString("\n")
				return map[string]any{"path": path, "startLine": line}
			}
			col, _ := strconv.Atoi(m[2])
			return map[string]any{"path": path, "startLine": line, "startColumn": col}
		}
	}
	tests := []resultCase{
		{name: "read pages a giant line by column", tool: "read", args: map[string]any{"path": "giant.txt"},
			hint: "nextStartColumn=", next: readNext("giant.txt"), whole: giant + "\n"},
		{name: "read pages many lines", tool: "read", args: map[string]any{"path": "lines.txt"},
			hint: "nextStartLine=", next: readNext("lines.txt"), whole: lines},
		{name: "exec with both streams near their caps", tool: "exec", json: true, hint: `"exitCode":3`,
			args: map[string]any{"command": `i=0; while [ $i -lt 400 ]; do printf '"quoted" <tag> \\ %04d\n' $i; printf 'err\t"%04d" warning: something odd\n' $i >&2; i=$((i+1)); done; exit 3`}},
		{name: "process log leaves the rest to offset", tool: "process", args: map[string]any{"action": "log", "sessionId": started.SessionID, "offset": 0, "limit": 3000},
			hint: "offset=", whole: wantLog.String(), next: func(t *testing.T, text string, got *strings.Builder) map[string]any {
				m := nextOffset.FindStringSubmatch(text)
				if m == nil {
					got.WriteString(text + "\n")
					return nil
				}
				got.WriteString(text[:strings.LastIndex(text, "\n[")] + "\n")
				off, _ := strconv.Atoi(m[1])
				return map[string]any{"action": "log", "sessionId": started.SessionID, "offset": off, "limit": 3000}
			}},
		{name: "memory_get leaves the rest to nextStartLine", tool: "memory_get", json: true, args: map[string]any{"path": "memory/notes.md"},
			hint: `"nextStartLine":`, whole: lines, next: func(t *testing.T, text string, got *strings.Builder) map[string]any {
				var r struct {
					Text          string
					NextStartLine int
				}
				if err := json.Unmarshal([]byte(text), &r); err != nil {
					t.Fatal(err)
				}
				got.WriteString(r.Text + "\n")
				if r.NextStartLine == 0 {
					return nil
				}
				return map[string]any{"path": "memory/notes.md", "startLine": r.NextStartLine}
			}},
		{name: "memory_get of one line longer than an answer", tool: "memory_get", json: true, args: map[string]any{"path": "memory/giant.md"}, hint: `startColumn`},
		{name: "DocumentExtractTool says how to read on", tool: "DocumentExtractTool", args: map[string]any{"path": "doc.txt"}, hint: "read (startLine)"},
		{name: "web_fetch keeps its truncation note", tool: "web_fetch", args: map[string]any{"url": page.URL + "/big.txt"}, hint: "[Truncated: showing the first"},
	}
	limit := tools.DefaultMaxResultChars
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got strings.Builder
			args := tt.args
			for n := 0; args != nil; n++ {
				if n > 40 {
					t.Fatal("too many pages")
				}
				raw, _ := json.Marshal(args)
				res := runner.Run(context.Background(), tools.Call{Name: tt.tool, Args: raw, Who: who})
				if res.IsError && tt.tool != "exec" {
					t.Fatalf("page %d: %s", n, res.Text)
				}
				if c := utf8.RuneCountInString(res.Text); c > limit {
					t.Fatalf("page %d: %d characters, over the cap of %d", n, c, limit)
				}
				if strings.Contains(res.Text, "[output truncated:") || strings.Contains(res.Text, "…[truncated: ") {
					t.Fatalf("page %d: the runner had to cut it:\n%s", n, res.Text[len(res.Text)-200:])
				}
				if tt.json && !json.Valid([]byte(res.Text)) {
					t.Fatalf("page %d is not JSON", n)
				}
				if n == 0 && !strings.Contains(res.Text, tt.hint) {
					t.Fatalf("hint %q lost; the answer ends %q", tt.hint, res.Text[max(0, len(res.Text)-300):])
				}
				if tt.next == nil {
					break
				}
				args = tt.next(t, res.Text, &got)
			}
			if tt.next != nil && got.String() != tt.whole {
				t.Fatalf("pages give back %d characters, want %d", utf8.RuneCountInString(got.String()), utf8.RuneCountInString(tt.whole))
			}
		})
	}
}

// waitForExit polls the process tool until the run has ended (bounded).
func waitForExit(t *testing.T, r *tools.Runner, who tools.Who, id string) {
	t.Helper()
	for range 2000 {
		res := r.Run(context.Background(), tools.Call{Name: "process", Who: who, Args: json.RawMessage(`{"action":"poll","sessionId":"` + id + `"}`)})
		if strings.HasPrefix(res.Text, "[exited") {
			return
		}
		if res.IsError {
			t.Fatal(res.Text)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the background run did not end")
}
