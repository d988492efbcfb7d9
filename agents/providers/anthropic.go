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
	"strings"
	"time"
)

const (
	// defaultAnthropicURL is used when Options.BaseURL is empty;
	// "v1/messages" is added to it.
	defaultAnthropicURL = "https://api.anthropic.com"
	// defaultAnthropicMaxTokens is sent when Request.MaxTokens is 0: the
	// Messages API requires max_tokens.
	defaultAnthropicMaxTokens = 4096
	// anthropicVersion is the API version requested in anthropic-version.
	anthropicVersion = "2026-10-21"
)

// Anthropic streams completions from the Messages API (Anthropic or a
// server that speaks it). It speaks the wire protocol itself (POST
// {baseUrl}/v1/messages with stream:true). It is safe for concurrent use.
type Anthropic struct {
	opts     Options
	log      *slog.Logger
	endpoint string
	badBase  error // the base URL does not parse
	header   http.Header
}

var _ Provider = (*Anthropic)(nil)

// NewAnthropic returns a provider for the Messages API at o.BaseURL. A
// trailing "/v1" on the base URL is dropped, since "v1/messages" is added.
// It reads nothing from the environment (no ANTHROPIC_API_KEY, no
// profiles), sends the key as x-api-key (or as a bearer token with
// AuthHeader), and never retries; Chain does.
func NewAnthropic(o Options) *Anthropic {
	if o.BaseURL == "" {
		o.BaseURL = defaultAnthropicURL
	}
	base := strings.TrimSuffix(strings.TrimSuffix(o.BaseURL, "/"), "/v1")
	endpoint, err := endpointURL(base, "v1/messages")
	header := http.Header{"Accept": {"application/json"}, "Anthropic-Version": {anthropicVersion}}
	switch {
	case o.APIKey != "" && o.AuthHeader:
		header.Set("Authorization", "Bearer "+o.APIKey)
	case o.APIKey != "":
		header.Set("X-Api-Key", o.APIKey)
	}
	for k, v := range o.Headers {
		header.Set(k, v)
	}
	return &Anthropic{opts: o, log: o.logger(), endpoint: endpoint, badBase: err, header: header}
}

// Name is the provider's key in models.providers.
func (p *Anthropic) Name() string { return p.opts.Name }

// anthropicEvent is the part of a Messages stream event we read; one
// struct serves every event type.
type anthropicEvent struct {
	Type    string `json:"type"`
	Index   count  `json:"index"`
	Message struct {
		Usage anthropicUsage `json:"usage"`
	} `json:"message"` // message_start
	ContentBlock struct {
		Type string   `json:"type"` // "text", "tool_use", "thinking"...
		Text flexText `json:"text"`
		ID   string   `json:"id"`
		Name string   `json:"name"`
	} `json:"content_block"` // content_block_start
	Delta struct {
		Type        string   `json:"type"` // "text_delta", "input_json_delta", "thinking_delta"...
		Text        flexText `json:"text"`
		PartialJSON flexText `json:"partial_json"`
		StopReason  flexText `json:"stop_reason"` // message_delta
	} `json:"delta"` // content_block_delta, message_delta
	Usage anthropicUsage `json:"usage"` // message_delta
}

type anthropicUsage struct {
	InputTokens              count `json:"input_tokens"`
	OutputTokens             count `json:"output_tokens"`
	CacheReadInputTokens     count `json:"cache_read_input_tokens"`
	CacheCreationInputTokens count `json:"cache_creation_input_tokens"`
}

// Complete streams one message, passing text to hooks.OnDelta as it
// arrives and assembling tool_use blocks from their input_json_delta
// pieces. Thinking blocks are the model's own and are not part of the
// answer.
func (p *Anthropic) Complete(ctx context.Context, req Request, hooks Hooks) (*Response, error) {
	c := p.opts.call(req.Model)
	if req.Model == "" {
		return nil, &Error{Kind: KindNotConfigured, Provider: p.opts.Name, Message: "no model given"}
	}
	body, err := anthropicBody(req, p.log)
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
	var usage Usage
	var stop string
	done := false
	events := newSSEReader(res.Body)
	for !done {
		sse, err := events.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, c.classify(ctx, err, nil)
		}
		data := bytes.TrimSpace(sse.Data)
		if sse.Name == "error" {
			// An error inside the 200 stream: overloaded_error, typically.
			if len(data) == 0 {
				data = []byte(`{"error":{"message":"an error event without details"}}`)
			}
			return nil, c.classify(ctx, nil, data)
		}
		if len(data) == 0 || sse.Name == "ping" {
			continue
		}
		var ev anthropicEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			return nil, c.classify(ctx, fmt.Errorf("the stream holds an event that is not JSON: %w", err), nil)
		}
		switch ev.Type {
		case "error":
			return nil, c.classify(ctx, nil, data)
		case "message_start":
			u := ev.Message.Usage
			usage = Usage{InputTokens: int64(u.InputTokens), OutputTokens: int64(u.OutputTokens),
				CacheReadTokens: int64(u.CacheReadInputTokens), CacheWriteTokens: int64(u.CacheCreationInputTokens)}
		case "content_block_start":
			switch b := ev.ContentBlock; b.Type {
			case "text":
				ans.addText(string(b.Text))
			case "tool_use":
				ans.addCall(int64(ev.Index), b.ID, b.Name, "")
			}
		case "content_block_delta":
			switch d := ev.Delta; d.Type {
			case "text_delta":
				ans.addText(string(d.Text))
			case "input_json_delta":
				ans.addCall(int64(ev.Index), "", "", string(d.PartialJSON))
			}
		case "message_delta":
			stop = string(ev.Delta.StopReason)
			// message_delta's counts are cumulative; input counts appear
			// only when the server revises them.
			if n := int64(ev.Usage.OutputTokens); n > 0 {
				usage.OutputTokens = n
			}
			if n := int64(ev.Usage.InputTokens); n > 0 {
				usage.InputTokens = n
			}
			if n := int64(ev.Usage.CacheReadInputTokens); n > 0 {
				usage.CacheReadTokens = n
			}
			if n := int64(ev.Usage.CacheCreationInputTokens); n > 0 {
				usage.CacheWriteTokens = n
			}
		case "message_stop":
			done = true
		}
	}
	if ctx.Err() != nil {
		return nil, c.classify(ctx, nil, nil)
	}
	if !done {
		return nil, &Error{Kind: KindUnavailable, Provider: c.provider, Model: c.model,
			Message: "stream ended before the model finished"}
	}

	resp := &Response{
		Text:       ans.text.String(),
		ToolCalls:  ans.toolCalls(p.log),
		StopReason: anthropicStop(stop),
		Usage:      usage,
		Provider:   p.opts.Name,
		Model:      req.Model,
	}
	p.log.Debug("completion done", "model", req.Model, "stop", resp.StopReason,
		"tool_calls", len(resp.ToolCalls), "input_tokens", usage.InputTokens,
		"output_tokens", usage.OutputTokens, "duration", time.Since(start))
	return resp, nil
}

func anthropicStop(reason string) string {
	switch reason {
	case "tool_use":
		return StopToolCalls
	case "max_tokens", "model_context_window_exceeded":
		return StopLength
	case "refusal":
		return StopRefusal
	}
	return StopEnd // end_turn, stop_sequence, pause_turn
}

// anthropicRequest is the body of a streamed Messages call.
type anthropicRequest struct {
	Model       string             `json:"model"`
	MaxTokens   int                `json:"max_tokens"`
	System      []anthropicText    `json:"system,omitempty"`
	Messages    []anthropicMessage `json:"messages"`
	Tools       []anthropicTool    `json:"tools,omitempty"`
	Temperature *float64           `json:"temperature,omitempty"`
	Stream      bool               `json:"stream"`
}

type anthropicMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"` // anthropicText, anthropicImage, anthropicToolUse, anthropicToolResult
}

type anthropicText struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

type anthropicImage struct {
	Type   string `json:"type"` // "image"
	Source struct {
		Type      string `json:"type"` // "base64"
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

type anthropicToolUse struct {
	Type  string          `json:"type"` // "tool_use"
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type anthropicToolResult struct {
	Type      string `json:"type"` // "tool_result"
	ToolUseID string `json:"tool_use_id"`
	Content   []any  `json:"content,omitempty"` // anthropicText, anthropicImage
	IsError   bool   `json:"is_error,omitempty"`
}

type anthropicTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	InputSchema map[string]any `json:"input_schema"`
}

func textBlock(s string) anthropicText { return anthropicText{Type: "text", Text: s} }

func imageBlock(img Image) anthropicImage {
	b := anthropicImage{Type: "image"}
	b.Source.Type, b.Source.MediaType, b.Source.Data = "base64", img.MediaType, base64.StdEncoding.EncodeToString(img.Data)
	return b
}

// anthropicBody translates a Request. Messages of one role in a row are
// merged, which puts consecutive tool results (RoleTool, sent as
// tool_result blocks of a user turn) into one user message.
func anthropicBody(req Request, log *slog.Logger) (*anthropicRequest, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = defaultAnthropicMaxTokens
	}
	r := &anthropicRequest{Model: req.Model, MaxTokens: maxTokens, Temperature: req.Temperature,
		Stream: true, Messages: []anthropicMessage{}}
	if req.System != "" {
		r.System = []anthropicText{textBlock(req.System)}
	}

	for i, m := range req.Messages {
		var role string
		var blocks []any
		switch m.Role {
		case RoleUser:
			role = "user"
			if m.Text != "" {
				blocks = append(blocks, textBlock(m.Text))
			}
			for _, img := range m.Images {
				blocks = append(blocks, imageBlock(img))
			}
		case RoleAssistant:
			role = "assistant"
			if m.Text != "" {
				blocks = append(blocks, textBlock(m.Text))
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, anthropicToolUse{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: toolInput(tc, log)})
			}
		case RoleTool:
			if m.ToolCallID == "" {
				return nil, fmt.Errorf("message %d: tool result without a call id", i)
			}
			role = "user"
			blocks = append(blocks, toolResult(m))
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
		if len(blocks) == 0 {
			continue // the API refuses empty turns
		}
		if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == role {
			r.Messages[n-1].Content = append(r.Messages[n-1].Content, blocks...)
			continue
		}
		r.Messages = append(r.Messages, anthropicMessage{Role: role, Content: blocks})
	}

	for _, t := range req.Tools {
		schema, err := schemaObject(t.Parameters)
		if err != nil {
			return nil, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
		}
		r.Tools = append(r.Tools, anthropicTool{Name: t.Name, Description: t.Description, InputSchema: inputSchema(schema)})
	}
	return r, nil
}

// toolResult is a tool's output as a tool_result block.
func toolResult(m Message) anthropicToolResult {
	b := anthropicToolResult{Type: "tool_result", ToolUseID: m.ToolCallID, IsError: m.IsError}
	if m.Text != "" {
		b.Content = append(b.Content, textBlock(m.Text))
	}
	for _, img := range m.Images {
		b.Content = append(b.Content, imageBlock(img))
	}
	return b
}

// toolInput is a past call's arguments as a tool_use input, which must be
// a JSON object.
func toolInput(tc ToolCall, log *slog.Logger) json.RawMessage {
	args := json.RawMessage(argumentsText(tc.Arguments))
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		log.Warn("tool call arguments are not a JSON object; sending {}", "tool", tc.Name)
		return json.RawMessage("{}")
	}
	return args
}

// inputSchema is a tool's JSON Schema as input_schema, which must be an
// object schema: the type is always "object", and of "required" only the
// names (strings) are kept. Every other keyword goes as written.
func inputSchema(schema map[string]any) map[string]any {
	out := make(map[string]any, len(schema)+1)
	for k, v := range schema {
		switch k {
		case "type", "properties", "required":
			continue
		}
		out[k] = v
	}
	out["type"] = "object"
	if props := schema["properties"]; props != nil {
		out["properties"] = props
	}
	if req, ok := schema["required"].([]any); ok {
		var names []string
		for _, r := range req {
			if name, ok := r.(string); ok {
				names = append(names, name)
			}
		}
		if len(names) > 0 {
			out["required"] = names
		}
	}
	return out
}
