package memory

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

func (f *fixture) hits(t *testing.T, agent, query string) []Hit {
	t.Helper()
	args, _ := json.Marshal(SearchArgs{Query: query})
	out, err := f.call(t, f.search, agent, string(args))
	if err != nil {
		t.Fatalf("search %q: %v", query, err)
	}
	var res searchResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("search %q: %v in %s", query, err, out)
	}
	return res.Results
}

func (f *fixture) write(t *testing.T, agent, rel, content string) {
	t.Helper()
	p := filepath.Join(f.dirs[agent], filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) rows(t *testing.T, agent, rel string) int {
	t.Helper()
	var n int
	if err := f.db.QueryRow(`SELECT count(*) FROM memory_chunks WHERE agent_id = ? AND path = ?`, agent, rel).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

const memoryMD = `# Memory

Alice prefers green tea in the morning.

## Work

Alice works on the Zephyr project,
a compiler for embedded boards.
`

func TestSearch(t *testing.T) {
	f := newFixture(t)
	f.write(t, "alice", "MEMORY.md", memoryMD)
	f.write(t, "alice", "memory/2026-11-30.md", "# 2026-11-30\n\nDentist appointment at 3pm.\n")
	f.write(t, "alice", "notes.txt", "dentist zephyr tea") // not Markdown: never indexed
	f.write(t, "alice", ".git/x.md", "dentist")            // hidden: never indexed
	f.write(t, "bob", "MEMORY.md", "Bob keeps bees and likes tea.\n")

	type want struct {
		path       string
		start, end int
	}
	tests := []struct {
		name, agent, query string
		want               []want // in order; nil means no hits
	}{
		{"word", "alice", "zephyr", []want{{"MEMORY.md", 5, 8}}},
		{"daily note", "alice", "dentist", []want{{"memory/2026-11-30.md", 1, 3}}},
		{"two words both", "alice", "green tea", []want{{"MEMORY.md", 1, 3}}},
		{"any word when not all match", "alice", "dentist bananas", []want{{"memory/2026-11-30.md", 1, 3}}},
		{"case and diacritics", "alice", "ZÉPHYR", []want{{"MEMORY.md", 5, 8}}},
		{"no match", "alice", "bananas", nil},
		{"isolation alice", "alice", "bees", nil},
		{"isolation bob", "bob", "tea", []want{{"MEMORY.md", 1, 1}}},
		{"isolation bob zephyr", "bob", "zephyr", nil},
		{"quote", "alice", `"zephyr`, []want{{"MEMORY.md", 5, 8}}},
		{"star", "alice", `zeph*`, nil},
		{"lone star", "alice", `*`, nil},
		{"AND operator word", "alice", `tea AND`, []want{{"MEMORY.md", 1, 3}}},
		{"paren", "alice", `(dentist`, []want{{"memory/2026-11-30.md", 1, 3}}},
		{"column filter", "alice", `body:dentist`, []want{{"memory/2026-11-30.md", 1, 3}}},
		{"NEAR and caret", "alice", `NEAR(^tea -`, []want{{"MEMORY.md", 1, 3}}},
		{"empty", "alice", ``, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := f.hits(t, tt.agent, tt.query)
			if len(hits) != len(tt.want) {
				t.Fatalf("got %d hits %+v; want %+v", len(hits), hits, tt.want)
			}
			for i, w := range tt.want {
				h := hits[i]
				if h.Path != w.path || h.StartLine != w.start || h.EndLine != w.end || h.Snippet == "" || h.Score <= 0 {
					t.Errorf("hit %d = %+v; want %+v", i, h, w)
				}
			}
		})
	}
	if h := f.hits(t, "alice", "zephyr"); !strings.Contains(h[0].Snippet, "**Zephyr**") {
		t.Errorf("snippet %q does not mark the match", h[0].Snippet)
	}
}

func TestSearchReindex(t *testing.T) {
	f := newFixture(t)
	f.write(t, "alice", "MEMORY.md", memoryMD)
	f.write(t, "alice", "memory/old.md", "An old note about kayaks.\n")
	if len(f.hits(t, "alice", "kayaks")) != 1 || len(f.hits(t, "alice", "zephyr")) != 1 {
		t.Fatal("initial index incomplete")
	}

	// An edit through the tool is seen by the next search.
	if _, err := f.call(t, f.ws, "alice", `{"action":"edit","path":"MEMORY.md","oldText":"Zephyr","newText":"Boreas"}`); err != nil {
		t.Fatal(err)
	}
	if h := f.hits(t, "alice", "zephyr"); len(h) != 0 {
		t.Errorf("stale hit after edit: %+v", h)
	}
	if h := f.hits(t, "alice", "boreas"); len(h) != 1 || h[0].StartLine != 5 {
		t.Errorf("edit not indexed: %+v", h)
	}

	// So is a change made behind the tools' back (new size and mtime).
	f.write(t, "alice", "MEMORY.md", "# Memory\n\nNothing but lighthouses.\n")
	if h := f.hits(t, "alice", "boreas"); len(h) != 0 {
		t.Errorf("stale hit after rewrite: %+v", h)
	}
	if h := f.hits(t, "alice", "lighthouses"); len(h) != 1 {
		t.Errorf("rewrite not indexed: %+v", h)
	}

	// A same-size rewrite with a new mtime too.
	f.write(t, "alice", "MEMORY.md", "# Memory\n\nNothing but watchtowers.\n")
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(f.dirs["alice"], "MEMORY.md"), later, later)
	if h := f.hits(t, "alice", "watchtowers"); len(h) != 1 {
		t.Errorf("same-size rewrite not indexed: %+v", h)
	}

	// Deleting a file drops its rows.
	if f.rows(t, "alice", "memory/old.md") == 0 {
		t.Fatal("no rows for memory/old.md")
	}
	os.Remove(filepath.Join(f.dirs["alice"], "memory", "old.md"))
	if h := f.hits(t, "alice", "kayaks"); len(h) != 0 {
		t.Errorf("hit in deleted file: %+v", h)
	}
	if n := f.rows(t, "alice", "memory/old.md"); n != 0 {
		t.Errorf("%d rows left for a deleted file", n)
	}
	var files int
	f.db.QueryRow(`SELECT count(*) FROM memory_files WHERE path = 'memory/old.md'`).Scan(&files)
	if files != 0 {
		t.Error("memory_files row left for a deleted file")
	}
}

func TestSearchLimit(t *testing.T) {
	f := newFixture(t)
	for i := range 60 {
		f.write(t, "alice", filepath.Join("memory", strings.Repeat("n", i%5+1)+string(rune('a'+i%26))+"-"+string(rune('a'+i/26))+".md"), "walrus\n")
	}
	tests := []struct {
		args string
		want int
	}{
		{`{"query":"walrus"}`, defaultLimit},
		{`{"query":"walrus","limit":3}`, 3},
		{`{"query":"walrus","limit":500}`, maxLimit},
	}
	for _, tt := range tests {
		out, err := f.call(t, f.search, "alice", tt.args)
		var res searchResult
		if err != nil || json.Unmarshal([]byte(out), &res) != nil || len(res.Results) != tt.want {
			t.Errorf("%s: %d results, %v; want %d", tt.args, len(res.Results), err, tt.want)
		}
	}
}

// queryCases seed FuzzMatchExpr: each must be a valid FTS5 expression
// once reduced.
var queryCases = []string{`"`, `*`, `AND`, `(`, `a OR b`, `NOT x`, `x NEAR/2 y`, `"unterminated`, `col:x`, `^a`, `a + b`, `{a b}:c`, `ünïcödé 日本語`, `-x`, `a""b`}

func FuzzMatchExpr(f *testing.F) {
	for _, q := range queryCases {
		f.Add(q)
	}
	fx := newFixture(f)
	ix := &index{db: fx.db}
	f.Fuzz(func(t *testing.T, q string) {
		terms := queryTerms(q)
		if len(terms) == 0 {
			return
		}
		for _, op := range []string{"AND", "OR"} {
			if _, err := ix.search(t.Context(), "alice", matchExpr(terms, op), 5); err != nil {
				t.Errorf("query %q: %v", q, err)
			}
		}
	})
}

func TestSearchConcurrent(t *testing.T) {
	f := newFixture(t)
	f.write(t, "alice", "MEMORY.md", memoryMD)
	f.write(t, "bob", "MEMORY.md", "Bob keeps bees.\n")
	done := make(chan []Hit)
	for i := range 8 {
		agent, q := "alice", "zephyr"
		if i%2 == 1 {
			agent, q = "bob", "bees"
		}
		go func() {
			args, _ := json.Marshal(SearchArgs{Query: q})
			r, err := f.search.Call(t.Context(), tools.Call{Args: args, Who: tools.Who{AgentID: agent}})
			var res searchResult
			if err == nil {
				err = json.Unmarshal([]byte(r.Text), &res)
			}
			if err != nil {
				t.Error(err)
			}
			done <- res.Results
		}()
	}
	for range 8 {
		if h := <-done; len(h) != 1 {
			t.Errorf("concurrent search: %+v", h)
		}
	}
}
