package providers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// APIOllama is Ollama's native chat API (POST {baseUrl}/api/chat, a stream
// of JSON lines), which OpenClaw recommends over Ollama's OpenAI-compatible
// /v1 for tool calling.
const APIOllama = "ollama"

// defaultOllamaURL is used when Options.BaseURL is empty.
const defaultOllamaURL = "http://127.0.0.1:11434"

// maxOllamaLine bounds one streamed line (a chunk, or a tool call whole).
const maxOllamaLine = 8 << 20

// Ollama streams chats from Ollama's native API. It is safe for
// concurrent use.
type Ollama struct {
	opts Options
	log  *slog.Logger
	base string
}

var _ Provider = (*Ollama)(nil)

// NewOllama returns a provider for the native API at o.BaseURL. A base
// ending in /v1 (the OpenAI-compatible path) is taken as the server's
// root, as the native API lives beside it. An API key, for Ollama's cloud,
// goes as a bearer token.
func NewOllama(o Options) *Ollama {
	base := strings.TrimRight(o.BaseURL, "/")
	if base == "" {
		base = defaultOllamaURL
	}
	base = strings.TrimSuffix(base, "/v1")
	return &Ollama{opts: o, log: o.logger(), base: base}
}

// Name is the provider's key in models.providers.
func (p *Ollama) Name() string { return p.opts.Name }

type ollamaToolCall struct {
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type ollamaMessage struct {
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	Images    []string         `json:"images,omitempty"`
	ToolCalls []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName  string           `json:"tool_name,omitempty"`
}

type ollamaRequest struct {
	Model    string          `json:"model"`
	Messages []ollamaMessage `json:"messages"`
	Tools    []any           `json:"tools,omitempty"`
	Stream   bool            `json:"stream"`
	Options  map[string]any  `json:"options,omitempty"`
}

type ollamaChunk struct {
	Message         ollamaMessage `json:"message"`
	Done            bool          `json:"done"`
	DoneReason      string        `json:"done_reason"`
	PromptEvalCount int64         `json:"prompt_eval_count"`
	EvalCount       int64         `json:"eval_count"`
	Error           string        `json:"error"`
}

// Complete streams one chat, passing text to hooks.OnDelta as it arrives.
// Ollama sends each tool call whole, in the chunk that makes it.
func (p *Ollama) Complete(ctx context.Context, req Request, hooks Hooks) (*Response, error) {
	c := p.opts.call(req.Model)
	if req.Model == "" {
		return nil, &Error{Kind: KindNotConfigured, Provider: p.opts.Name, Message: "no model given"}
	}
	body, err := p.body(req)
	if err != nil {
		return nil, &Error{Kind: KindBadRequest, Provider: c.provider, Model: c.model,
			Message: c.clean("build request: "+err.Error(), "build request"), Err: err}
	}
	ctx, cancel := p.opts.callContext(ctx)
	defer cancel()
	start := time.Now()
	header := http.Header{"Accept": {"application/x-ndjson"}}
	if p.opts.APIKey != "" {
		header.Set("Authorization", "Bearer "+p.opts.APIKey)
	}
	for k, v := range p.opts.Headers {
		header.Set(k, v)
	}
	res, err := postStream(ctx, p.opts.httpClient(), p.base+"/api/chat", header, body)
	if err != nil {
		return nil, c.classify(ctx, err, nil)
	}
	defer res.Body.Close()

	ans := newAnswer(hooks)
	var last ollamaChunk
	finished := false
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), maxOllamaLine)
	calls := int64(0)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var ch ollamaChunk
		if err := json.Unmarshal(line, &ch); err != nil {
			return nil, &Error{Kind: KindUnavailable, Provider: c.provider, Model: c.model, Message: "the stream holds a line that is not JSON", Err: err}
		}
		if ch.Error != "" {
			return nil, c.classify(ctx, nil, line)
		}
		ans.addText(ch.Message.Content)
		for _, tc := range ch.Message.ToolCalls {
			// Each call comes whole; number them so two calls of one
			// chunk, or of two chunks, stay apart.
			ans.addCall(calls, "", tc.Function.Name, argumentsText(tc.Function.Arguments))
			calls++
		}
		if ch.Done {
			last, finished = ch, true
			break
		}
	}
	if err := sc.Err(); err != nil || ctx.Err() != nil {
		return nil, c.classify(ctx, err, nil)
	}
	if !finished {
		return nil, &Error{Kind: KindUnavailable, Provider: c.provider, Model: c.model, Message: "stream ended before the model finished"}
	}
	resp := &Response{
		Text:      ans.text.String(),
		ToolCalls: ans.toolCalls(p.log),
		Usage:     Usage{InputTokens: last.PromptEvalCount, OutputTokens: last.EvalCount},
		Provider:  p.opts.Name,
		Model:     req.Model,
	}
	switch {
	case len(resp.ToolCalls) > 0:
		resp.StopReason = StopToolCalls
	case last.DoneReason == "length":
		resp.StopReason = StopLength
	default:
		resp.StopReason = StopEnd
	}
	p.log.Debug("completion done", "model", req.Model, "stop", resp.StopReason, "tool_calls", len(resp.ToolCalls),
		"input_tokens", last.PromptEvalCount, "output_tokens", last.EvalCount, "duration", time.Since(start))
	return resp, nil
}

// body translates a Request into /api/chat's JSON.
func (p *Ollama) body(req Request) (ollamaRequest, error) {
	r := ollamaRequest{Model: req.Model, Stream: true}
	if req.System != "" {
		r.Messages = append(r.Messages, ollamaMessage{Role: "system", Content: req.System})
	}
	for i, m := range req.Messages {
		om := ollamaMessage{Content: m.Text}
		switch m.Role {
		case RoleUser:
			om.Role = "user"
		case RoleAssistant:
			om.Role = "assistant"
			for _, tc := range m.ToolCalls {
				var call ollamaToolCall
				call.Function.Name = tc.Name
				call.Function.Arguments = json.RawMessage(argumentsText(tc.Arguments))
				if !json.Valid(call.Function.Arguments) || !strings.HasPrefix(strings.TrimSpace(string(call.Function.Arguments)), "{") {
					call.Function.Arguments = json.RawMessage("{}") // Ollama wants an object
				}
				om.ToolCalls = append(om.ToolCalls, call)
			}
		case RoleTool:
			om.Role, om.ToolName = "tool", m.ToolName
		default:
			return r, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
		for _, img := range m.Images {
			om.Images = append(om.Images, base64.StdEncoding.EncodeToString(img.Data))
		}
		r.Messages = append(r.Messages, om)
	}
	for _, t := range req.Tools {
		schema, err := schemaObject(t.Parameters)
		if err != nil {
			return r, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
		}
		r.Tools = append(r.Tools, map[string]any{"type": "function", "function": map[string]any{
			"name": t.Name, "description": t.Description, "parameters": schema,
		}})
	}
	if req.MaxTokens > 0 || req.Temperature != nil {
		r.Options = map[string]any{}
		if req.MaxTokens > 0 {
			r.Options["num_predict"] = req.MaxTokens
		}
		if req.Temperature != nil {
			r.Options["temperature"] = *req.Temperature
		}
	}
	return r, nil
}
