package providers

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// defaultOpenAIURL is used when Options.BaseURL is empty.
const defaultOpenAIURL = "https://api.openai.com/v1"

// OpenAI streams chat completions from an OpenAI-compatible endpoint:
// OpenAI, OpenRouter, Ollama, vLLM, llama.cpp, LM Studio. It is safe for
// concurrent use.
type OpenAI struct {
	opts Options
	log  *slog.Logger
	chat openai.ChatCompletionService
	// completionTokens sends max_completion_tokens, which OpenAI's own
	// reasoning models require; other servers get the classic max_tokens.
	completionTokens bool
}

var _ Provider = (*OpenAI)(nil)

// NewOpenAI returns a provider for the Chat Completions endpoint at
// o.BaseURL. It reads nothing from the environment (no OPENAI_API_KEY):
// a gateway must not hand one provider's key to another server. The SDK's
// own retries are off; Chain retries.
func NewOpenAI(o Options) *OpenAI {
	if o.BaseURL == "" {
		o.BaseURL = defaultOpenAIURL
	}
	reqOpts := []option.RequestOption{
		option.WithBaseURL(o.BaseURL),
		option.WithHTTPClient(o.httpClient()),
		option.WithMaxRetries(0),
	}
	if o.APIKey != "" {
		reqOpts = append(reqOpts, option.WithAPIKey(o.APIKey))
	}
	for k, v := range o.Headers {
		reqOpts = append(reqOpts, option.WithHeader(k, v))
	}
	completionTokens := false
	if u, err := url.Parse(o.BaseURL); err == nil && strings.EqualFold(u.Hostname(), "api.openai.com") {
		completionTokens = true
	}
	if isOpenRouter(o.BaseURL) {
		for k, v := range openRouterAttribution {
			if !hasHeader(o.Headers, k) {
				reqOpts = append(reqOpts, option.WithHeader(k, v))
			}
		}
	}
	return &OpenAI{
		opts:             o,
		log:              o.logger(),
		chat:             openai.NewChatCompletionService(reqOpts...),
		completionTokens: completionTokens,
	}
}

// Name is the provider's key in models.providers.
func (p *OpenAI) Name() string { return p.opts.Name }

// Complete streams one chat completion, passing text to hooks.OnDelta as
// it arrives and assembling tool calls from their streamed pieces.
func (p *OpenAI) Complete(ctx context.Context, req Request, hooks Hooks) (*Response, error) {
	c := p.opts.call(req.Model)
	if req.Model == "" {
		return nil, &Error{Kind: KindNotConfigured, Provider: p.opts.Name, Message: "no model given"}
	}
	params, err := p.params(req)
	if err != nil {
		return nil, &Error{Kind: KindBadRequest, Provider: c.provider, Model: c.model,
			Message: c.clean("build request: "+err.Error(), "build request"), Err: err}
	}

	ctx, cancel := p.opts.callContext(ctx)
	defer cancel()
	start := time.Now()
	rec := &failureRecorder{}
	stream := p.chat.NewStreaming(ctx, params, option.WithMiddleware(rec.middleware))
	defer stream.Close()

	ans := newAnswer(hooks)
	var finish string
	var usage Usage
	refused := false
	for stream.Next() {
		chunk := stream.Current()
		if chunk.JSON.Usage.Valid() {
			usage = Usage{
				InputTokens:     chunk.Usage.PromptTokens,
				OutputTokens:    chunk.Usage.CompletionTokens,
				CacheReadTokens: chunk.Usage.PromptTokensDetails.CachedTokens,
			}
		}
		for _, choice := range chunk.Choices {
			if choice.Index != 0 {
				continue // n is never set, but a server may still number choices
			}
			ans.addText(choice.Delta.Content)
			if choice.Delta.Refusal != "" {
				refused = true
				ans.addText(choice.Delta.Refusal)
			}
			for _, tc := range choice.Delta.ToolCalls {
				ans.addCall(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments)
			}
			if choice.FinishReason != "" {
				finish = choice.FinishReason
			}
		}
	}
	if err := stream.Err(); err != nil || ctx.Err() != nil {
		return nil, c.classify(ctx, rec.wrap(err), openAIStreamError(err))
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

// openAIStreamError returns the data of an error event inside a stream.
func openAIStreamError(err error) []byte {
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		return se.Event.Data
	}
	return nil
}

// params translates a Request into the SDK's request body.
func (p *OpenAI) params(req Request) (openai.ChatCompletionNewParams, error) {
	msgs := make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Messages)+1)
	if req.System != "" {
		msgs = append(msgs, openai.SystemMessage(req.System))
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
				return openai.ChatCompletionNewParams{}, fmt.Errorf("message %d: tool result without a call id", i)
			}
			msgs = append(msgs, openai.ToolMessage(m.Text, m.ToolCallID))
			if len(m.Images) > 0 {
				if shown.Text == "" {
					shown.Text = "Pictures from the tool results above:"
				}
				shown.Text += fmt.Sprintf(" %s (%s)", m.ToolName, m.ToolCallID)
				shown.Images = append(shown.Images, m.Images...)
			}
		default:
			return openai.ChatCompletionNewParams{}, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	flush()

	params := openai.ChatCompletionNewParams{
		Model:         req.Model,
		Messages:      msgs,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	for _, t := range req.Tools {
		schema, err := schemaObject(t.Parameters)
		if err != nil {
			return openai.ChatCompletionNewParams{}, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
		}
		fn := openai.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(fn))
	}
	if req.MaxTokens > 0 {
		if p.completionTokens {
			params.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
		} else {
			params.MaxTokens = openai.Int(int64(req.MaxTokens))
		}
	}
	if req.Temperature != nil {
		params.Temperature = openai.Float(*req.Temperature)
	}
	return params, nil
}

// openAIUser is a user turn: plain text, or, with images, a text part
// followed by one image_url part per image as a base64 data URL.
func openAIUser(m Message) openai.ChatCompletionMessageParamUnion {
	if len(m.Images) == 0 {
		return openai.UserMessage(m.Text)
	}
	parts := make([]openai.ChatCompletionContentPartUnionParam, 0, len(m.Images)+1)
	if m.Text != "" {
		parts = append(parts, openai.TextContentPart(m.Text))
	}
	for _, img := range m.Images {
		parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
			URL: "data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data),
		}))
	}
	return openai.UserMessage(parts)
}

// openAIAssistant is an assistant turn: its text and the calls it made.
func openAIAssistant(m Message) openai.ChatCompletionMessageParamUnion {
	var a openai.ChatCompletionAssistantMessageParam
	if m.Text != "" || len(m.ToolCalls) == 0 {
		a.Content.OfString = openai.String(m.Text)
	}
	for _, tc := range m.ToolCalls {
		a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID: tc.ID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
					Name:      tc.Name,
					Arguments: argumentsText(tc.Arguments),
				},
			},
		})
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}
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
