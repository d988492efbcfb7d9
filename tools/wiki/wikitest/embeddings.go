// Package wikitest holds a fake of an OpenAI-compatible embeddings
// endpoint, for the wiki's tests and the gateway's.
package wikitest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Topics are the words the fake's vectors count: texts about the same
// topic land near each other.
var Topics = []string{"cat", "dog", "rocket", "orbit"}

// Embeddings is a fake POST /v1/embeddings speaking OpenAI's wire format.
// Its vector for a text counts each of [Topics] in it (plus a small
// constant), and it answers the items out of order, as "index" allows.
type Embeddings struct {
	*httptest.Server
	mu     sync.Mutex
	inputs []string
	auth   string
	status int
}

// NewEmbeddings starts the fake; it stops when the test ends.
func NewEmbeddings(t testing.TB) *Embeddings {
	f := &Embeddings{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// BaseURL is the API root to configure, ending in /v1.
func (f *Embeddings) BaseURL() string { return f.URL + "/v1" }

// Fail makes every later request fail with status (0: succeed again).
func (f *Embeddings) Fail(status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status = status
}

// Inputs are the texts embedded so far, in order.
func (f *Embeddings) Inputs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.inputs...)
}

// Auth is the last request's Authorization header.
func (f *Embeddings) Auth() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.auth
}

type item struct {
	Object    string    `json:"object"`
	Index     int       `json:"index"`
	Embedding []float32 `json:"embedding"`
}

type usage struct {
	PromptTokens int `json:"prompt_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

type reply struct {
	Object string `json:"object"`
	Data   []item `json:"data"`
	Model  string `json:"model"`
	Usage  usage  `json:"usage"`
}

func apiError(w http.ResponseWriter, status int, msg, typ string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ}})
}

func (f *Embeddings) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" || r.Header.Get("Content-Type") != "application/json" {
		apiError(w, http.StatusBadRequest, "bad request shape", "invalid_request_error")
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" || len(req.Input) == 0 {
		apiError(w, http.StatusBadRequest, "bad body", "invalid_request_error")
		return
	}
	f.mu.Lock()
	f.inputs = append(f.inputs, req.Input...)
	f.auth = r.Header.Get("Authorization")
	status := f.status
	f.mu.Unlock()
	if status != 0 {
		apiError(w, status, "quota exceeded", "insufficient_quota")
		return
	}
	resp := reply{Object: "list", Model: req.Model, Data: []item{}}
	for i := len(req.Input) - 1; i >= 0; i-- {
		v := make([]float32, len(Topics)+1)
		low := strings.ToLower(req.Input[i])
		for j, w := range Topics {
			v[j] = float32(strings.Count(low, w))
		}
		v[len(Topics)] = 0.01
		resp.Data = append(resp.Data, item{Object: "embedding", Index: i, Embedding: v})
		resp.Usage.PromptTokens += len(strings.Fields(req.Input[i]))
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}
