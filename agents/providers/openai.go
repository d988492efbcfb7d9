package providers

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// defaultOpenAIURL is used when Options.BaseURL is empty.
const defaultOpenAIURL = "https://api.openai.com/v1"

// OpenAI streams chat completions from an OpenAI-compatible endpoint:
// OpenAI, OpenRouter, Ollama, vLLM, llama.cpp, LM Studio. It speaks the
// wire protocol itself (POST {baseUrl}/chat/completions with stream:true).
// It is safe for concurrent use.
type OpenAI struct {
	opts     Options
	log      *slog.Logger
	endpoint string
	badBase  error // the base URL does not parse
	header   http.Header
	// completionTokens sends max_completion_tokens, which OpenAI's own
	// reasoning models require; other servers get the classic max_tokens.
	completionTokens bool
}

var _ Provider = (*OpenAI)(nil)

// NewOpenAI returns a provider for the Chat Completions endpoint at
// o.BaseURL. It reads nothing from the environment (no OPENAI_API_KEY):
// a gateway must not hand one provider's key to another server. It never
// retries; Chain does.
func NewOpenAI(o Options) *OpenAI {
	if o.BaseURL == "" {
		o.BaseURL = defaultOpenAIURL
	}
	endpoint, err := endpointURL(o.BaseURL, "chat/completions")
	header := http.Header{"Accept": {"application/json"}}
	if o.APIKey != "" {
		header.Set("Authorization", "Bearer "+o.APIKey)
	}
	for k, v := range o.Headers {
		header.Set(k, v)
	}
	completionTokens := false
	if u, err := url.Parse(o.BaseURL); err == nil && strings.EqualFold(u.Hostname(), "api.openai.com") {
		completionTokens = true
	}
	if isOpenRouter(o.BaseURL) {
		for k, v := range openRouterAttribution {
			if !hasHeader(o.Headers, k) {
				header.Set(k, v)
			}
		}
	}
	return &OpenAI{
		opts:             o,
		log:              o.logger(),
		endpoint:         endpoint,
		badBase:          err,
		header:           header,
		completionTokens: completionTokens,
	}
}

// Name is the provider's key in models.providers.
func (p *OpenAI) Name() string { return p.opts.Name }

// openAIChunk is the part of a chat.completion.chunk event we read.
type openAIChunk struct {
	Choices []struct {
		Index count `json:"index"`
		Delta struct {
			Content   flexText `json:"content"`
			Refusal   flexText `json:"refusal"`
			ToolCalls []struct {
				Index    count  `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      flexText `json:"name"`
					Arguments flexText `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason flexText `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        count `json:"prompt_tokens"`
		CompletionTokens    count `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens count `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	// Error is an error object sent inside the stream (OpenRouter and
	// vLLM do this when a completion fails part-way).
	Error json.RawMessage `json:"error"`
}

// Complete streams one chat completion, passing text to hooks.OnDelta as
// it arrives and assembling tool calls from their streamed pieces.
func (p *OpenAI) Complete(ctx context.Context, req Request, hooks Hooks) (*Response, error) {
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
	if p.badBase != nil {
		return nil, c.classify(ctx, p.badBase, nil)
	}
	start := time.Now()
	res, err := postStream(ctx, p.opts.httpClient(), p.endpoint, p.header.Clone(), body)
	if err != nil {
		return nil, c.classify(ctx, err, nil)
	}
	defer res.Body.Close()

	ans := newAnswer(hooks)
	var finish string
	var usage Usage
	refused := false
	events := newSSEReader(res.Body)
	for {
		ev, err := events.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, c.classify(ctx, err, nil)
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 {
			continue
		}
		if bytes.HasPrefix(data, []byte("[DONE]")) {
			break
		}
		var chunk openAIChunk
		if err := json.Unmarshal(data, &chunk); err != nil {
			if streamError(data) {
				return nil, c.classify(ctx, nil, data)
			}
			return nil, c.classify(ctx, fmt.Errorf("the stream holds an event that is not a JSON chunk: %w", err), nil)
		}
		if isErrorValue(chunk.Error) {
			return nil, c.classify(ctx, nil, data)
		}
		if u := chunk.Usage; u != nil {
			usage = Usage{
				InputTokens:     int64(u.PromptTokens),
				OutputTokens:    int64(u.CompletionTokens),
				CacheReadTokens: int64(u.PromptTokensDetails.CachedTokens),
			}
		}
		for _, choice := range chunk.Choices {
			if choice.Index != 0 {
				continue // n is never set, but a server may still number choices
			}
			ans.addText(string(choice.Delta.Content))
			if choice.Delta.Refusal != "" {
				refused = true
				ans.addText(string(choice.Delta.Refusal))
			}
			for _, tc := range choice.Delta.ToolCalls {
				ans.addCall(int64(tc.Index), tc.ID, string(tc.Function.Name), string(tc.Function.Arguments))
			}
			if choice.FinishReason != "" {
				finish = string(choice.FinishReason)
			}
		}
	}
	if ctx.Err() != nil {
		return nil, c.classify(ctx, nil, nil)
	}
	if finish == "" {
		return nil, &Error{Kind: KindUnavailable, Provider: c.provider, Model: c.model,
			Message: "stream ended before the model finished"}
	}

	resp := &Response{
		Text:      ans.text.String(),
		ToolCalls: ans.toolCalls(p.log),
		Usage:     usage,
		Provider:  p.opts.Name,
		Model:     req.Model,
	}
	resp.StopReason = openAIStop(finish, refused, len(resp.ToolCalls) > 0)
	p.log.Debug("completion done", "model", req.Model, "stop", resp.StopReason,
		"tool_calls", len(resp.ToolCalls), "input_tokens", usage.InputTokens,
		"output_tokens", usage.OutputTokens, "duration", time.Since(start))
	return resp, nil
}

// openAIStop maps a finish_reason. Some servers (older Ollama) finish a
// tool-calling answer with "stop", so calls present win.
func openAIStop(finish string, refused, hasCalls bool) string {
	switch {
	case finish == "tool_calls", finish == "function_call", hasCalls:
		return StopToolCalls
	case finish == "length":
		return StopLength
	case finish == "content_filter", refused:
		return StopRefusal
	}
	return StopEnd
}

// streamError reports whether an event is an error object: {"error":...}.
func streamError(data []byte) bool {
	var probe struct {
		Error json.RawMessage `json:"error"`
	}
	return json.Unmarshal(data, &probe) == nil && isErrorValue(probe.Error)
}

// isErrorValue reports whether an "error" field holds anything.
func isErrorValue(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && string(v) != "null" && string(v) != "false" && string(v) != `""`
}

// openAIRequest is the body of a streamed chat completion.
type openAIRequest struct {
	Model         string          `json:"model"`
	Messages      []openAIMessage `json:"messages"`
	Stream        bool            `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools               []openAITool `json:"tools,omitempty"`
	MaxTokens           int          `json:"max_tokens,omitempty"`
	MaxCompletionTokens int          `json:"max_completion_tokens,omitempty"`
	Temperature         *float64     `json:"temperature,omitempty"`
}

type openAIMessage struct {
	Role string `json:"role"`
	// Content is a string or a list of openAIPart; nil (left out) for an
	// assistant turn that only calls tools.
	Content    any              `json:"content,omitempty"`
	ToolCalls  []openAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

type openAIPart struct {
	Type     string          `json:"type"` // "text" or "image_url"
	Text     string          `json:"text,omitempty"`
	ImageURL *openAIImageURL `json:"image_url,omitempty"`
}

type openAIImageURL struct {
	URL string `json:"url"`
}

type openAIToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"` // "function"
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type openAITool struct {
	Type     string `json:"type"` // "function"
	Function struct {
		Name        string         `json:"name"`
		Description string         `json:"description,omitempty"`
		Parameters  map[string]any `json:"parameters"`
	} `json:"function"`
}

// body translates a Request into the request body.
func (p *OpenAI) body(req Request) (*openAIRequest, error) {
	msgs := make([]openAIMessage, 0, len(req.Messages)+1)
	if req.System != "" {
		msgs = append(msgs, openAIMessage{Role: "system", Content: req.System})
	}
	// Tool results' pictures wait for the end of the step's results: the
	// chat API takes images from users only, and tool messages must
	// follow their assistant turn unbroken.
	var shown Message
	flush := func() {
		if len(shown.Images) > 0 {
			msgs = append(msgs, openAIUser(shown))
		}
		shown = Message{Role: RoleUser}
	}
	for i, m := range req.Messages {
		if m.Role != RoleTool {
			flush()
		}
		switch m.Role {
		case RoleUser:
			msgs = append(msgs, openAIUser(m))
		case RoleAssistant:
			msgs = append(msgs, openAIAssistant(m))
		case RoleTool:
			if m.ToolCallID == "" {
				return nil, fmt.Errorf("message %d: tool result without a call id", i)
			}
			msgs = append(msgs, openAIMessage{Role: "tool", Content: m.Text, ToolCallID: m.ToolCallID})
			if len(m.Images) > 0 {
				if shown.Text == "" {
					shown.Text = "Pictures from the tool results above:"
				}
				shown.Text += fmt.Sprintf(" %s (%s)", m.ToolName, m.ToolCallID)
				shown.Images = append(shown.Images, m.Images...)
			}
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	flush()

	r := &openAIRequest{Model: req.Model, Messages: msgs, Stream: true}
	r.StreamOptions.IncludeUsage = true
	for _, t := range req.Tools {
		schema, err := schemaObject(t.Parameters)
		if err != nil {
			return nil, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
		}
		tool := openAITool{Type: "function"}
		tool.Function.Name, tool.Function.Description, tool.Function.Parameters = t.Name, t.Description, schema
		r.Tools = append(r.Tools, tool)
	}
	if req.MaxTokens > 0 {
		if p.completionTokens {
			r.MaxCompletionTokens = req.MaxTokens
		} else {
			r.MaxTokens = req.MaxTokens
		}
	}
	r.Temperature = req.Temperature
	return r, nil
}

// openAIUser is a user turn: plain text, or, with images, a text part
// followed by one image_url part per image as a base64 data URL.
func openAIUser(m Message) openAIMessage {
	if len(m.Images) == 0 {
		return openAIMessage{Role: "user", Content: m.Text}
	}
	parts := make([]openAIPart, 0, len(m.Images)+1)
	if m.Text != "" {
		parts = append(parts, openAIPart{Type: "text", Text: m.Text})
	}
	for _, img := range m.Images {
		parts = append(parts, openAIPart{Type: "image_url", ImageURL: &openAIImageURL{
			URL: "data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data),
		}})
	}
	return openAIMessage{Role: "user", Content: parts}
}

// openAIAssistant is an assistant turn: its text and the calls it made.
func openAIAssistant(m Message) openAIMessage {
	a := openAIMessage{Role: "assistant"}
	if m.Text != "" || len(m.ToolCalls) == 0 {
		a.Content = m.Text
	}
	for _, tc := range m.ToolCalls {
		call := openAIToolCall{ID: tc.ID, Type: "function"}
		call.Function.Name, call.Function.Arguments = tc.Name, argumentsText(tc.Arguments)
		a.ToolCalls = append(a.ToolCalls, call)
	}
	return a
}

// openRouterAttribution are OpenRouter's app-attribution headers, sent as
// OpenClaw sends them, only to OpenRouter's own API: a proxy elsewhere
// gets none. A header the config sets wins.
var openRouterAttribution = map[string]string{
	"HTTP-Referer":            "https://openclaw.ai",
	"X-OpenRouter-Title":      "OpenClaw",
	"X-OpenRouter-Categories": "cli-agent,cloud-agent,programming-app,creative-writing,writing-assistant,general-chat,personal-agent",
}

// isOpenRouter reports whether base is OpenRouter's API over https.
func isOpenRouter(base string) bool {
	u, err := url.Parse(base)
	return err == nil && u.Scheme == "https" && strings.EqualFold(u.Hostname(), "openrouter.ai") &&
		strings.HasPrefix(strings.TrimSuffix(u.Path, "/")+"/", "/api/v1/")
}

func hasHeader(h map[string]string, name string) bool {
	for k := range h {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}
