package providers_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers"
)

var updateBodies = flag.Bool("update-bodies", false, "rewrite testdata/requests/*.json from what the providers send")

// goldenKey is the API key of the golden cases; goldens show it as <key>.
const goldenKey = "test-key-0123456789"

// goldenHeaders are the request headers a golden file records, besides
// those a case configures. A name missing from a golden was not sent.
var goldenHeaders = []string{
	"Accept", "Anthropic-Beta", "Anthropic-Version", "Authorization", "Content-Type", "X-Api-Key",
	"HTTP-Referer", "X-OpenRouter-Title", "X-OpenRouter-Categories",
}

// exchange is one request as a golden file holds it.
type exchange struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Query   string            `json:"query,omitempty"`
	Headers map[string]string `json:"headers"`
	Body    any               `json:"body"`
}

// capture is a model server that keeps the requests it gets and answers
// each with the shortest stream that completes for its protocol.
type capture struct {
	srv  *httptest.Server
	mu   sync.Mutex
	got  []*http.Request
	body [][]byte
}

func newCapture(t *testing.T) *capture {
	c := &capture{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.got, c.body = append(c.got, r.Clone(r.Context())), append(c.body, body)
		c.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if strings.HasSuffix(r.URL.Path, "/messages") {
			io.WriteString(w, minimalAnthropicStream)
			return
		}
		io.WriteString(w, minimalOpenAIStream)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

const minimalOpenAIStream = "data: {\"id\":\"1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"

const minimalAnthropicStream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n" +
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

// bodyCase is one request whose wire form is pinned by a golden file.
type bodyCase struct {
	name string
	wire string // "openai" or "anthropic"
	// base is the configured base URL with the test server's origin
	// written as {srv}; another origin is routed to the server too.
	base string
	opts providers.Options
	req  providers.Request
}

func ptr[T any](v T) *T { return &v }

// goldenTools are tools whose schemas cover what tools write: nested
// objects, required lists, extra keywords, an empty schema, a schema
// without properties.
func goldenTools() []providers.Tool {
	return []providers.Tool{
		{Name: "read_file", Description: "read a file", Parameters: json.RawMessage(`{
			"type": "object",
			"properties": {
				"path": {"type": "string", "description": "where"},
				"range": {"type": "object", "properties": {"from": {"type": "integer", "minimum": 1}, "to": {"type": "integer"}}}
			},
			"required": ["path"],
			"additionalProperties": false,
			"$defs": {"line": {"type": "integer"}}
		}`)},
		{Name: "now", Parameters: nil},
		{Name: "ping", Description: "no properties", Parameters: json.RawMessage(`{"type":"object"}`)},
		{Name: "pick", Description: "one of", Parameters: json.RawMessage(`{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}}}],"required":["a",3]}`)},
	}
}

// goldenHistory is a conversation with every kind of turn: text, calls
// with odd arguments, results (one an error, one empty), follow-ups.
func goldenHistory(model string) providers.Request {
	return providers.Request{
		Model:  model,
		System: "be brief",
		Messages: []providers.Message{
			{Role: providers.RoleUser, Text: "look around"},
			{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{
				{ID: "call_1", Name: "read_file", Arguments: json.RawMessage(` {"path":"a.txt"} `)},
				{ID: "call_2", Name: "now"},
				{ID: "call_3", Name: "pick", Arguments: json.RawMessage(`[1,2]`)},
				{ID: "call_4", Name: "ping", Arguments: json.RawMessage(`null`)},
			}},
			{Role: providers.RoleTool, ToolCallID: "call_1", ToolName: "read_file", Text: "hello <world> & co"},
			{Role: providers.RoleTool, ToolCallID: "call_2", ToolName: "now", Text: "12:00"},
			{Role: providers.RoleTool, ToolCallID: "call_3", ToolName: "pick", Text: "bad arguments", IsError: true},
			{Role: providers.RoleTool, ToolCallID: "call_4", ToolName: "ping"},
			{Role: providers.RoleAssistant, Text: "done looking"},
			{Role: providers.RoleUser, Text: "and now?"},
			{Role: providers.RoleUser, Text: "quick"},
		},
		Tools: goldenTools(),
	}
}

func imageRequest(model string) providers.Request {
	png := providers.Image{MediaType: "image/png", Data: pngBytes}
	jpeg := providers.Image{MediaType: "image/jpeg", Data: []byte("\xff\xd8\xff\xe0fake")}
	return providers.Request{Model: model, Messages: []providers.Message{
		{Role: providers.RoleUser, Text: "what is this?", Images: []providers.Image{png, jpeg}},
		{Role: providers.RoleAssistant, Text: "two pictures"},
		{Role: providers.RoleUser, Images: []providers.Image{png}},
	}}
}

func toolImageRequest(model string) providers.Request {
	req := toolTranscript(model)
	shot := providers.Image{MediaType: "image/png", Data: pngBytes}
	req.Messages[2].Images = []providers.Image{shot}
	req.Messages[3].Images = []providers.Image{shot, shot}
	req.Messages[3].Text = ""
	return req
}

func tuned(req providers.Request, maxTokens int, temp *float64) providers.Request {
	req.MaxTokens, req.Temperature = maxTokens, temp
	return req
}

var bodyCases = []bodyCase{
	{name: "openai-plain", wire: "openai", base: "{srv}/v1", req: userRequest("gpt-test", "hi")},
	{name: "openai-system", wire: "openai", base: "{srv}/v1", opts: providers.Options{APIKey: goldenKey},
		req: providers.Request{Model: "gpt-test", System: "you are terse", Messages: []providers.Message{{Role: providers.RoleUser, Text: "hi"}}}},
	{name: "openai-tools", wire: "openai", base: "{srv}/v1", req: func() providers.Request {
		r := userRequest("gpt-test", "use a tool")
		r.Tools = goldenTools()
		return r
	}()},
	{name: "openai-history", wire: "openai", base: "{srv}/v1", req: goldenHistory("gpt-test")},
	{name: "openai-transcript", wire: "openai", base: "{srv}/v1", req: toolTranscript("gpt-test")},
	{name: "openai-images", wire: "openai", base: "{srv}/v1", req: imageRequest("gpt-test")},
	{name: "openai-tool-images", wire: "openai", base: "{srv}/v1", req: toolImageRequest("gpt-test")},
	{name: "openai-max-temperature", wire: "openai", base: "{srv}/v1", req: tuned(userRequest("gpt-test", "hi"), 256, ptr(0.25))},
	{name: "openai-temperature-zero", wire: "openai", base: "{srv}/v1/", req: tuned(userRequest("gpt-test", "hi"), 0, ptr(0.0))},
	{name: "openai-official", wire: "openai", base: "https://api.openai.com/v1", opts: providers.Options{APIKey: goldenKey},
		req: tuned(userRequest("gpt-5", "hi"), 1000, ptr(1.0))},
	{name: "openai-default-base", wire: "openai", base: "", opts: providers.Options{APIKey: goldenKey}, req: userRequest("gpt-5", "hi")},
	{name: "openai-headers", wire: "openai", base: "{srv}/proxy/v1?api-version=1", opts: providers.Options{APIKey: goldenKey,
		Headers: map[string]string{"X-Title": "openclaw", "Authorization": "Basic abc"}}, req: userRequest("m", "hi")},
	{name: "openrouter", wire: "openai", base: "https://openrouter.ai/api/v1", opts: providers.Options{APIKey: goldenKey},
		req: tuned(goldenHistory("meta-llama/llama-3.1-8b"), 512, nil)},
	{name: "openrouter-own-title", wire: "openai", base: "https://openrouter.ai/api/v1", opts: providers.Options{APIKey: goldenKey,
		Headers: map[string]string{"X-OpenRouter-Title": "Mine"}}, req: userRequest("openai/gpt-4o", "hi")},
	{name: "ollama-openai-compatible", wire: "openai", base: "http://127.0.0.1:11434/v1",
		req: tuned(goldenHistory("llama3.2"), 64, ptr(0.7))},

	{name: "anthropic-plain", wire: "anthropic", base: "{srv}", req: userRequest("claude-test", "hi")},
	{name: "anthropic-system", wire: "anthropic", base: "{srv}", opts: providers.Options{APIKey: goldenKey},
		req: providers.Request{Model: "claude-test", System: "you are terse", Messages: []providers.Message{{Role: providers.RoleUser, Text: "hi"}}}},
	{name: "anthropic-tools", wire: "anthropic", base: "{srv}", req: func() providers.Request {
		r := userRequest("claude-test", "use a tool")
		r.Tools = goldenTools()
		return r
	}()},
	{name: "anthropic-history", wire: "anthropic", base: "{srv}", req: goldenHistory("claude-test")},
	{name: "anthropic-transcript", wire: "anthropic", base: "{srv}/v1/", req: toolTranscript("claude-test")},
	{name: "anthropic-images", wire: "anthropic", base: "{srv}", req: imageRequest("claude-test")},
	{name: "anthropic-tool-images", wire: "anthropic", base: "{srv}", req: toolImageRequest("claude-test")},
	{name: "anthropic-max-temperature", wire: "anthropic", base: "{srv}/v1", req: tuned(userRequest("claude-test", "hi"), 100, ptr(0.5))},
	{name: "anthropic-temperature-zero", wire: "anthropic", base: "{srv}", req: tuned(userRequest("claude-test", "hi"), 0, ptr(0.0))},
	{name: "anthropic-bearer", wire: "anthropic", base: "{srv}/proxy/anthropic", opts: providers.Options{APIKey: goldenKey, AuthHeader: true,
		Headers: map[string]string{"X-Title": "openclaw"}}, req: userRequest("claude-test", "hi")},
	{name: "anthropic-official", wire: "anthropic", base: "", opts: providers.Options{APIKey: goldenKey,
		Headers: map[string]string{"Anthropic-Beta": "fine-grained-tool-streaming-2025-05-14"}}, req: userRequest("claude-opus-4-6", "hi")},
	{name: "anthropic-empty-turns", wire: "anthropic", base: "{srv}", req: providers.Request{Model: "claude-test", MaxTokens: 10, Messages: []providers.Message{
		{Role: providers.RoleUser, Text: "a"},
		{Role: providers.RoleAssistant},
		{Role: providers.RoleUser, Text: "b"},
		{Role: providers.RoleAssistant, Text: "c"},
		{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: "t1", Name: "now"}}},
		{Role: providers.RoleTool, ToolCallID: "t1", Text: "noon"},
	}}},
}

// TestRequestBodies pins what each provider sends: method, path, the
// headers that matter and the JSON body, against testdata/requests.
func TestRequestBodies(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range bodyCases {
		if seen[tc.name] {
			t.Fatalf("two cases named %q", tc.name)
		}
		seen[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			c := newCapture(t)
			to, _ := url.Parse(c.srv.URL)
			o := tc.opts
			o.Name = "golden"
			o.BaseURL = strings.ReplaceAll(tc.base, "{srv}", c.srv.URL)
			o.HTTPClient = &http.Client{Transport: redirect{to: to}}
			var p providers.Provider
			if tc.wire == "anthropic" {
				p = providers.NewAnthropic(o)
			} else {
				p = providers.NewOpenAI(o)
			}
			if _, err := p.Complete(t.Context(), tc.req, providers.Hooks{}); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if len(c.got) != 1 {
				t.Fatalf("%d requests, want 1", len(c.got))
			}
			got := normalExchange(t, c.got[0], c.body[0], o.Headers)
			file := filepath.Join("testdata", "requests", tc.name+".json")
			if *updateBodies {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update-bodies to write it)", err)
			}
			if want = normalJSON(t, want); !bytes.Equal(got, want) {
				t.Errorf("request differs from %s\ngot:\n%s\nwant:\n%s", file, got, want)
			}
		})
	}
}

// normalExchange renders a request as a golden holds it: the body
// re-indented with sorted keys, the key shown as <key>.
func normalExchange(t *testing.T, r *http.Request, body []byte, configured map[string]string) []byte {
	t.Helper()
	ex := exchange{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Headers: map[string]string{}}
	names := append([]string(nil), goldenHeaders...)
	for k := range configured {
		names = append(names, k)
	}
	for _, name := range names {
		if vs := r.Header.Values(name); len(vs) > 0 {
			ex.Headers[http.CanonicalHeaderKey(name)] = strings.ReplaceAll(strings.Join(vs, ", "), goldenKey, "<key>")
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&ex.Body); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, body)
	}
	if bytes.Contains(body, []byte(goldenKey)) {
		t.Errorf("the API key is in the request body")
	}
	b, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	return normalJSON(t, b)
}

// normalJSON re-indents a JSON document with sorted keys.
func normalJSON(t *testing.T, b []byte) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, b)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
