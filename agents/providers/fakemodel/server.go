// Package fakemodel is a scripted language-model server for tests. It
// speaks the real wire formats the providers' clients expect — OpenAI Chat
// Completions (POST /v1/chat/completions) and Anthropic Messages (POST
// /v1/messages), streamed as server-sent events or as one JSON body — so
// tests exercise the real clients end to end without a network.
//
// Only tests import it. A test queues replies with Script; when the queue
// is empty the server echoes ("echo: <last user text>", followed by
// " [images: image/png 68 bytes, …]" when that message carried images),
// so an end-to-end test needs no script at all and can see which image
// bytes arrived. Every request is recorded, decoded, for
// assertions. A Server is safe for concurrent use.
//
//	srv := fakemodel.New(t)
//	srv.Script(fakemodel.Reply{Text: "hello"}, fakemodel.Reply{Status: 429, RetryAfter: "2"})
//	p := providers.NewOpenAI(providers.Options{Name: "fake", BaseURL: srv.URL() + "/v1"})
package fakemodel

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// ToolCall is a call the scripted model makes.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON text; streamed in several pieces
}

// Usage is the token count a reply reports. Zero fields are estimated
// from the text (about four characters a token).
type Usage struct {
	InputTokens     int64
	OutputTokens    int64
	CacheReadTokens int64
}

// Reply scripts one answer of the server.
type Reply struct {
	Text      string
	ToolCalls []ToolCall
	// Stop is the stop reason as the wire spells it ("length",
	// "max_tokens", "content_filter", "refusal"...). Default: end of turn,
	// or tool calls when there are some.
	Stop string
	// Status, when not 0, answers with this HTTP error status (429, 500,
	// 401, 529...) and an error body in the API's shape.
	Status int
	// ErrorMessage is the error body's message; a default fits Status.
	ErrorMessage string
	// ErrorType is the error's type (Anthropic) or code (OpenAI).
	ErrorType string
	// RetryAfter is sent as the Retry-After header: seconds or an HTTP date.
	RetryAfter string
	// Delay waits before the first byte; ChunkDelay between streamed chunks.
	// Both end early when the client goes away.
	Delay      time.Duration
	ChunkDelay time.Duration
	// FailMidStream sends part of the answer, then drops the connection.
	FailMidStream bool
	// StreamError sends part of the answer, then an error event of this
	// type ("overloaded_error", "server_error") inside the 200 stream.
	StreamError string
	Usage       Usage
}

// Recorded is one request as the server decoded it.
type Recorded struct {
	API         string // "openai" or "anthropic"
	Path        string
	Header      http.Header
	Model       string
	System      string // Anthropic's system, or OpenAI's system/developer messages joined
	Stream      bool
	MaxTokens   int // max_tokens, or max_completion_tokens
	Temperature *float64
	Messages    []Message // without OpenAI's system messages
	Tools       []Tool
	Body        json.RawMessage
}

// Message is one message of a recorded request.
type Message struct {
	Role       string
	Text       string     // string content, or its text parts joined
	ToolCalls  []ToolCall // OpenAI: an assistant's tool_calls
	ToolCallID string     // OpenAI: the call a tool message answers
	Blocks     []Block    // Anthropic: the content blocks, when content is a list
	// Images are the message's images in order: OpenAI image_url parts
	// with a base64 data URL, Anthropic image blocks with a base64 source.
	Images []Image
}

// Image is an image of a recorded message, decoded. An image the fake
// could not decode (a remote URL, bad base64) has a nil Data and says why
// in Problem.
type Image struct {
	MediaType string
	Data      []byte
	Problem   string
}

// decodeImage decodes base64 image data of the given media type.
func decodeImage(mediaType, b64 string) Image {
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return Image{MediaType: mediaType, Problem: "bad base64: " + err.Error()}
	}
	return Image{MediaType: mediaType, Data: data}
}

// imagesNote describes images for the echo: " [images: image/png 68
// bytes, …]", or "" for none.
func imagesNote(imgs []Image) string {
	if len(imgs) == 0 {
		return ""
	}
	parts := make([]string, len(imgs))
	for i, img := range imgs {
		if img.Problem != "" {
			parts[i] = img.MediaType + " (" + img.Problem + ")"
			continue
		}
		parts[i] = fmt.Sprintf("%s %d bytes", img.MediaType, len(img.Data))
	}
	return " [images: " + strings.Join(parts, ", ") + "]"
}

// Block is an Anthropic content block of a recorded request.
type Block struct {
	Type      string // "text", "image", "tool_use", "tool_result"
	Text      string // a text block's text, or a tool_result's text
	ID        string // tool_use
	Name      string // tool_use
	Input     json.RawMessage
	ToolUseID string // tool_result
	IsError   bool   // tool_result
}

// Tool is a tool offered in a recorded request.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage // OpenAI's parameters or Anthropic's input_schema
}

// Server is the fake. Create it with New.
type Server struct {
	srv *httptest.Server

	mu         sync.Mutex
	queue      []Reply
	requests   []Recorded
	requireKey string
	hold       chan struct{} // see Hold
	held       int
	respond    func(Recorded) (Reply, bool) // see Respond
}

// New starts a server that t closes at its end.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serveOpenAI)
	mux.HandleFunc("POST /v1/messages", s.serveAnthropic)
	s.srv = httptest.NewServer(s.holding(mux))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the server's root: the Anthropic base URL. The OpenAI base URL
// is URL()+"/v1".
func (s *Server) URL() string { return s.srv.URL }

// Script queues replies, answered in order, one per request.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Pending is how many scripted replies are still queued.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Respond makes f pick the reply to each request that no scripted reply
// answers, in place of the echo; when f returns false the echo answers.
// A script is one queue for every caller, so concurrent conversations
// that each need their own tool calls (a soak run) decide from the
// request instead. f runs with the server locked: it must not call the
// Server.
func (s *Server) Respond(f func(Recorded) (Reply, bool)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = f
}

// RequireKey makes the server refuse, with 401, requests without this API
// key (Authorization: Bearer for OpenAI; x-api-key or Bearer for
// Anthropic). The 401 body repeats the key it got, as careless servers
// do, so tests can check that it never reaches an error message.
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requireKey = key
}

// Requests returns a copy of the requests received so far, in order.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Recorded, len(s.requests))
	copy(out, s.requests)
	return out
}

// take records a request and picks its reply: the next scripted one, an
// echo when none is queued, or a 401 when the key is wrong.
func (s *Server) take(rec Recorded, gotKey string) Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, rec)
	if s.requireKey != "" && gotKey != s.requireKey {
		return Reply{Status: http.StatusUnauthorized, ErrorMessage: "incorrect api key provided: " + gotKey}
	}
	if len(s.queue) == 0 {
		if s.respond != nil {
			if r, ok := s.respond(rec); ok {
				return r
			}
		}
		return Reply{Text: "echo: " + lastUserText(rec.Messages) + imagesNote(lastUserImages(rec.Messages))}
	}
	r := s.queue[0]
	s.queue = s.queue[1:]
	return r
}

func lastUserText(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" && msgs[i].Text != "" {
			return msgs[i].Text
		}
	}
	return ""
}

// lastUserImages are the images of the last user message.
func lastUserImages(msgs []Message) []Image {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Images
		}
	}
	return nil
}

// readBody decodes a JSON request body into v and returns the raw bytes.
func readBody(w http.ResponseWriter, r *http.Request, v any) ([]byte, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err == nil {
		err = json.Unmarshal(body, v)
	}
	if err != nil {
		http.Error(w, "fakemodel: bad request body: "+err.Error(), http.StatusBadRequest)
		return nil, false
	}
	return body, true
}

// wait sleeps d unless the client goes away first; it reports whether the
// client is still there.
func wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return r.Context().Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return false
	case <-t.C:
		return true
	}
}

// sse writes server-sent events, flushing each and pausing between them.
type sse struct {
	w     http.ResponseWriter
	r     *http.Request
	delay time.Duration
	n     int
}

func startSSE(w http.ResponseWriter, r *http.Request, delay time.Duration) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &sse{w: w, r: r, delay: delay}
}

// send writes one event (no "event:" line when name is empty) with v as
// JSON data, or as is when v is a string. It reports whether the client
// is still there.
func (s *sse) send(name string, v any) bool {
	if s.n > 0 && !wait(s.r, s.delay) {
		return false
	}
	s.n++
	data, ok := v.(string)
	if !ok {
		b, _ := json.Marshal(v)
		data = string(b)
	}
	var b strings.Builder
	if name != "" {
		b.WriteString("event: " + name + "\n")
	}
	b.WriteString("data: " + data + "\n\n")
	if _, err := io.WriteString(s.w, b.String()); err != nil {
		return false
	}
	_ = http.NewResponseController(s.w).Flush()
	return true
}

// drop ends the response by closing the connection mid-body.
func (s *sse) drop() {
	_ = http.NewResponseController(s.w).Flush()
	panic(http.ErrAbortHandler)
}

// writeJSON answers with a JSON body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// pieces splits text after each space, so deltas join back to text.
func pieces(text string) []string {
	if text == "" {
		return nil
	}
	return strings.SplitAfter(text, " ")
}

// thirds splits s in up to three pieces, on rune boundaries.
func thirds(s string) []string {
	r := []rune(s)
	if len(r) < 3 {
		return []string{s}
	}
	a, b := len(r)/3, 2*len(r)/3
	return []string{string(r[:a]), string(r[a:b]), string(r[b:])}
}

// usage fills in what a reply leaves to estimate.
func (rp Reply) usage(rec Recorded) Usage {
	u := rp.Usage
	if u.InputTokens == 0 {
		n := len(rec.System)
		for _, m := range rec.Messages {
			n += len(m.Text)
		}
		u.InputTokens = int64(n/4 + 1)
	}
	if u.OutputTokens == 0 {
		n := len(rp.Text)
		for _, c := range rp.ToolCalls {
			n += len(c.Arguments)
		}
		u.OutputTokens = int64(n/4 + 1)
	}
	return u
}

// half is the part of an answer sent before a failure: at least one piece.
func half(ps []string) []string {
	return ps[:(len(ps)+1)/2]
}
