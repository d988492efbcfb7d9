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

// APIGoogleGenerativeAI is the Gemini API (POST
// {baseUrl}/models/{model}:streamGenerateContent?alt=sse).
const APIGoogleGenerativeAI = "google-generative-ai"

// defaultGeminiURL is used when Options.BaseURL is empty.
const defaultGeminiURL = "https://generativelanguage.googleapis.com/v1beta"

// geminiSkipSignature stands in for the thought signature Gemini attaches
// to a function call and wants back with it: our transcripts keep a call's
// id, name and arguments only, and this is the value Google documents for
// history whose signatures are not at hand.
const geminiSkipSignature = "skip_thought_signature_validator"

// Gemini streams completions from the Gemini API. It is safe for
// concurrent use.
type Gemini struct {
	opts Options
	log  *slog.Logger
	base string
}

var _ Provider = (*Gemini)(nil)

// NewGemini returns a provider for the Gemini API at o.BaseURL; the key
// goes in x-goog-api-key, never in the URL, where it would be logged.
func NewGemini(o Options) *Gemini {
	base := strings.TrimRight(o.BaseURL, "/")
	if base == "" {
		base = defaultGeminiURL
	}
	return &Gemini{opts: o, log: o.logger(), base: base}
}

// Name is the provider's key in models.providers.
func (p *Gemini) Name() string { return p.opts.Name }

type geminiPart struct {
	Text             string          `json:"text,omitempty"`
	Thought          bool            `json:"thought,omitempty"`
	InlineData       *geminiBlob     `json:"inlineData,omitempty"`
	FunctionCall     *geminiCall     `json:"functionCall,omitempty"`
	FunctionResponse *geminiResponse `json:"functionResponse,omitempty"`
	ThoughtSignature string          `json:"thoughtSignature,omitempty"`
}

type geminiBlob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

type geminiCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

type geminiResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

type geminiContent struct {
	Role  string       `json:"role,omitempty"`
	Parts []geminiPart `json:"parts"`
}

type geminiChunk struct {
	Candidates []struct {
		Content      geminiContent `json:"content"`
		FinishReason string        `json:"finishReason"`
	} `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata *struct {
		PromptTokenCount        int64 `json:"promptTokenCount"`
		CandidatesTokenCount    int64 `json:"candidatesTokenCount"`
		ThoughtsTokenCount      int64 `json:"thoughtsTokenCount"`
		CachedContentTokenCount int64 `json:"cachedContentTokenCount"`
	} `json:"usageMetadata"`
	Error json.RawMessage `json:"error"`
}

// Complete streams one completion over server-sent events.
func (p *Gemini) Complete(ctx context.Context, req Request, hooks Hooks) (*Response, error) {
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
	endpoint := p.base + "/models/" + url.PathEscape(strings.TrimPrefix(req.Model, "models/")) + ":streamGenerateContent?alt=sse"
	header := http.Header{"Accept": {"text/event-stream"}}
	for k, v := range p.opts.Headers {
		header.Set(k, v)
	}
	switch {
	case p.opts.APIKey != "" && p.opts.AuthHeader:
		header.Set("Authorization", "Bearer "+p.opts.APIKey)
	case p.opts.APIKey != "":
		header.Set("x-goog-api-key", p.opts.APIKey)
	}
	res, err := postStream(ctx, p.opts.httpClient(), endpoint, header, body)
	if err != nil {
		return nil, c.classify(ctx, err, nil)
	}
	defer res.Body.Close()

	ans := newAnswer(hooks)
	var finish, blocked string
	var usage Usage
	calls := int64(0)
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
		var ch geminiChunk
		if err := json.Unmarshal(data, &ch); err != nil {
			return nil, &Error{Kind: KindUnavailable, Provider: c.provider, Model: c.model, Message: "the stream holds an event that is not JSON", Err: err}
		}
		if len(ch.Error) > 0 && string(ch.Error) != "null" {
			return nil, c.classify(ctx, nil, data)
		}
		if ch.UsageMetadata != nil {
			u := ch.UsageMetadata
			usage = Usage{InputTokens: u.PromptTokenCount, OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount, CacheReadTokens: u.CachedContentTokenCount}
		}
		if ch.PromptFeedback != nil && ch.PromptFeedback.BlockReason != "" {
			blocked = ch.PromptFeedback.BlockReason
		}
		if len(ch.Candidates) == 0 {
			continue
		}
		cand := ch.Candidates[0]
		for _, part := range cand.Content.Parts {
			switch {
			case part.FunctionCall != nil:
				ans.addCall(calls, part.FunctionCall.ID, part.FunctionCall.Name, argumentsText(part.FunctionCall.Args))
				calls++
			case part.Thought:
				// Thought summaries are the model's, not the answer.
			default:
				ans.addText(part.Text)
			}
		}
		if cand.FinishReason != "" {
			finish = cand.FinishReason
		}
	}
	if ctx.Err() != nil {
		return nil, c.classify(ctx, nil, nil)
	}
	if blocked != "" && finish == "" {
		return nil, &Error{Kind: KindRefusal, Provider: c.provider, Model: c.model, Message: "the prompt was blocked: " + blocked}
	}
	if finish == "" {
		return nil, &Error{Kind: KindUnavailable, Provider: c.provider, Model: c.model, Message: "stream ended before the model finished"}
	}
	resp := &Response{
		Text:      ans.text.String(),
		ToolCalls: ans.toolCalls(p.log),
		Usage:     usage,
		Provider:  p.opts.Name,
		Model:     req.Model,
	}
	switch {
	case len(resp.ToolCalls) > 0:
		resp.StopReason = StopToolCalls
	case finish == "MAX_TOKENS":
		resp.StopReason = StopLength
	case finish == "SAFETY", finish == "RECITATION", finish == "BLOCKLIST", finish == "PROHIBITED_CONTENT", finish == "SPII":
		resp.StopReason = StopRefusal
	default:
		resp.StopReason = StopEnd
	}
	p.log.Debug("completion done", "model", req.Model, "stop", resp.StopReason, "tool_calls", len(resp.ToolCalls),
		"input_tokens", usage.InputTokens, "output_tokens", usage.OutputTokens, "duration", time.Since(start))
	return resp, nil
}

// body translates a Request into generateContent's JSON: the system prompt
// as systemInstruction, turns as user/model contents, a step's tool
// results as one user turn of functionResponse parts.
func (p *Gemini) body(req Request) (map[string]any, error) {
	var contents []geminiContent
	add := func(role string, parts ...geminiPart) {
		if n := len(contents); n > 0 && contents[n-1].Role == role && role == "user" && parts[0].FunctionResponse != nil && contents[n-1].Parts[0].FunctionResponse != nil {
			contents[n-1].Parts = append(contents[n-1].Parts, parts...)
			return
		}
		contents = append(contents, geminiContent{Role: role, Parts: parts})
	}
	for i, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			parts := []geminiPart{}
			if m.Text != "" {
				parts = append(parts, geminiPart{Text: m.Text})
			}
			parts = append(parts, geminiImages(m.Images)...)
			if len(parts) == 0 {
				parts = append(parts, geminiPart{Text: " "})
			}
			add("user", parts...)
		case RoleAssistant:
			var parts []geminiPart
			if m.Text != "" {
				parts = append(parts, geminiPart{Text: m.Text})
			}
			for j, tc := range m.ToolCalls {
				args := json.RawMessage(argumentsText(tc.Arguments))
				if !strings.HasPrefix(strings.TrimSpace(string(args)), "{") || !json.Valid(args) {
					args = json.RawMessage("{}")
				}
				part := geminiPart{FunctionCall: &geminiCall{Name: tc.Name, Args: args}}
				if j == 0 {
					part.ThoughtSignature = geminiSkipSignature
				}
				parts = append(parts, part)
			}
			if len(parts) == 0 {
				parts = append(parts, geminiPart{Text: " "})
			}
			add("model", parts...)
		case RoleTool:
			key := "output"
			if m.IsError {
				key = "error"
			}
			add("user", geminiPart{FunctionResponse: &geminiResponse{Name: m.ToolName, Response: map[string]any{key: m.Text}}})
			if len(m.Images) > 0 {
				contents[len(contents)-1].Parts = append(contents[len(contents)-1].Parts, geminiImages(m.Images)...)
			}
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	body := map[string]any{"contents": contents}
	if req.System != "" {
		body["systemInstruction"] = geminiContent{Parts: []geminiPart{{Text: req.System}}}
	}
	if len(req.Tools) > 0 {
		decls := make([]map[string]any, 0, len(req.Tools))
		for _, t := range req.Tools {
			schema, err := schemaObject(t.Parameters)
			if err != nil {
				return nil, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
			}
			// parametersJsonSchema takes JSON Schema as tools write it;
			// the older parameters field takes only an OpenAPI subset.
			decls = append(decls, map[string]any{"name": t.Name, "description": t.Description, "parametersJsonSchema": schema})
		}
		body["tools"] = []any{map[string]any{"functionDeclarations": decls}}
	}
	gen := map[string]any{}
	if req.MaxTokens > 0 {
		gen["maxOutputTokens"] = req.MaxTokens
	}
	if req.Temperature != nil {
		gen["temperature"] = *req.Temperature
	}
	if len(gen) > 0 {
		body["generationConfig"] = gen
	}
	return body, nil
}

func geminiImages(imgs []Image) []geminiPart {
	var out []geminiPart
	for _, img := range imgs {
		out = append(out, geminiPart{InlineData: &geminiBlob{MimeType: img.MediaType, Data: base64.StdEncoding.EncodeToString(img.Data)}})
	}
	return out
}
