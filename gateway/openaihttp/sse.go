package openaihttp

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
)

// sseStream writes a turn as chat.completion.chunk events. The agent's
// text arrives as each step's text so far (OnText: "" when a model's
// attempt is voided), so only what extends what was sent goes out; a new
// step's text follows after a blank line. A voided attempt cannot be
// taken back: the rest waits for the final answer, and an answer that
// does not extend what the client already has ends the stream with an
// error rather than with text that contradicts it.
type sseStream struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	flusher http.Flusher
	id      string
	model   string
	created int64
	started bool   // the role chunk went out
	seg     string // the current step's text as sent
	voided  bool   // an attempt whose text was sent was voided
	done    bool
}

func newSSEStream(w http.ResponseWriter, id, model string, created int64) *sseStream {
	f, _ := w.(http.Flusher)
	return &sseStream{w: w, flusher: f, id: id, model: model, created: created}
}

// delta hears the step's text so far.
func (s *sseStream) delta(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.done:
	case text == "":
		if s.seg != "" {
			s.voided = true
		}
	case s.voided:
	case strings.HasPrefix(text, s.seg):
		s.content(text[len(s.seg):])
		s.seg = text
	default: // a new step
		s.content("\n\n" + text)
		s.seg = text
	}
}

// finish sends what of the final answer the client lacks, the stop
// chunk, the usage chunk when asked, and [DONE].
func (s *sseStream) finish(final string, withUsage bool, usage map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.seg == "":
		s.content(final)
	case strings.HasPrefix(final, s.seg):
		s.content(final[len(s.seg):])
	default:
		s.failLocked("the answer was corrected after part of it was streamed; ask again without stream for the final text")
		return
	}
	s.chunk(map[string]any{}, "stop")
	if withUsage {
		s.write(map[string]any{"id": s.id, "object": "chat.completion.chunk", "created": s.created, "model": s.model, "choices": []any{}, "usage": usage})
	}
	s.raw("[DONE]")
	s.done = true
}

// fail ends the stream with an error object and [DONE].
func (s *sseStream) fail(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failLocked(msg)
}

func (s *sseStream) failLocked(msg string) {
	if s.done {
		return
	}
	s.open()
	s.write(map[string]any{"error": map[string]any{"message": msg, "type": "api_error"}})
	s.raw("[DONE]")
	s.done = true
}

func (s *sseStream) open() {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	s.w.WriteHeader(http.StatusOK)
	s.chunk(map[string]any{"role": "assistant", "content": ""}, "")
}

func (s *sseStream) content(text string) {
	s.open()
	if text != "" {
		s.chunk(map[string]any{"content": text}, "")
	}
}

func (s *sseStream) chunk(delta map[string]any, finish string) {
	var reason any
	if finish != "" {
		reason = finish
	}
	s.write(map[string]any{"id": s.id, "object": "chat.completion.chunk", "created": s.created, "model": s.model,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": reason}}})
}

func (s *sseStream) write(v any) {
	b, _ := json.Marshal(v)
	s.raw(string(b))
}

func (s *sseStream) raw(data string) {
	s.w.Write([]byte("data: " + data + "\n\n"))
	if s.flusher != nil {
		s.flusher.Flush()
	}
}
