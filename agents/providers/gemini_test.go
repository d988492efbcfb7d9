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

// fakeGemini speaks streamGenerateContent with alt=sse.
type fakeGemini struct {
	mu      sync.Mutex
	bodies  []map[string]any
	urls    []string
	headers []http.Header
	status  int
	events  []string
}

func (f *fakeGemini) serve(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(b, &body)
		f.mu.Lock()
		f.bodies, f.urls, f.headers = append(f.bodies, body), append(f.urls, r.URL.String()), append(f.headers, r.Header.Clone())
		status, events := f.status, f.events
		f.mu.Unlock()
		if status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, events[0])
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			io.WriteString(w, "data: "+e+"\r\n\r\n")
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestGeminiStreamAndTools(t *testing.T) {
	f := &fakeGemini{events: []string{
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"thinking about it","thought":true}]}}]}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"Let me "}]}}]}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"check."},{"functionCall":{"name":"weather","args":{"city":"Paris"}},"thoughtSignature":"c2lnbmF0dXJl"},{"functionCall":{"name":"weather","args":{"city":"Oslo"}}}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":30,"candidatesTokenCount":9,"thoughtsTokenCount":4,"cachedContentTokenCount":10}}`,
	}}
	srv := f.serve(t)
	p, err := providers.New(providers.ProviderConfig{Name: "google", API: "google-generative-ai", BaseURL: srv.URL + "/v1beta", APIKey: "AIza-test-key"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := toolTranscript("gemini-2.5-flash")
	req.MaxTokens = 100
	rec := &recorder{}
	resp := completeOK(t, p, req, rec)
	if resp.Text != "Let me check." {
		t.Errorf("text = %q (thoughts must not be the answer)", resp.Text)
	}
	if resp.StopReason != providers.StopToolCalls || len(resp.ToolCalls) != 2 || string(resp.ToolCalls[1].Arguments) != `{"city":"Oslo"}` || resp.ToolCalls[0].ID == resp.ToolCalls[1].ID {
		t.Fatalf("stop %q calls %+v", resp.StopReason, resp.ToolCalls)
	}
	if u := resp.Usage; u.InputTokens != 30 || u.OutputTokens != 13 || u.CacheReadTokens != 10 {
		t.Errorf("usage = %+v", u)
	}
	if f.urls[0] != "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse" {
		t.Errorf("url = %s", f.urls[0])
	}
	if f.headers[0].Get("x-goog-api-key") != "AIza-test-key" || strings.Contains(f.urls[0], "AIza") {
		t.Errorf("the key must go in x-goog-api-key, not the URL: %v %s", f.headers[0], f.urls[0])
	}
	body := f.bodies[0]
	if si := body["systemInstruction"].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"]; si != "you are terse" {
		t.Errorf("systemInstruction = %v", body["systemInstruction"])
	}
	contents := body["contents"].([]any)
	// user, model (text + 2 calls), user (2 function responses), user.
	if len(contents) != 4 {
		t.Fatalf("contents = %v", contents)
	}
	model := contents[1].(map[string]any)
	parts := model["parts"].([]any)
	if model["role"] != "model" || len(parts) != 3 {
		t.Fatalf("model turn = %v", model)
	}
	call := parts[1].(map[string]any)
	if call["functionCall"].(map[string]any)["args"].(map[string]any)["city"] != "Paris" || call["thoughtSignature"] == nil {
		t.Errorf("call part = %v", call)
	}
	results := contents[2].(map[string]any)["parts"].([]any)
	if len(results) != 2 {
		t.Fatalf("results = %v", results)
	}
	r0 := results[0].(map[string]any)["functionResponse"].(map[string]any)
	r1 := results[1].(map[string]any)["functionResponse"].(map[string]any)
	if r0["name"] != "weather" || r0["response"].(map[string]any)["output"] != "sunny" || r1["response"].(map[string]any)["error"] != "no such city" {
		t.Errorf("function responses = %v %v", r0, r1)
	}
	decl := body["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)[0].(map[string]any)
	if decl["name"] != "weather" || decl["parametersJsonSchema"] == nil {
		t.Errorf("declaration = %v", decl)
	}
	if body["generationConfig"].(map[string]any)["maxOutputTokens"] != float64(100) {
		t.Errorf("generationConfig = %v", body["generationConfig"])
	}
}

func TestGeminiErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		events []string
		kind   providers.ErrorKind
		msg    string
	}{
		{"bad key", 400, []string{`{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`}, "", "API key not valid"},
		{"quota", 429, []string{`{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}`}, providers.KindRateLimit, "exhausted"},
		{"blocked prompt", 0, []string{`{"promptFeedback":{"blockReason":"SAFETY"}}`}, providers.KindRefusal, "SAFETY"},
		{"cut off", 0, []string{`{"candidates":[{"content":{"parts":[{"text":"hi"}]}}]}`}, providers.KindUnavailable, "before the model finished"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := (&fakeGemini{status: tc.status, events: tc.events}).serve(t)
			p := providers.NewGemini(providers.Options{Name: "google", BaseURL: srv.URL, APIKey: "AIza-long-test-key"})
			_, err := p.Complete(t.Context(), userRequest("gemini-2.5-flash", "hi"), providers.Hooks{})
			pe := asError(t, err)
			if (tc.kind != "" && pe.Kind != tc.kind) || !strings.Contains(pe.Message, tc.msg) {
				t.Errorf("error = %v (kind %s); want %s %q", pe, pe.Kind, tc.kind, tc.msg)
			}
		})
	}
	srv := (&fakeGemini{events: []string{`{"candidates":[{"content":{"parts":[{"text":"cut"}]},"finishReason":"MAX_TOKENS"}]}`}}).serve(t)
	resp, err := providers.NewGemini(providers.Options{Name: "google", BaseURL: srv.URL}).Complete(t.Context(), userRequest("m", "hi"), providers.Hooks{})
	if err != nil || resp.StopReason != providers.StopLength {
		t.Fatalf("resp %+v err %v", resp, err)
	}
}
