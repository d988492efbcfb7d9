package providers

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

const (
	// defaultAnthropicURL is used when Options.BaseURL is empty; the SDK
	// adds "v1/messages".
	defaultAnthropicURL = "https://api.anthropic.com"
	// defaultAnthropicMaxTokens is sent when Request.MaxTokens is 0: the
	// Messages API requires max_tokens.
	defaultAnthropicMaxTokens = 4096
)

// Anthropic streams completions from the Messages API (Anthropic or a
// server that speaks it). It is safe for concurrent use.
type Anthropic struct {
	opts Options
	log  *slog.Logger
	msgs anthropic.MessageService
}

var _ Provider = (*Anthropic)(nil)

// NewAnthropic returns a provider for the Messages API at o.BaseURL. A
// trailing "/v1" on the base URL is dropped, since the SDK adds it. It
// reads nothing from the environment (no ANTHROPIC_API_KEY, no profiles),
// sends the key as x-api-key, and leaves retries to Chain.
func NewAnthropic(o Options) *Anthropic {
	if o.BaseURL == "" {
		o.BaseURL = defaultAnthropicURL
	}
	base := strings.TrimSuffix(strings.TrimSuffix(o.BaseURL, "/"), "/v1")
	reqOpts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(base),
		option.WithHTTPClient(o.httpClient()),
		option.WithMaxRetries(0),
	}
	switch {
	case o.APIKey != "" && o.AuthHeader:
		reqOpts = append(reqOpts, option.WithHeader("Authorization", "Bearer "+o.APIKey))
	case o.APIKey != "":
		reqOpts = append(reqOpts, option.WithHeader("x-api-key", o.APIKey))
	}
	for k, v := range o.Headers {
		reqOpts = append(reqOpts, option.WithHeader(k, v))
	}
	client := anthropic.NewClient(reqOpts...)
	return &Anthropic{opts: o, log: o.logger(), msgs: client.Messages}
}

// Name is the provider's key in models.providers.
func (p *Anthropic) Name() string { return p.opts.Name }

// Complete streams one message, passing text to hooks.OnDelta as it
// arrives and assembling tool_use blocks from their input_json_delta pieces.
func (p *Anthropic) Complete(ctx context.Context, req Request, hooks Hooks) (*Response, error) {
	c := p.opts.call(req.Model)
	if req.Model == "" {
		return nil, &Error{Kind: KindNotConfigured, Provider: p.opts.Name, Message: "no model given"}
	}
	params, err := anthropicParams(req, p.log)
	if err != nil {
		return nil, &Error{Kind: KindBadRequest, Provider: c.provider, Model: c.model,
			Message: c.clean("build request: "+err.Error(), "build request"), Err: err}
	}

	ctx, cancel := p.opts.callContext(ctx)
	defer cancel()
	start := time.Now()
	rec := &failureRecorder{}
	callOpts := []option.RequestOption{option.WithMiddleware(rec.middleware)}
	if req.Temperature != nil {
		// The SDK's params have no temperature field; the API takes one.
		callOpts = append(callOpts, option.WithJSONSet("temperature", *req.Temperature))
	}
	stream := p.msgs.NewStreaming(ctx, params, callOpts...)
	defer stream.Close()

	ans := newAnswer(hooks)
	var usage Usage
	var stop string
	done := false
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			u := ev.Message.Usage
			usage = Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
				CacheReadTokens: u.CacheReadInputTokens, CacheWriteTokens: u.CacheCreationInputTokens}
		case "content_block_start":
			switch b := ev.ContentBlock; b.Type {
			case "text":
				ans.addText(b.Text)
			case "tool_use":
				ans.addCall(ev.Index, b.ID, b.Name, "")
			}
		case "content_block_delta":
			switch d := ev.Delta; d.Type {
			case "text_delta":
				ans.addText(d.Text)
			case "input_json_delta":
				ans.addCall(ev.Index, "", "", d.PartialJSON)
			}
		case "message_delta":
			stop = string(ev.Delta.StopReason)
			// message_delta's counts are cumulative; input counts appear
			// only when the server revises them.
			if n := ev.Usage.OutputTokens; n > 0 {
				usage.OutputTokens = n
			}
			if n := ev.Usage.InputTokens; n > 0 {
				usage.InputTokens = n
			}
			if n := ev.Usage.CacheReadInputTokens; n > 0 {
				usage.CacheReadTokens = n
			}
			if n := ev.Usage.CacheCreationInputTokens; n > 0 {
				usage.CacheWriteTokens = n
			}
		case "message_stop":
			done = true
		}
	}
	if err := stream.Err(); err != nil || ctx.Err() != nil {
		return nil, c.classify(ctx, rec.wrap(err), anthropicStreamError(err))
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

// anthropicStreamError returns the JSON of an error event that arrived
// inside a 200 stream (an overloaded_error, typically).
func anthropicStreamError(err error) []byte {
	var ae *anthropic.Error
	if errors.As(err, &ae) && ae.StatusCode < 400 {
		return []byte(ae.RawJSON())
	}
	return nil
}

// anthropicParams translates a Request. Messages of one role in a row are
// merged, which puts consecutive tool results (RoleTool, sent as
// tool_result blocks of a user turn) into one user message.
func anthropicParams(req Request, log *slog.Logger) (anthropic.MessageNewParams, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = defaultAnthropicMaxTokens
	}
	params := anthropic.MessageNewParams{Model: req.Model, MaxTokens: int64(maxTokens)}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System}}
	}

	for i, m := range req.Messages {
		var role string
		var blocks []anthropic.ContentBlockParamUnion
		switch m.Role {
		case RoleUser:
			role = "user"
			if m.Text != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Text))
			}
			for _, img := range m.Images {
				blocks = append(blocks, anthropic.NewImageBlockBase64(img.MediaType, base64.StdEncoding.EncodeToString(img.Data)))
			}
		case RoleAssistant:
			role = "assistant"
			if m.Text != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Text))
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, toolInput(tc, log), tc.Name))
			}
		case RoleTool:
			if m.ToolCallID == "" {
				return params, fmt.Errorf("message %d: tool result without a call id", i)
			}
			role = "user"
			blocks = append(blocks, toolResult(m))
		default:
			return params, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
		if len(blocks) == 0 {
			continue // the API refuses empty turns
		}
		if n := len(params.Messages); n > 0 && anthropicRole(params.Messages[n-1]) == role {
			last := &params.Messages[n-1]
			if role == "user" {
				last.OfUser.Content = append(last.OfUser.Content, blocks...)
			} else {
				last.OfAssistant.Content = append(last.OfAssistant.Content, blocks...)
			}
			continue
		}
		if role == "user" {
			params.Messages = append(params.Messages, anthropic.NewUserMessage(blocks...))
		} else {
			params.Messages = append(params.Messages, anthropic.NewAssistantMessage(blocks...))
		}
	}

	for _, t := range req.Tools {
		schema, err := schemaObject(t.Parameters)
		if err != nil {
			return params, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
		}
		tp := anthropic.ToolParam{Name: t.Name, InputSchema: inputSchema(schema)}
		if t.Description != "" {
			tp.Description = anthropic.String(t.Description)
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: &tp})
	}
	return params, nil
}

func anthropicRole(m anthropic.MessageParam) string {
	switch {
	case m.OfUser != nil:
		return "user"
	case m.OfAssistant != nil:
		return "assistant"
	}
	return ""
}

// toolResult is a tool's output as a tool_result block.
func toolResult(m Message) anthropic.ContentBlockParamUnion {
	b := anthropic.ToolResultBlockParam{ToolUseID: m.ToolCallID}
	if m.Text != "" {
		b.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: m.Text}}}
	}
	for _, img := range m.Images {
		b.Content = append(b.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: &anthropic.ImageBlockParam{
			Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{
				MediaType: anthropic.Base64ImageSourceMediaType(img.MediaType), Data: base64.StdEncoding.EncodeToString(img.Data)}},
		}})
	}
	if m.IsError {
		b.IsError = anthropic.Bool(true)
	}
	return anthropic.ContentBlockParamUnion{OfToolResult: &b}
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

// inputSchema splits a JSON Schema object into the SDK's fields.
func inputSchema(schema map[string]any) anthropic.ToolInputSchemaParam {
	s := anthropic.ToolInputSchemaParam{Properties: schema["properties"]}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	for k, v := range schema {
		switch k {
		case "type", "properties", "required":
			continue
		}
		if s.ExtraFields == nil {
			s.ExtraFields = map[string]any{}
		}
		s.ExtraFields[k] = v
	}
	return s
}
