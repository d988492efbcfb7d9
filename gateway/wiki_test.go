package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/tools/wiki"
	"github.com/openclaw-go/openclaw/tools/wiki/wikitest"
)

// TestWikiAgentTurn: the model writes a page, searches for it and
// compiles it within one turn, through the registry, runner and policy;
// the Control UI reads the result with operator.read; the catalog lists
// all fourteen tools.
func TestWikiAgentTurn(t *testing.T) {
	model := fakemodel.New(t)
	emb := wikitest.NewEmbeddings(t)
	r, c := startWithConfig(t, model, fmt.Sprintf(`memory: { search: { provider: "openai", model: "embed-1", remote: { baseUrl: %q, apiKey: "sk-wiki" } } },
  agents: { defaults: { model: "fake/echo-1" }, entries: { main: {}, other: {} } },`, emb.BaseURL()))

	cat := fmt.Sprint(call[map[string]any](t, c, "tools.catalog", map[string]any{}))
	for _, name := range wiki.Names {
		if !strings.Contains(cat, name) {
			t.Fatalf("tools.catalog lacks %s", name)
		}
	}

	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "w1", Name: "wiki_create_page", Arguments: `{"title":"Cat Care","content":"Feed the cat twice a day. See [[Dog Care]].","sources":[{"ref":"vet.pdf","text":"Adult cats eat twice daily."}]}`}}},
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{
			{ID: "w2", Name: "wiki_search_pages", Arguments: `{"query":"cat\" OR title:*"}`},
			{ID: "w3", Name: "wiki_semantic_search", Arguments: `{"query":"my cat"}`},
		}},
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "w4", Name: "wiki_compile_page", Arguments: `{"slug":"cat-care"}`}}},
		// The compile step's own one-shot call.
		fakemodel.Reply{Text: "# Cat Care\n\nAdult cats eat twice daily (vet.pdf). Related: [[Dog Care]]."},
		fakemodel.Reply{Text: "Saved."},
	)
	var final map[string]any
	if err := c.CallFinal(context.Background(), "agent", map[string]any{"message": "remember how to care for my cat", "idempotencyKey": "wiki-1"}, &final); err != nil {
		t.Fatal(err)
	}
	reqs := model.Requests()
	offered := map[string]bool{}
	for _, tool := range reqs[0].Tools {
		offered[tool.Name] = true
	}
	for _, name := range wiki.Names {
		if !offered[name] {
			t.Fatalf("the model was not offered %s (core tier)", name)
		}
	}
	results := map[string]string{}
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Text
		}
	}
	if !strings.Contains(results["w1"], `"slug":"cat-care"`) || !strings.Contains(results["w2"], "cat-care") ||
		!strings.Contains(results["w3"], `"mode":"embeddings"`) || !strings.Contains(results["w3"], "cat-care") ||
		!strings.Contains(results["w4"], `"compiled":true`) {
		t.Fatalf("tool results: %v", results)
	}
	if emb.Auth() != "Bearer sk-wiki" {
		t.Fatalf("embeddings auth %q", emb.Auth())
	}

	// Every call went through the runner's audit.
	audit := fmt.Sprint(call[map[string]any](t, c, "audit.list", map[string]any{"kind": "tool_action"}))
	for _, name := range []string{"wiki_create_page", "wiki_search_pages", "wiki_semantic_search", "wiki_compile_page"} {
		if !strings.Contains(audit, name) {
			t.Fatalf("audit lacks %s: %s", name, audit)
		}
	}

	// The Control UI's read methods, at operator.read.
	ro, err := r.dial(t, "t0k3n-automation", "operator.read")
	if err != nil {
		t.Fatal(err)
	}
	list := call[map[string]any](t, ro, "wiki.list", map[string]any{})
	if list["agentId"] != "main" || list["total"] != float64(1) {
		t.Fatalf("wiki.list: %v", list)
	}
	got := call[map[string]any](t, ro, "wiki.get", map[string]any{"slug": "cat-care"})
	page := got["page"].(map[string]any)
	if !strings.Contains(page["content"].(string), "vet.pdf") || len(got["sources"].([]any)) != 1 || fmt.Sprint(got["linksTo"]) != "[map[exists:false slug:dog-care]]" {
		t.Fatalf("wiki.get: %v", got)
	}
	if s := call[map[string]any](t, ro, "wiki.search", map[string]any{"query": "twice"}); len(s["results"].([]any)) != 1 {
		t.Fatalf("wiki.search: %v", s)
	}
	// Another agent's wiki is its own: empty.
	if l := call[map[string]any](t, ro, "wiki.list", map[string]any{"agentId": "other"}); l["total"] != float64(0) {
		t.Fatalf("wiki.list of other: %v", l)
	}
	if err := ro.Call(context.Background(), "wiki.list", map[string]any{"agentId": "nobody"}, nil); err == nil {
		t.Fatal("wiki.list of an unknown agent answered")
	}
	// The tool runs for the session's agent, not for one an argument names.
	res := call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "wiki_read_page", "sessionKey": "agent:other:main", "args": map[string]any{"slug": "cat-care"}})
	if res["ok"] == true || !strings.Contains(fmt.Sprint(res["output"]), "no such page") {
		t.Fatalf("agent other read main's page: %v", res)
	}
}

// TestWikiPolicyAndGuard: group:wiki works in an agent's tools.deny, a
// Tool Guard rule decides a wiki tool's calls, and with no embedding model
// configured semantic search says it fell back to full text.
func TestWikiPolicyAndGuard(t *testing.T) {
	_, c := startWithConfig(t, fakemodel.New(t), `tools: { guard: { rules: [{ tool: "wiki_delete_page", action: "deny" }] } },
  agents: { defaults: { model: "fake/echo-1" }, entries: { main: {}, nowiki: { tools: { deny: ["group:wiki"] } } } },`)
	schemas := func(agent string) string {
		return fmt.Sprint(call[map[string]any](t, c, "tools.schemas", map[string]any{"agentId": agent})["tools"])
	}
	if s := schemas("main"); !strings.Contains(s, "name:wiki_read_page ") {
		t.Fatalf("main lacks the wiki tools: %s", s)
	}
	if s := schemas("nowiki"); strings.Contains(s, "wiki_") {
		t.Fatalf("group:wiki in tools.deny left wiki tools: %s", s)
	}
	invoke := func(agent, name string, args map[string]any) map[string]any {
		return call[map[string]any](t, c, "tools.invoke", map[string]any{"name": name, "agentId": agent, "args": args})
	}
	if res := invoke("main", "wiki_create_page", map[string]any{"title": "Cats", "content": "a cat"}); res["ok"] != true {
		t.Fatalf("create: %v", res)
	}
	if res := invoke("main", "wiki_delete_page", map[string]any{"slug": "cats"}); res["ok"] == true || !strings.Contains(fmt.Sprint(res["output"]), "tool guard") {
		t.Fatalf("a guarded delete ran: %v", res)
	}
	if res := invoke("nowiki", "wiki_list_pages", map[string]any{}); res["ok"] == true {
		t.Fatalf("a denied agent listed a wiki: %v", res)
	}
	res := invoke("main", "wiki_semantic_search", map[string]any{"query": "cat"})
	if out := fmt.Sprint(res["output"]); res["ok"] != true || !strings.Contains(out, `"mode":"fulltext"`) || !strings.Contains(out, "no embedding model") || !strings.Contains(out, "cats") {
		t.Fatalf("semantic search without embeddings: %v", res)
	}
}

// TestWireWiki pins the wire shapes of wiki.list, wiki.get and
// wiki.search, and their errors.
func TestWireWiki(t *testing.T) {
	_, c := startWithConfig(t, fakemodel.New(t), "")
	res := call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "wiki_create_page", "args": map[string]any{
		"title": "Wire Page", "content": "shapes of [[Other Page]]", "sources": []map[string]string{{"ref": "spec.md", "text": "the spec"}}}})
	if res["ok"] != true {
		t.Fatalf("create: %v", res)
	}
	errText := func(name, method string, params any) {
		t.Helper()
		err := c.Call(context.Background(), method, params, nil)
		var pe *protocol.Error
		if !errors.As(err, &pe) {
			t.Fatalf("%s: want a protocol error, got %v", method, err)
		}
		checkWire(t, name, map[string]any{"error": pe.Error(), "details": pe.Details})
	}
	checkWire(t, "wiki.list", call[any](t, c, "wiki.list", map[string]any{}), "created", "updated", "added")
	checkWire(t, "wiki.get", call[any](t, c, "wiki.get", map[string]any{"slug": "wire-page"}), "created", "updated", "added")
	checkWire(t, "wiki.search", call[any](t, c, "wiki.search", map[string]any{"query": "shapes"}), "score")
	errText("wiki.get.missing", "wiki.get", map[string]any{"slug": "nope"})
	errText("wiki.get.bad-slug", "wiki.get", map[string]any{"slug": "../"})
	errText("wiki.list.unknown-agent", "wiki.list", map[string]any{"agentId": "nobody"})
}
