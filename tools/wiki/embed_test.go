package wiki

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools/wiki/wikitest"
)

func TestSemanticSearch(t *testing.T) {
	f := newFixture(t)
	srv := wikitest.NewEmbeddings(t)
	f.embed = &OpenAIEmbedder{BaseURL: srv.BaseURL(), APIKey: "sk-test", Name: "text-embedding-3-small"}
	f.create(t, "main", "Pets", "The cat sat with the dog. Another cat.")
	f.create(t, "main", "Space", "A rocket reaches orbit.")
	f.create(t, "main", "Archived cats", "cat cat cat")
	f.must(t, "main", "wiki_archive_page", map[string]any{"slug": "archived-cats"})
	f.create(t, "other", "Other cats", "cat cat cat cat")

	res := f.must(t, "main", "wiki_semantic_search", map[string]any{"query": "my cat"})
	hits := res["results"].([]any)
	if res["mode"] != "embeddings" || res["model"] != "text-embedding-3-small" || len(hits) != 2 || hits[0].(map[string]any)["slug"] != "pets" {
		t.Fatalf("semantic: %v", res)
	}
	if srv.Auth() != "Bearer sk-test" {
		t.Fatalf("authorization %q", srv.Auth())
	}
	// Two pages and the query; another agent's and the archived page are not sent.
	if in := srv.Inputs(); len(in) != 3 || strings.Contains(strings.Join(in, "|"), "Other cats") {
		t.Fatalf("embedded %q", in)
	}
	// Unchanged pages are not embedded again; a changed one is.
	f.must(t, "main", "wiki_create_page", map[string]any{"title": "Space", "content": "rocket orbit rocket", "overwrite": true})
	res = f.must(t, "main", "wiki_semantic_search", map[string]any{"query": "rocket launch"})
	if in := srv.Inputs(); len(in) != 5 || !strings.Contains(in[3], "rocket orbit rocket") {
		t.Fatalf("second search embedded %q", in[3:])
	}
	if res["results"].([]any)[0].(map[string]any)["slug"] != "space" {
		t.Fatalf("second search: %v", res)
	}
}

func TestSemanticFallsBackToFullText(t *testing.T) {
	f := newFixture(t)
	f.create(t, "main", "Pets", "The cat sat.")
	res := f.must(t, "main", "wiki_semantic_search", map[string]any{"query": "cat"})
	if res["mode"] != "fulltext" || !strings.Contains(res["note"].(string), "no embedding model") || len(res["results"].([]any)) != 1 {
		t.Fatalf("without embeddings: %v", res)
	}
	srv := wikitest.NewEmbeddings(t)
	srv.Fail(http.StatusTooManyRequests)
	f.embed = &OpenAIEmbedder{BaseURL: srv.BaseURL(), Name: "m"}
	res = f.must(t, "main", "wiki_semantic_search", map[string]any{"query": "cat"})
	if res["mode"] != "fulltext" || !strings.Contains(res["note"].(string), "quota exceeded") || len(res["results"].([]any)) != 1 {
		t.Fatalf("with a failing endpoint: %v", res)
	}
}

func TestOpenAIEmbedderRejectsBadReplies(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"missing item", `{"data":[{"index":0,"embedding":[1]}]}`, "no vector for input 1"},
		{"bad index", `{"data":[{"index":7,"embedding":[1]},{"index":0,"embedding":[1]}]}`, "bad item index"},
		{"not json", `<html>`, "embeddings response"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(tc.body)) }))
			defer srv.Close()
			e := &OpenAIEmbedder{BaseURL: srv.URL, Name: "m"}
			if _, err := e.Embed(t.Context(), []string{"a", "b"}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

func TestVectorRoundTrip(t *testing.T) {
	v := []float32{1.5, -2, 0, 3.25}
	got := decodeVec(encodeVec(v))
	for i := range v {
		if got[i] != v[i] {
			t.Fatalf("round trip %v → %v", v, got)
		}
	}
	if c := cosine([]float32{1, 0}, []float32{1, 0}); c != 1 {
		t.Fatalf("cosine of equal vectors %v", c)
	}
	if c := cosine([]float32{1, 0}, []float32{1, 0, 0}); c != 0 {
		t.Fatalf("cosine of mismatched lengths %v", c)
	}
}
