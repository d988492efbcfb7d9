package wiki

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
	"github.com/openclaw-go/openclaw/tools"
)

// fixture is the wiki tools over one fresh database.
type fixture struct {
	st    *Store
	tools map[string]tools.Tool
	model *fakeCompleter
	embed Embedder
}

// fakeCompleter answers model steps from a script and records prompts.
type fakeCompleter struct {
	mu      sync.Mutex
	answers []string
	prompts []string
	systems []string
}

func (f *fakeCompleter) Complete(ctx context.Context, who tools.Who, system, prompt string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prompts, f.systems = append(f.prompts, prompt), append(f.systems, system)
	if len(f.answers) == 0 {
		return "", fmt.Errorf("fake model: no answer scripted")
	}
	a := f.answers[0]
	f.answers = f.answers[1:]
	return a, nil
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	st := storetest.Open(t, Migrations())
	f := &fixture{st: NewStore(st.DB), tools: map[string]tools.Tool{}, model: &fakeCompleter{}}
	ts := Tools(Config{DB: st.DB, Model: f.model, Embedder: func(tools.Who) Embedder { return f.embed }})
	for i, tl := range ts {
		if tl.Spec().Name != Names[i] {
			t.Fatalf("tool %d is %s, want %s", i, tl.Spec().Name, Names[i])
		}
		f.tools[tl.Spec().Name] = tl
	}
	return f
}

// call runs a tool as agent and returns its text; a failure is an error.
func (f *fixture) call(t *testing.T, agent, name string, args any) (string, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	tl := f.tools[name]
	if v, ok := tl.(interface{ Validate(json.RawMessage) error }); ok {
		if err := v.Validate(raw); err != nil {
			return "", err
		}
	}
	r, err := tl.Call(context.Background(), tools.Call{Name: name, Args: raw, Who: tools.Who{AgentID: agent}})
	if err == nil && r.IsError {
		return "", fmt.Errorf("%s", r.Text)
	}
	return r.Text, err
}

func (f *fixture) must(t *testing.T, agent, name string, args any) map[string]any {
	t.Helper()
	out, err := f.call(t, agent, name, args)
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%s answered %q: %v", name, out, err)
	}
	return m
}

func (f *fixture) create(t *testing.T, agent, title, content string) {
	t.Helper()
	f.must(t, agent, "wiki_create_page", map[string]any{"title": title, "content": content})
}

func TestSpecs(t *testing.T) {
	f := newFixture(t)
	if len(f.tools) != 14 {
		t.Fatalf("%d tools", len(f.tools))
	}
	for name, tl := range f.tools {
		s := tl.Spec()
		if s.Source != tools.SourceCore || s.Tier != tools.TierCore || s.Dangerous != (name == "wiki_delete_page") || s.OwnerOnly ||
			s.Groups[0] != Group || !json.Valid(s.Parameters) || s.Description == "" {
			t.Errorf("%s: spec %+v", name, s)
		}
	}
}

func TestCreateReadList(t *testing.T) {
	f := newFixture(t)
	got := f.must(t, "main", "wiki_create_page", map[string]any{"title": "Go Channels", "content": "Channels connect [[Goroutines]].",
		"sources": []map[string]string{{"ref": "https://go.dev/tour", "text": "A channel is a typed conduit."}}})
	if got["slug"] != "go-channels" || got["created"] != true || fmt.Sprint(got["links"]) != "[goroutines]" || got["sourcesAdded"] != float64(1) {
		t.Fatalf("create: %v", got)
	}
	if _, err := f.call(t, "main", "wiki_create_page", map[string]any{"title": "Go Channels", "content": "again"}); err == nil || !strings.Contains(err.Error(), "overwrite") {
		t.Fatalf("a second create replaced the page: %v", err)
	}
	f.must(t, "main", "wiki_create_page", map[string]any{"title": "Go Channels", "content": "v2 [[Select]]", "overwrite": true})
	page := f.must(t, "main", "wiki_read_page", map[string]any{"slug": "Go Channels"})
	if page["content"] != "v2 [[Select]]" || page["title"] != "Go Channels" || fmt.Sprint(page["linksTo"]) != "[map[exists:false slug:select]]" {
		t.Fatalf("read: %v", page)
	}
	f.create(t, "main", "Select", "select waits on channels")
	list := f.must(t, "main", "wiki_list_pages", map[string]any{})
	if list["total"] != float64(2) || len(list["pages"].([]any)) != 2 {
		t.Fatalf("list: %v", list)
	}
	if _, err := f.call(t, "main", "wiki_read_page", map[string]any{"slug": "nope"}); err == nil || !strings.Contains(err.Error(), "no such page") {
		t.Fatalf("read of a missing page: %v", err)
	}
}

func TestToolErrors(t *testing.T) {
	f := newFixture(t)
	f.create(t, "main", "A", "x")
	for _, tc := range []struct {
		name, tool string
		args       any
		want       string
	}{
		{"no title", "wiki_create_page", map[string]any{"title": "  ", "content": "x"}, "title is required"},
		{"punctuation slug", "wiki_create_page", map[string]any{"title": "ok", "slug": "../..", "content": "x"}, "letter or digit"},
		{"too big", "wiki_create_page", map[string]any{"title": "big", "content": strings.Repeat("x", maxBodyBytes+1)}, "most a page holds"},
		{"long title", "wiki_create_page", map[string]any{"title": strings.Repeat("t", maxTitleRunes+1), "content": "x"}, "longer than"},
		{"big source", "wiki_create_page", map[string]any{"title": "s", "content": "x", "sources": []map[string]string{{"ref": "r", "text": strings.Repeat("x", maxSourceBytes+1)}}}, "at most"},
		{"source without ref", "wiki_create_page", map[string]any{"title": "s", "content": "x", "sources": []map[string]string{{"ref": " ", "text": "t"}}}, "ref is required"},
		{"read many empty", "wiki_read_many", map[string]any{"slugs": []string{}}, "at least one"},
		{"read many too many", "wiki_read_many", map[string]any{"slugs": strings.Split("a b c d e f g h i j k", " ")}, "at most"},
		{"delete missing", "wiki_delete_page", map[string]any{"slug": "missing"}, "no such page"},
		{"archive missing", "wiki_archive_page", map[string]any{"slug": "missing"}, "no such page"},
		{"trace missing", "wiki_trace_source", map[string]any{"slug": "missing"}, "no such page"},
		{"related missing", "wiki_related_pages", map[string]any{"slug": "missing"}, "no such page"},
		{"explain same", "wiki_explain_relation", map[string]any{"from": "a", "to": "A"}, "same page"},
		{"explain missing", "wiki_explain_relation", map[string]any{"from": "a", "to": "b"}, "no such page"},
		{"compile missing", "wiki_compile_page", map[string]any{"slug": "b"}, "no such page"},
		{"semantic empty", "wiki_semantic_search", map[string]any{"query": " "}, "query is required"},
		{"unknown field", "wiki_read_page", map[string]any{"slug": "a", "agentId": "other"}, "agentId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.call(t, "main", tc.tool, tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%s: err %v, want %q", tc.tool, err, tc.want)
			}
		})
	}
	if _, err := f.call(t, "", "wiki_list_pages", map[string]any{}); err == nil {
		t.Fatal("a call with no agent listed some wiki")
	}
}

func TestArchiveDeleteTrace(t *testing.T) {
	f := newFixture(t)
	f.must(t, "main", "wiki_create_page", map[string]any{"title": "Kafka", "content": "A log broker.",
		"sources": []map[string]string{{"ref": "notes/kafka.md", "text": "Kafka keeps an append-only log."}, {"ref": "chat", "text": "partitions"}}})
	tr := f.must(t, "main", "wiki_trace_source", map[string]any{"slug": "kafka"})
	srcs := tr["sources"].([]any)
	if len(srcs) != 2 || srcs[0].(map[string]any)["ref"] != "notes/kafka.md" {
		t.Fatalf("trace: %v", tr)
	}
	f.must(t, "main", "wiki_archive_page", map[string]any{"slug": "kafka"})
	if l := f.must(t, "main", "wiki_list_pages", map[string]any{}); l["total"] != float64(0) {
		t.Fatalf("an archived page is listed: %v", l)
	}
	if s := f.must(t, "main", "wiki_search_pages", map[string]any{"query": "broker"}); len(s["results"].([]any)) != 0 {
		t.Fatalf("an archived page is found: %v", s)
	}
	if s := f.must(t, "main", "wiki_search_pages", map[string]any{"query": "broker", "includeArchived": true}); len(s["results"].([]any)) != 1 {
		t.Fatalf("includeArchived: %v", s)
	}
	if p := f.must(t, "main", "wiki_read_page", map[string]any{"slug": "kafka"}); p["archived"] != true {
		t.Fatalf("read archived: %v", p)
	}
	f.must(t, "main", "wiki_unarchive_page", map[string]any{"slug": "kafka"})
	if l := f.must(t, "main", "wiki_list_pages", map[string]any{}); l["total"] != float64(1) {
		t.Fatalf("a restored page is not listed: %v", l)
	}
	f.must(t, "main", "wiki_delete_page", map[string]any{"slug": "kafka"})
	if srcs, _ := f.st.Sources(context.Background(), "main", "kafka"); len(srcs) != 0 {
		t.Fatalf("sources outlived their page: %v", srcs)
	}
	// A new page under the old slug starts without the old sources.
	f.create(t, "main", "Kafka", "again")
	if tr := f.must(t, "main", "wiki_trace_source", map[string]any{"slug": "kafka"}); len(tr["sources"].([]any)) != 0 {
		t.Fatalf("a recreated page inherited sources: %v", tr)
	}
}

func TestSearchAndRelated(t *testing.T) {
	f := newFixture(t)
	f.create(t, "main", "Raft Consensus", "Raft elects a leader; see [[Paxos]] and [[Log Replication]].")
	f.create(t, "main", "Paxos", "Paxos is the older consensus protocol.")
	f.create(t, "main", "Consensus Glossary", "Terms: quorum, term, leader.")
	f.create(t, "main", "Cooking", "Leader of the kitchen brigade.")
	f.create(t, "main", "Log Replication", "Followers copy the leader's log. Back to [[Raft Consensus]].")
	for _, tc := range []struct {
		name, query string
		first       string
		n           int
	}{
		{"all words, title weighs more", "leader consensus", "consensus-glossary", 3},
		{"any word fallback", "paxos zebra", "paxos", 2},
		{"one page has both", "elects paxos", "raft-consensus", 1},
		{"title", "glossary", "consensus-glossary", 1},
		{"nothing", "zebra", "", 0},
		{"only syntax", `"*() NEAR`, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := f.must(t, "main", "wiki_search_pages", map[string]any{"query": tc.query})["results"].([]any)
			if len(res) != tc.n {
				t.Fatalf("%q: %d results %v", tc.query, len(res), res)
			}
			if tc.n > 0 && res[0].(map[string]any)["slug"] != tc.first {
				t.Fatalf("%q: first %v", tc.query, res[0])
			}
		})
	}
	rel := f.must(t, "main", "wiki_related_pages", map[string]any{"slug": "raft-consensus"})
	if fmt.Sprint(rel["linksTo"]) != "[map[exists:true slug:log-replication title:Log Replication] map[exists:true slug:paxos title:Paxos]]" ||
		fmt.Sprint(rel["linkedBy"]) != "[map[exists:true slug:log-replication title:Log Replication]]" {
		t.Fatalf("related links: %v", rel)
	}
	sim := rel["similar"].([]any)
	if len(sim) != 1 || sim[0].(map[string]any)["slug"] != "consensus-glossary" {
		t.Fatalf("related similar: %v", sim)
	}
}

func TestReadMany(t *testing.T) {
	f := newFixture(t)
	f.create(t, "main", "One", strings.Repeat("1", 5000))
	f.create(t, "main", "Two", "two")
	raw, _ := json.Marshal(map[string]any{"slugs": []string{"one", "two", "three", "One", "..."}})
	r, err := f.tools["wiki_read_many"].Call(context.Background(), tools.Call{Args: raw, Who: tools.Who{AgentID: "main"}, MaxChars: 3000})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Pages   []Page
		Missing []string
	}
	if err := json.Unmarshal([]byte(r.Text), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Pages) != 2 || fmt.Sprint(got.Missing) != "[three ...]" || len(r.Text) > 4000 || !strings.Contains(got.Pages[0].Body, "[cut:") {
		t.Fatalf("read_many: %d pages, missing %v, %d chars", len(got.Pages), got.Missing, len(r.Text))
	}
}

// TestAgentsCannotReachEachOther: bob's calls name alice's slugs and try
// every tool on them; nothing of alice's is read, found, changed or gone.
func TestAgentsCannotReachEachOther(t *testing.T) {
	f := newFixture(t)
	f.must(t, "alice", "wiki_create_page", map[string]any{"title": "Secret Plan", "content": "launch codes 1234",
		"sources": []map[string]string{{"ref": "vault", "text": "classified"}}})
	f.create(t, "bob", "Bob Notes", "nothing here")
	for _, tc := range []struct {
		tool string
		args any
	}{
		{"wiki_read_page", map[string]any{"slug": "secret-plan"}},
		{"wiki_read_many", map[string]any{"slugs": []string{"secret-plan"}}},
		{"wiki_trace_source", map[string]any{"slug": "secret-plan"}},
		{"wiki_delete_page", map[string]any{"slug": "secret-plan"}},
		{"wiki_archive_page", map[string]any{"slug": "secret-plan"}},
		{"wiki_related_pages", map[string]any{"slug": "secret-plan"}},
		{"wiki_explain_relation", map[string]any{"from": "bob-notes", "to": "secret-plan"}},
		{"wiki_compile_page", map[string]any{"slug": "secret-plan"}},
		{"wiki_enrich_page", map[string]any{"slug": "secret-plan"}},
		{"wiki_search_pages", map[string]any{"query": "launch codes"}},
		{"wiki_semantic_search", map[string]any{"query": "launch codes"}},
		{"wiki_list_pages", map[string]any{"includeArchived": true}},
	} {
		out, _ := f.call(t, "bob", tc.tool, tc.args)
		if strings.Contains(out, "1234") || strings.Contains(out, "classified") || strings.Contains(out, "secret-plan\"") && tc.tool != "wiki_read_many" {
			t.Errorf("%s as bob: %s", tc.tool, out)
		}
	}
	// bob's own page named like alice's is his, not hers.
	f.create(t, "bob", "Secret Plan", "bob's version")
	p, err := f.st.Get(context.Background(), "alice", "secret-plan")
	if err != nil || p.Body != "launch codes 1234" || p.Archived {
		t.Fatalf("alice's page after bob's attempts: %+v, %v", p, err)
	}
	if srcs, _ := f.st.Sources(context.Background(), "alice", "secret-plan"); len(srcs) != 1 {
		t.Fatalf("alice's sources: %v", srcs)
	}
	if len(f.model.prompts) != 0 {
		t.Fatalf("the model was shown another agent's page: %q", f.model.prompts)
	}
}

// TestHostileQueries: FTS5 syntax and SQL from the model neither fail the
// search nor change the tables.
func TestHostileQueries(t *testing.T) {
	f := newFixture(t)
	f.create(t, "main", "Target", "some text about drop tables")
	for _, q := range []string{
		`"`, `*`, `NEAR(`, `title:x`, `a OR`, `AND AND`, `(((`, `^x`, `-x`, `x"; DROP TABLE wiki_pages; --`,
		`' OR 1=1 --`, `body:* NOT`, strings.Repeat("(", 10000), "\x00\xff", `{title body}: x`,
	} {
		out, err := f.call(t, "main", "wiki_search_pages", map[string]any{"query": q})
		if err != nil {
			t.Fatalf("query %q: %v", q, err)
		}
		if !json.Valid([]byte(out)) {
			t.Fatalf("query %q: %s", q, out)
		}
		if _, err := f.call(t, "main", "wiki_semantic_search", map[string]any{"query": q}); err != nil && strings.TrimSpace(q) != "" {
			t.Fatalf("semantic query %q: %v", q, err)
		}
	}
	if p, err := f.st.Get(context.Background(), "main", "target"); err != nil || p.Body == "" {
		t.Fatalf("the page after hostile queries: %v", err)
	}
}

// TestSlugsStayInTheDatabase: a title shaped like a path is only a key.
func TestSlugsStayInTheDatabase(t *testing.T) {
	f := newFixture(t)
	for _, title := range []string{"../../../../tmp/pwned", "/etc/passwd", `..\..\boot.ini`, "a/../../b"} {
		got := f.must(t, "main", "wiki_create_page", map[string]any{"title": title, "content": "x"})
		slug := got["slug"].(string)
		if strings.ContainsAny(slug, `/\.`) {
			t.Fatalf("title %q gave slug %q", title, slug)
		}
	}
}

func TestSourceCap(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.st.AddSources(ctx, "main", "none", []Source{{Ref: "r", Body: "t"}}); err == nil {
		t.Fatal("sources were added to a missing page")
	}
	f.create(t, "main", "Full", "x")
	var batch []map[string]string
	for range maxSourcesCall {
		batch = append(batch, map[string]string{"ref": "r", "text": "t"})
	}
	for range maxSources / maxSourcesCall {
		f.must(t, "main", "wiki_create_page", map[string]any{"title": "Full", "content": "x", "overwrite": true, "sources": batch})
	}
	if _, err := f.call(t, "main", "wiki_create_page", map[string]any{"title": "Full", "content": "x", "overwrite": true, "sources": batch[:1]}); err == nil {
		t.Fatal("a page took more sources than its cap")
	}
}

// TestWikiByteCap: a model that keeps writing cannot fill the disk; what
// it replaces or deletes frees room again.
func TestWikiByteCap(t *testing.T) {
	old := maxWikiBytes
	maxWikiBytes = 10000
	t.Cleanup(func() { maxWikiBytes = old })
	f := newFixture(t)
	f.create(t, "main", "A", strings.Repeat("a", 6000))
	if _, err := f.call(t, "main", "wiki_create_page", map[string]any{"title": "B", "content": strings.Repeat("b", 5000)}); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("a page past the wiki's cap: %v", err)
	}
	if _, err := f.call(t, "main", "wiki_create_page", map[string]any{"title": "A", "content": "short", "overwrite": true,
		"sources": []map[string]string{{"ref": "r", "text": strings.Repeat("s", 3000)}}}); err != nil {
		t.Fatalf("replacing a page with a smaller one and a source that fits: %v", err)
	}
	f.model.answers = []string{strings.Repeat("c", 2000)}
	if _, err := f.call(t, "main", "wiki_compile_page", map[string]any{"slug": "a"}); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("a compile past the cap: %v", err)
	}
	// Another agent has its own room.
	f.create(t, "other", "B", strings.Repeat("b", 5000))
	f.must(t, "main", "wiki_delete_page", map[string]any{"slug": "a"})
	f.create(t, "main", "B", strings.Repeat("b", 5000))
}

// TestConcurrentWrites: parallel calls (a model's parallel tool calls,
// two sessions of one agent) neither fail with a busy database nor make
// two pages of one slug.
func TestConcurrentWrites(t *testing.T) {
	f := newFixture(t)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 20 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, err := f.call(t, "main", "wiki_create_page", map[string]any{"title": "Shared", "content": fmt.Sprint("v", i), "overwrite": true,
				"sources": []map[string]string{{"ref": fmt.Sprint("r", i), "text": "t"}}})
			errs <- err
		}()
		go func() {
			defer wg.Done()
			_, err := f.call(t, "main", "wiki_create_page", map[string]any{"title": fmt.Sprint("Page ", i), "content": "[[Shared]]"})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if l := f.must(t, "main", "wiki_list_pages", map[string]any{"limit": 200}); l["total"] != float64(21) {
		t.Fatalf("pages: %v", l["total"])
	}
	if rel := f.must(t, "main", "wiki_related_pages", map[string]any{"slug": "shared"}); len(rel["linkedBy"].([]any)) != 20 {
		t.Fatalf("backlinks: %v", rel["linkedBy"])
	}
	if tr := f.must(t, "main", "wiki_trace_source", map[string]any{"slug": "shared"}); len(tr["sources"].([]any)) != 20 {
		t.Fatalf("sources: %d", len(tr["sources"].([]any)))
	}
}

// TestSchemaDescriptionsWhole: a comma in a jsonschema tag ends the
// description there; every field's description must reach the model whole.
func TestSchemaDescriptionsWhole(t *testing.T) {
	f := newFixture(t)
	want := map[string]string{
		"wiki_create_page": "a note such as 'chat of 2026-12-01'",
		"wiki_list_pages":  "Pages to skip (for the next screen)",
	}
	for name, s := range want {
		if !strings.Contains(string(f.tools[name].Spec().Parameters), s) {
			t.Errorf("%s's schema lacks %q: %s", name, s, f.tools[name].Spec().Parameters)
		}
	}
}

// TestRevisions: a replaced page keeps its last five bodies, readable by
// number, so a bad rewrite can be undone; deleting the page drops them.
func TestRevisions(t *testing.T) {
	f := newFixture(t)
	f.create(t, "main", "Notes", "v0")
	for i := 1; i <= 7; i++ {
		f.must(t, "main", "wiki_create_page", map[string]any{"title": "Notes", "content": fmt.Sprint("v", i), "overwrite": true})
	}
	f.model.answers = []string{"compiled"}
	f.must(t, "main", "wiki_compile_page", map[string]any{"slug": "notes"})
	cur := f.must(t, "main", "wiki_read_page", map[string]any{"slug": "notes"})
	if cur["content"] != "compiled" || cur["revisions"] != float64(maxRevisions) {
		t.Fatalf("current: %v", cur)
	}
	for n, want := range map[int]string{1: "v7", 2: "v6", 5: "v3"} {
		got := f.must(t, "main", "wiki_read_page", map[string]any{"slug": "notes", "revision": n})
		if got["content"] != want || got["revision"] != float64(n) {
			t.Fatalf("revision %d: %v", n, got)
		}
	}
	if _, err := f.call(t, "main", "wiki_read_page", map[string]any{"slug": "notes", "revision": 6}); err == nil {
		t.Fatal("a sixth revision was read")
	}
	if got := f.must(t, "other", "wiki_create_page", map[string]any{"title": "Notes", "content": "theirs"}); got["created"] != true {
		t.Fatalf("other agent: %v", got)
	}
	if r := f.must(t, "other", "wiki_read_page", map[string]any{"slug": "notes"}); r["revisions"] != float64(0) {
		t.Fatalf("another agent sees main's revisions: %v", r)
	}
	f.must(t, "main", "wiki_delete_page", map[string]any{"slug": "notes"})
	f.create(t, "main", "Notes", "fresh")
	if r := f.must(t, "main", "wiki_read_page", map[string]any{"slug": "notes"}); r["revisions"] != float64(0) {
		t.Fatalf("a recreated page inherited revisions: %v", r)
	}
}

func TestMain(m *testing.M) { pgtest.Main(m) }
