package providers_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

func TestOpenAIRequestShape(t *testing.T) {
	srv := fakemodel.New(t)
	p := providers.NewOpenAI(providers.Options{Name: "local", BaseURL: srv.URL() + "/v1"})
	temp := 0.25
	req := toolTranscript("llama3")
	req.MaxTokens = 256
	req.Temperature = &temp
	completeOK(t, p, req, &recorder{})

	got := srv.Requests()[0]
	if got.Path != "/v1/chat/completions" || got.Model != "llama3" || !got.Stream {
		t.Errorf("request %s model %q stream %v, want /v1/chat/completions llama3 streamed", got.Path, got.Model, got.Stream)
	}
	if got.System != "you are terse" {
		t.Errorf("System = %q", got.System)
	}
	if got.MaxTokens != 256 || got.Temperature == nil || *got.Temperature != 0.25 {
		t.Errorf("max tokens %d, temperature %v; want 256, 0.25", got.MaxTokens, got.Temperature)
	}
	var body struct {
		MaxTokens     *int `json:"max_tokens"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.Unmarshal(got.Body, &body); err != nil {
		t.Fatal(err)
	}
	if !body.StreamOptions.IncludeUsage || body.MaxTokens == nil {
		t.Errorf("body %s: want stream_options.include_usage and max_tokens", got.Body)
	}

	want := []fakemodel.Message{
		{Role: "user", Text: "weather in Paris and Oslo?"},
		{Role: "assistant", Text: "checking", ToolCalls: []fakemodel.ToolCall{
			{ID: "call_a", Name: "weather", Arguments: `{"city":"Paris"}`},
			{ID: "call_b", Name: "weather", Arguments: `{"city":"Oslo"}`},
		}},
		{Role: "tool", Text: "sunny", ToolCallID: "call_a"},
		{Role: "tool", Text: "no such city", ToolCallID: "call_b"},
		{Role: "user", Text: "thanks"},
	}
	if len(got.Messages) != len(want) {
		t.Fatalf("got %d messages, want %d: %+v", len(got.Messages), len(want), got.Messages)
	}
	for i, w := range want {
		g := got.Messages[i]
		if g.Role != w.Role || g.Text != w.Text || g.ToolCallID != w.ToolCallID || len(g.ToolCalls) != len(w.ToolCalls) {
			t.Errorf("message %d = %+v, want %+v", i, g, w)
			continue
		}
		for j := range w.ToolCalls {
			if g.ToolCalls[j] != w.ToolCalls[j] {
				t.Errorf("message %d call %d = %+v, want %+v", i, j, g.ToolCalls[j], w.ToolCalls[j])
			}
		}
	}
	if len(got.Tools) != 1 || got.Tools[0].Name != "weather" || got.Tools[0].Description != "current weather" ||
		!sameJSON(t, string(got.Tools[0].Parameters), string(req.Tools[0].Parameters)) {
		t.Errorf("tools = %+v", got.Tools)
	}
}

// redirect sends every request to the fake, whatever host it names, so a
// test can play api.openai.com. It also proves a custom client is used.
type redirect struct{ to *url.URL }

func (r redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = r.to.Scheme, r.to.Host
	return http.DefaultTransport.RoundTrip(req)
}

func TestOpenAIMaxTokensField(t *testing.T) {
	tests := []struct {
		name, baseURL, wantField string
	}{
		{"openai", "https://api.openai.com/v1", "max_completion_tokens"},
		{"ollama", "http://127.0.0.1:11434/v1", "max_tokens"},
		{"openrouter", "https://openrouter.ai/api/v1", "max_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakemodel.New(t)
			to, _ := url.Parse(srv.URL())
			base, _ := url.Parse(tt.baseURL)
			// Keep the path the fake serves: /v1/chat/completions.
			base.Path = "/v1"
			p := providers.NewOpenAI(providers.Options{
				Name: tt.name, BaseURL: base.String(),
				HTTPClient: &http.Client{Transport: redirect{to: to}},
			})
			req := userRequest("m", "hi")
			req.MaxTokens = 99
			completeOK(t, p, req, &recorder{})
			var body map[string]any
			if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			if body[tt.wantField] != float64(99) {
				t.Errorf("body %s: want %s 99", srv.Requests()[0].Body, tt.wantField)
			}
		})
	}
}

// captureTransport answers every request with a one-chunk SSE stream and
// keeps the request headers.
type captureTransport struct{ got []http.Header }

func (c *captureTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.got = append(c.got, r.Header.Clone())
	body := "data: {\"id\":\"1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

func TestOpenRouterAttributionHeaders(t *testing.T) {
	tests := []struct {
		base, title string
		headers     map[string]string
	}{
		{base: "https://openrouter.ai/api/v1", title: "OpenClaw"},
		{base: "https://openrouter.ai/api/v1", title: "Mine", headers: map[string]string{"x-openrouter-title": "Mine"}},
		{base: "https://proxy.example/api/v1", title: ""}, // not OpenRouter: nothing added
		{base: "http://openrouter.ai/api/v1", title: ""},  // not over https
	}
	for _, tc := range tests {
		tr := &captureTransport{}
		p := providers.NewOpenAI(providers.Options{Name: "openrouter", BaseURL: tc.base, APIKey: "sk-or-test", Headers: tc.headers, HTTPClient: &http.Client{Transport: tr}})
		if _, err := p.Complete(t.Context(), userRequest("meta-llama/llama-3.1-8b", "hi"), providers.Hooks{}); err != nil {
			t.Fatalf("%s: %v", tc.base, err)
		}
		h := tr.got[0]
		if got := h.Get("X-OpenRouter-Title"); got != tc.title {
			t.Errorf("%s: title %q, want %q", tc.base, got, tc.title)
		}
		if wantRef := tc.title != ""; (h.Get("HTTP-Referer") != "") != wantRef {
			t.Errorf("%s: HTTP-Referer %q", tc.base, h.Get("HTTP-Referer"))
		}
	}
}
