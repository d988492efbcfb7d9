package wiki

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeEmbeddings is an OpenAI-compatible POST /v1/embeddings. A text's
// vector counts a few topic words, so texts about the same topic are near.
type fakeEmbeddings struct {
	*httptest.Server
	mu     sync.Mutex
	inputs []string // every text embedded, in order
	status int      // when set, every request fails with it
	auth   string
}

var topics = []string{"cat", "dog", "rocket", "orbit"}

func newFakeEmbeddings(t *testing.T) *fakeEmbeddings {
	f := &fakeEmbeddings{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, `{"error":{"message":"bad request shape","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" || len(req.Input) == 0 {
			http.Error(w, `{"error":{"message":"bad body","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.inputs = append(f.inputs, req.Input...)
		f.auth = r.Header.Get("Authorization")
		status := f.status
		f.mu.Unlock()
		if status != 0 {
			w.WriteHeader(status)
			w.Write([]byte(`{"error":{"message":"quota exceeded","type":"insufficient_quota"}}`))
			return
		}
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		resp := struct {
			Object string `json:"object"`
			Data   []item `json:"data"`
			Model  string `json:"model"`
			Usage  struct {
				PromptTokens int `json:"prompt_tokens"`
				TotalTokens  int `json:"total_tokens"`
			} `json:"usage"`
		}{Object: "list", Model: req.Model}
		// Answer out of order, as the index field allows.
		for i := len(req.Input) - 1; i >= 0; i-- {
			v := make([]float32, len(topics)+1)
			low := strings.ToLower(req.Input[i])
			for j, w := range topics {
				v[j] = float32(strings.Count(low, w))
			}
			v[len(topics)] = 0.01
			resp.Data = append(resp.Data, item{Object: "embedding", Index: i, Embedding: v})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeEmbeddings) embedded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.inputs...)
}

func TestSemanticSearch(t *testing.T) {
	f := newFixture(t)
	srv := newFakeEmbeddings(t)
	f.embed = &OpenAIEmbedder{BaseURL: srv.URL + "/v1", APIKey: "sk-test", Name: "text-embedding-3-small"}
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
	if srv.auth != "Bearer sk-test" {
		t.Fatalf("authorization %q", srv.auth)
	}
	// Two pages and the query; another agent's and the archived page are not sent.
	if in := srv.embedded(); len(in) != 3 || strings.Contains(strings.Join(in, "|"), "Other cats") {
		t.Fatalf("embedded %q", in)
	}
	// Unchanged pages are not embedded again; a changed one is.
	f.must(t, "main", "wiki_create_page", map[string]any{"title": "Space", "content": "rocket orbit rocket", "overwrite": true})
	res = f.must(t, "main", "wiki_semantic_search", map[string]any{"query": "rocket launch"})
	if in := srv.embedded(); len(in) != 5 || !strings.Contains(in[3], "rocket orbit rocket") {
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
	srv := newFakeEmbeddings(t)
	srv.status = http.StatusTooManyRequests
	f.embed = &OpenAIEmbedder{BaseURL: srv.URL + "/v1", Name: "m"}
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
