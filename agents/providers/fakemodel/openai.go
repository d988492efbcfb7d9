package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// openAIRequest is the part of a Chat Completions request the fake reads.
type openAIRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           int      `json:"max_tokens"`
	MaxCompletionTokens int      `json:"max_completion_tokens"`
	Temperature         *float64 `json:"temperature"`
	Messages            []struct {
		Role       string           `json:"role"`
		Content    json.RawMessage  `json:"content"`
		ToolCalls  []openAIToolCall `json:"tool_calls"`
		ToolCallID string           `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

type openAIToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// openAIContent reads content that is a string, a list of parts or null:
// the text parts joined, and the image_url parts decoded.
func openAIContent(raw json.RawMessage) (string, []Image) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	var imgs []Image
	for _, p := range parts {
		b.WriteString(p.Text)
		if p.Type == "image_url" {
			imgs = append(imgs, dataURLImage(p.ImageURL.URL))
		}
	}
	return b.String(), imgs
}

// dataURLImage decodes a "data:<type>;base64,<data>" URL.
func dataURLImage(u string) Image {
	meta, data, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	mediaType, isBase64 := strings.CutSuffix(meta, ";base64")
	if !strings.HasPrefix(u, "data:") || !ok || !isBase64 {
		return Image{Problem: "not a base64 data URL"}
	}
	return decodeImage(mediaType, data)
}

func (s *Server) serveOpenAI(w http.ResponseWriter, r *http.Request) {
	var req openAIRequest
	body, ok := readBody(w, r, &req)
	if !ok {
		return
	}
	rec := Recorded{API: "openai", Path: r.URL.Path, Header: r.Header.Clone(), Model: req.Model,
		Stream: req.Stream, MaxTokens: max(req.MaxTokens, req.MaxCompletionTokens),
		Temperature: req.Temperature, Body: body}
	var system []string
	for _, m := range req.Messages {
		text, imgs := openAIContent(m.Content)
		if m.Role == "system" || m.Role == "developer" {
			system = append(system, text)
			continue
		}
		msg := Message{Role: m.Role, Text: text, ToolCallID: m.ToolCallID, Images: imgs}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		rec.Messages = append(rec.Messages, msg)
	}
	rec.System = strings.Join(system, "\n")
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}

	reply := s.take(rec, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	if !wait(r, reply.Delay) {
		return
	}
	if reply.Status != 0 {
		writeOpenAIError(w, reply)
		return
	}
	if !req.Stream {
		writeJSON(w, http.StatusOK, openAIBody(req.Model, reply, rec))
		return
	}
	streamOpenAI(startSSE(w, r, reply.ChunkDelay), req, reply, rec)
}

func writeOpenAIError(w http.ResponseWriter, rp Reply) {
	msg, typ := rp.ErrorMessage, "invalid_request_error"
	switch {
	case rp.Status == http.StatusTooManyRequests:
		typ = "rate_limit_exceeded"
	case rp.Status >= 500:
		typ = "server_error"
	}
	if msg == "" {
		msg = fmt.Sprintf("fake %s (status %d)", typ, rp.Status)
	}
	var code any
	if rp.ErrorType != "" {
		code = rp.ErrorType
	}
	if rp.RetryAfter != "" {
		w.Header().Set("Retry-After", rp.RetryAfter)
	}
	writeJSON(w, rp.Status, map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code},
	})
}

func openAIFinish(rp Reply) string {
	switch {
	case rp.Stop != "":
		return rp.Stop
	case len(rp.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func openAIUsage(u Usage) map[string]any {
	return map[string]any{
		"prompt_tokens":         u.InputTokens,
		"completion_tokens":     u.OutputTokens,
		"total_tokens":          u.InputTokens + u.OutputTokens,
		"prompt_tokens_details": map[string]any{"cached_tokens": u.CacheReadTokens},
	}
}

// openAIBody is a whole chat.completion, for stream:false.
func openAIBody(model string, rp Reply, rec Recorded) map[string]any {
	msg := map[string]any{"role": "assistant", "content": nil}
	if rp.Text != "" {
		msg["content"] = rp.Text
	}
	if len(rp.ToolCalls) > 0 {
		calls := make([]map[string]any, len(rp.ToolCalls))
		for i, c := range rp.ToolCalls {
			calls[i] = map[string]any{"id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
		}
		msg["tool_calls"] = calls
	}
	return map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": openAIFinish(rp), "logprobs": nil}},
		"usage":   openAIUsage(rp.usage(rec)),
	}
}

// streamOpenAI sends the reply as chat.completion.chunk events: a role
// chunk, text a word at a time, tool calls with their arguments split in
// three and the calls' pieces interleaved, a finish chunk, a usage chunk
// when asked for, and [DONE].
func streamOpenAI(out *sse, req openAIRequest, rp Reply, rec Recorded) {
	created := time.Now().Unix()
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}},
		}
	}
	if !out.send("", chunk(map[string]any{"role": "assistant", "content": ""}, nil)) {
		return
	}

	words := pieces(rp.Text)
	failing := rp.FailMidStream || rp.StreamError != ""
	if failing {
		words = half(words)
	}
	for _, p := range words {
		if !out.send("", chunk(map[string]any{"content": p}, nil)) {
			return
		}
	}
	if failing {
		if rp.FailMidStream {
			out.drop()
		}
		out.send("", map[string]any{"error": map[string]any{"message": "fake stream failure", "type": rp.StreamError, "code": nil}})
		return
	}

	for i, c := range rp.ToolCalls {
		head := map[string]any{"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}
		if !out.send("", chunk(map[string]any{"tool_calls": []any{head}}, nil)) {
			return
		}
	}
	for part := range 3 {
		for i, c := range rp.ToolCalls {
			ps := thirds(c.Arguments)
			if part >= len(ps) {
				continue
			}
			d := map[string]any{"index": i, "function": map[string]any{"arguments": ps[part]}}
			if !out.send("", chunk(map[string]any{"tool_calls": []any{d}}, nil)) {
				return
			}
		}
	}

	if !out.send("", chunk(map[string]any{}, openAIFinish(rp))) {
		return
	}
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		u := map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created,
			"model": req.Model, "choices": []any{}, "usage": openAIUsage(rp.usage(rec))}
		if !out.send("", u) {
			return
		}
	}
	out.send("", "[DONE]")
}
