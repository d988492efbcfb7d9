package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// anthropicRequest is the part of a Messages request the fake reads.
type anthropicRequest struct {
	Model       string          `json:"model"`
	MaxTokens   int             `json:"max_tokens"`
	Stream      bool            `json:"stream"`
	Temperature *float64        `json:"temperature"`
	System      json.RawMessage `json:"system"`
	Messages    []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
	Source    struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

// anthropicBlocks reads content that is a string or a list of blocks, and
// returns the blocks and the text of the text blocks.
func anthropicBlocks(raw json.RawMessage) ([]Block, string) {
	blocks, text, _ := anthropicContent(raw)
	return blocks, text
}

// anthropicContent is anthropicBlocks that also decodes the image blocks.
func anthropicContent(raw json.RawMessage) ([]Block, string, []Image) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return nil, s, nil
	}
	var in []anthropicBlock
	_ = json.Unmarshal(raw, &in)
	var out []Block
	var text []string
	var imgs []Image
	for _, b := range in {
		if b.Type == "image" {
			img := Image{MediaType: b.Source.MediaType, Problem: "source type " + b.Source.Type + " is not base64"}
			if b.Source.Type == "base64" {
				img = decodeImage(b.Source.MediaType, b.Source.Data)
			}
			imgs = append(imgs, img)
		}
		blk := Block{Type: b.Type, Text: b.Text, ID: b.ID, Name: b.Name, Input: b.Input, ToolUseID: b.ToolUseID, IsError: b.IsError}
		if b.Type == "tool_result" && len(b.Content) > 0 {
			var shown []Image
			_, blk.Text, shown = anthropicContent(b.Content)
			imgs = append(imgs, shown...)
		}
		if b.Type == "text" {
			text = append(text, b.Text)
		}
		out = append(out, blk)
	}
	return out, strings.Join(text, "\n"), imgs
}

func (s *Server) serveAnthropic(w http.ResponseWriter, r *http.Request) {
	var req anthropicRequest
	body, ok := readBody(w, r, &req)
	if !ok {
		return
	}
	rec := Recorded{API: "anthropic", Path: r.URL.Path, Header: r.Header.Clone(), Model: req.Model,
		Stream: req.Stream, MaxTokens: req.MaxTokens, Temperature: req.Temperature, Body: body}
	if len(req.System) > 0 {
		_, rec.System = anthropicBlocks(req.System)
	}
	for _, m := range req.Messages {
		blocks, text, imgs := anthropicContent(m.Content)
		rec.Messages = append(rec.Messages, Message{Role: m.Role, Text: text, Blocks: blocks, Images: imgs})
	}
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, Tool{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}

	key := r.Header.Get("X-Api-Key")
	if key == "" {
		key = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	reply := s.take(rec, key)
	if !wait(r, reply.Delay) {
		return
	}
	if reply.Status != 0 {
		writeAnthropicError(w, reply)
		return
	}
	if !req.Stream {
		writeJSON(w, http.StatusOK, anthropicBody(req.Model, reply, rec))
		return
	}
	streamAnthropic(startSSE(w, r, reply.ChunkDelay), req, reply, rec)
}

// anthropicErrorTypes are the error types the API gives each status.
var anthropicErrorTypes = map[int]string{
	400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
	404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
	500: "api_error", 529: "overloaded_error",
}

func writeAnthropicError(w http.ResponseWriter, rp Reply) {
	typ := rp.ErrorType
	if typ == "" {
		typ = anthropicErrorTypes[rp.Status]
	}
	if typ == "" {
		typ = "api_error"
	}
	msg := rp.ErrorMessage
	if msg == "" {
		msg = fmt.Sprintf("fake %s (status %d)", typ, rp.Status)
	}
	if rp.RetryAfter != "" {
		w.Header().Set("Retry-After", rp.RetryAfter)
	}
	w.Header().Set("Request-Id", "req_fake")
	writeJSON(w, rp.Status, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

func anthropicStopReason(rp Reply) string {
	switch {
	case rp.Stop != "":
		return rp.Stop
	case len(rp.ToolCalls) > 0:
		return "tool_use"
	}
	return "end_turn"
}

// toolInput is a call's arguments as a tool_use input object.
func toolInput(args string) json.RawMessage {
	if json.Valid([]byte(args)) && strings.HasPrefix(strings.TrimSpace(args), "{") {
		return json.RawMessage(args)
	}
	return json.RawMessage("{}")
}

// anthropicBody is a whole message, for stream:false.
func anthropicBody(model string, rp Reply, rec Recorded) map[string]any {
	content := []map[string]any{}
	if rp.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": rp.Text})
	}
	for _, c := range rp.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": toolInput(c.Arguments)})
	}
	u := rp.usage(rec)
	return map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": content,
		"stop_reason": anthropicStopReason(rp), "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens,
			"cache_read_input_tokens": u.CacheReadTokens, "cache_creation_input_tokens": 0},
	}
}

// streamAnthropic sends the reply as Messages stream events:
// message_start, a ping, a text block delivered a word at a time, a
// tool_use block per call with its input in three input_json_delta
// pieces, message_delta with the stop reason and usage, message_stop.
func streamAnthropic(out *sse, req anthropicRequest, rp Reply, rec Recorded) {
	u := rp.usage(rec)
	start := map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.InputTokens, "output_tokens": 1,
			"cache_read_input_tokens": u.CacheReadTokens, "cache_creation_input_tokens": 0},
	}}
	if !out.send("message_start", start) || !out.send("ping", map[string]any{"type": "ping"}) {
		return
	}

	index := 0
	failing := rp.FailMidStream || rp.StreamError != ""
	if rp.Text != "" || failing {
		words := pieces(rp.Text)
		if failing {
			words = half(words)
		}
		if !out.send("content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "text", "text": ""}}) {
			return
		}
		for _, p := range words {
			if !out.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "text_delta", "text": p}}) {
				return
			}
		}
		if failing {
			if rp.FailMidStream {
				out.drop()
			}
			out.send("error", map[string]any{"type": "error", "error": map[string]any{"type": rp.StreamError, "message": "fake stream failure"}})
			return
		}
		if !out.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": index}) {
			return
		}
		index++
	}

	for _, c := range rp.ToolCalls {
		if !out.send("content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}}) {
			return
		}
		for _, p := range thirds(c.Arguments) {
			if !out.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": p}}) {
				return
			}
		}
		if !out.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": index}) {
			return
		}
		index++
	}

	if !out.send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": anthropicStopReason(rp), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.OutputTokens}}) {
		return
	}
	out.send("message_stop", map[string]any{"type": "message_stop"})
}
