package providers_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers"
)

// fakeOllama speaks Ollama's /api/chat: it records each request and
// answers with the NDJSON lines given (or status and body).
type fakeOllama struct {
	mu       sync.Mutex
	requests []map[string]any
	headers  []http.Header
	paths    []string
	status   int
	lines    []string
}

func (f *fakeOllama) serve(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(b, &body)
		f.mu.Lock()
		f.requests, f.headers, f.paths = append(f.requests, body), append(f.headers, r.Header.Clone()), append(f.paths, r.URL.Path)
		status, lines := f.status, f.lines
		f.mu.Unlock()
		if status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, lines[0])
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		fl := w.(http.Flusher)
		for _, l := range lines {
			io.WriteString(w, l+"\n")
			fl.Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestOllamaNativeStreamAndTools(t *testing.T) {
	f := &fakeOllama{lines: []string{
		`{"model":"qwen3:8b","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"Let me "},"done":false}`,
		`{"model":"qwen3:8b","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"check."},"done":false}`,
		`{"model":"qwen3:8b","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"weather","arguments":{"city":"Paris"}}},{"function":{"name":"weather","arguments":{"city":"Oslo"}}}]},"done":false}`,
		`{"model":"qwen3:8b","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":1,"prompt_eval_count":42,"eval_count":7}`,
	}}
	srv := f.serve(t)
	// A /v1 base (the OpenAI-compatible path) still reaches the native API.
	p, err := providers.New(providers.ProviderConfig{Name: "ollama", API: "ollama", BaseURL: srv.URL + "/v1", APIKey: "ollama-cloud-key",
		Headers: map[string]string{"X-Extra": "1"}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := toolTranscript("qwen3:8b")
	req.MaxTokens = 128
	rec := &recorder{}
	resp := completeOK(t, p, req, rec)
	if resp.Text != "Let me check." || len(rec.deltas) != 2 {
		t.Errorf("text %q deltas %q", resp.Text, rec.deltas)
	}
	if resp.StopReason != providers.StopToolCalls || len(resp.ToolCalls) != 2 {
		t.Fatalf("stop %q calls %+v", resp.StopReason, resp.ToolCalls)
	}
	if c := resp.ToolCalls[1]; c.Name != "weather" || string(c.Arguments) != `{"city":"Oslo"}` || c.ID == "" || c.ID == resp.ToolCalls[0].ID {
		t.Errorf("second call = %+v", c)
	}
	if resp.Usage.InputTokens != 42 || resp.Usage.OutputTokens != 7 {
		t.Errorf("usage = %+v", resp.Usage)
	}

	if f.paths[0] != "/api/chat" {
		t.Errorf("path = %s", f.paths[0])
	}
	h := f.headers[0]
	if h.Get("Authorization") != "Bearer ollama-cloud-key" || h.Get("X-Extra") != "1" {
		t.Errorf("headers = %v", h)
	}
	body := f.requests[0]
	if body["model"] != "qwen3:8b" || body["stream"] != true {
		t.Errorf("body = %v", body)
	}
	if opts, _ := body["options"].(map[string]any); opts["num_predict"] != float64(128) {
		t.Errorf("options = %v", body["options"])
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 6 {
		t.Fatalf("messages = %v", msgs)
	}
	first := msgs[0].(map[string]any)
	if first["role"] != "system" || first["content"] != "you are terse" {
		t.Errorf("system = %v", first)
	}
	asst := msgs[2].(map[string]any)
	calls, _ := asst["tool_calls"].([]any)
	if len(calls) != 2 {
		t.Fatalf("assistant = %v", asst)
	}
	// Arguments go back as an object, as Ollama sent them.
	if args := calls[0].(map[string]any)["function"].(map[string]any)["arguments"]; args.(map[string]any)["city"] != "Paris" {
		t.Errorf("arguments = %v", args)
	}
	tool := msgs[3].(map[string]any)
	if tool["role"] != "tool" || tool["tool_name"] != "weather" || tool["content"] != "sunny" {
		t.Errorf("tool result = %v", tool)
	}
	tools, _ := body["tools"].([]any)
	if len(tools) != 1 || tools[0].(map[string]any)["type"] != "function" {
		t.Errorf("tools = %v", tools)
	}
}

func TestOllamaErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		lines  []string
		kind   providers.ErrorKind
		msg    string
	}{
		{"unknown model", 404, []string{`{"error":"model \"nope\" not found, try pulling it first"}`}, providers.KindBadRequest, "not found"},
		{"overloaded", 503, []string{`{"error":"server busy"}`}, providers.KindUnavailable, "server busy"},
		{"error inside the stream", 0, []string{
			`{"message":{"role":"assistant","content":"hi"},"done":false}`,
			`{"error":"an error was encountered while running the model"}`,
		}, "", "while running the model"},
		{"cut off", 0, []string{`{"message":{"role":"assistant","content":"hi"},"done":false}`}, providers.KindUnavailable, "before the model finished"},
		{"done by length", 0, []string{`{"message":{"role":"assistant","content":"hi"},"done":true,"done_reason":"length"}`}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := (&fakeOllama{status: tc.status, lines: tc.lines}).serve(t)
			p := providers.NewOllama(providers.Options{Name: "ollama", BaseURL: srv.URL, APIKey: "k"})
			resp, err := p.Complete(t.Context(), userRequest("m", "hi"), providers.Hooks{})
			if tc.msg == "" {
				if err != nil || resp.StopReason != providers.StopLength {
					t.Fatalf("resp %+v err %v; want stop length", resp, err)
				}
				return
			}
			pe := asError(t, err)
			if (tc.kind != "" && pe.Kind != tc.kind) || !strings.Contains(pe.Message, tc.msg) {
				t.Errorf("error = %v (kind %s); want %s %q", pe, pe.Kind, tc.kind, tc.msg)
			}
		})
	}
}
