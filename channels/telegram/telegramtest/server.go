// Package telegramtest is a fake Telegram Bot API for tests. It serves the
// real wire format at <URL>/bot<token>/<method> (form-encoded, multipart
// and JSON bodies in; {"ok":...} JSON out), keeps a queue of updates with
// Telegram's offset semantics, records everything the bot sends and can
// inject faults (429, 500, hangs, malformed answers, 401).
//
// A Server is safe for concurrent use. Waits are condition-based with a
// deadline and fail the test on timeout; call them from the test goroutine.
package telegramtest

import (
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels/channelstest"
)

// The bot the fake answers getMe with.
const (
	BotID       int64 = 7000001
	BotUsername       = "openclaw_test_bot"
	BotName           = "OpenClaw Test"
)

// Server is a fake Bot API for one bot token.
type Server struct {
	t     testing.TB
	token string
	srv   *httptest.Server

	mu       sync.Mutex
	changed  channelstest.Changes // closed and replaced on every state change
	closed   chan struct{}
	release  chan struct{} // closed by Release to free hung calls
	revoked  bool
	updates  []pending
	nextUpd  int64
	nextMsg  int64
	sent     []Message
	edits    []Edit
	calls    []Call
	messages map[msgKey]int // index in sent of each message still in its chat
	faults   map[string][]Fault
	marker   string
	webhook  webhookState
	commands json.RawMessage
	files    map[string][]byte // file_id -> content, for getFile and downloads
}

type pending struct {
	id   int64
	body json.RawMessage
}

type msgKey struct {
	chat string
	id   int64
}

type webhookState struct {
	URL    string
	Secret string
}

// Call is one API call as the fake received it.
type Call struct {
	Method string
	Params url.Values
	Files  map[string]File
}

// File is an uploaded file of a multipart call.
type File struct {
	Name  string
	Bytes []byte
}

// Message is one message the bot sent (sendMessage, sendPhoto,
// sendDocument, sendPoll), as the chat shows it now: editMessageText
// changes its Text, ParseMode and ReplyMarkup in place (the original is
// in Edits), and deleteMessage marks it Deleted, as the real chat would.
type Message struct {
	Method      string
	ChatID      string
	MessageID   int64
	Text        string // text, caption or poll question
	ParseMode   string
	ReplyTo     int64
	ThreadID    int64
	ReplyMarkup string // raw JSON
	Silent      bool
	FileName    string
	FileBytes   []byte
	Edits       int  // accepted editMessageText calls
	Deleted     bool // removed by deleteMessage
}

// Edit is one accepted editMessageText: the message's text before and
// after.
type Edit struct {
	ChatID    string
	MessageID int64
	Old       string
	Text      string
	ParseMode string
}

// New starts a fake for token and closes it when the test ends.
func New(t testing.TB, token string) *Server {
	t.Helper()
	s := &Server{
		t:        t,
		token:    token,
		closed:   make(chan struct{}),
		release:  make(chan struct{}),
		nextUpd:  100,
		nextMsg:  5000,
		messages: map[msgKey]int{},
		faults:   map[string][]Fault{},
		files:    map[string][]byte{},
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// URL is the API root to configure the bot with (apiRoot).
func (s *Server) URL() string { return s.srv.URL }

// Close frees hung and long-polling calls and stops the server.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.closed:
		s.mu.Unlock()
		return
	default:
	}
	close(s.closed)
	s.mu.Unlock()
	s.srv.Close()
}

// notifyLocked wakes every waiter. s.mu must be held.
func (s *Server) notifyLocked() {
	s.changed.Notify()
}

// RevokeToken makes every later call answer 401 Unauthorized, as Telegram
// does for a revoked token.
func (s *Server) RevokeToken() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.revoked = true
}

// RejectHTMLContaining makes sendMessage, editMessageText and captions with
// parse_mode HTML whose text contains marker fail with Telegram's
// "can't parse entities" 400.
func (s *Server) RejectHTMLContaining(marker string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.marker = marker
}

// Sent returns a copy of every message the bot sent, in the order sent,
// each with its current text (edits applied); deleted ones are kept and
// marked Deleted.
func (s *Server) Sent() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.sent...)
}

// Shown returns the messages still in their chats (Sent without the
// deleted ones): what a person reading the chat sees.
func (s *Server) Shown() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.sent {
		if !m.Deleted {
			out = append(out, m)
		}
	}
	return out
}

// Edits returns every accepted editMessageText, in order.
func (s *Server) Edits() []Edit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Edit(nil), s.edits...)
}

// Calls returns the calls of method ("" for all), in order.
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.callsLocked(method)
}

func (s *Server) callsLocked(method string) []Call {
	var out []Call
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// Pending returns the ids of updates not yet confirmed by an offset.
func (s *Server) Pending() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]int64, len(s.updates))
	for i, u := range s.updates {
		ids[i] = u.id
	}
	return ids
}

// Webhook returns the URL and secret of the current webhook ("" if none).
func (s *Server) Webhook() (url, secret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.webhook.URL, s.webhook.Secret
}

// WaitWebhook waits until a webhook is registered and returns it. Waiting
// on the setWebhook call is not enough: a call is recorded before its
// handler stores the URL.
func (s *Server) WaitWebhook(d time.Duration) (url, secret string) {
	s.t.Helper()
	s.waitFor(d, "a registered webhook", func() bool { return s.webhook.URL != "" })
	return s.Webhook()
}

// Commands returns the raw JSON of the last setMyCommands.
func (s *Server) Commands() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commands
}

// WaitFor waits until cond (called with the server locked, so it must not
// call the Server) holds, failing the test after d.
func (s *Server) waitFor(d time.Duration, what string, cond func() bool) {
	s.t.Helper()
	channelstest.WaitFor(s.t, "telegramtest", &s.mu, &s.changed, d, what, cond)
}

// WaitSent waits until the bot sent at least n messages and returns them.
func (s *Server) WaitSent(n int, d time.Duration) []Message {
	s.t.Helper()
	s.waitFor(d, fmt.Sprintf("%d sent messages", n), func() bool { return len(s.sent) >= n })
	return s.Sent()
}

// WaitEdits waits until n edits were applied and returns the messages
// as they are then (a recorded call may not have been applied yet).
func (s *Server) WaitEdits(n int, d time.Duration) []Message {
	s.t.Helper()
	s.waitFor(d, fmt.Sprintf("%d applied edits", n), func() bool { return len(s.edits) >= n })
	return s.Sent()
}

// WaitCalls waits until method was called at least n times and returns
// its calls.
func (s *Server) WaitCalls(method string, n int, d time.Duration) []Call {
	s.t.Helper()
	s.waitFor(d, fmt.Sprintf("%d calls of %s", n, method), func() bool {
		return len(s.callsLocked(method)) >= n
	})
	return s.Calls(method)
}

// WaitConfirmed waits until update id was confirmed (dropped by an offset
// past it).
func (s *Server) WaitConfirmed(id int64, d time.Duration) {
	s.t.Helper()
	s.waitFor(d, fmt.Sprintf("update %d confirmed", id), func() bool {
		for _, u := range s.updates {
			if u.id == id {
				return false
			}
		}
		return true
	})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"); ok {
		s.download(w, rest)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot")
	token, method, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || method == "" {
		writeError(w, http.StatusNotFound, "Not Found", 0)
		return
	}
	call, err := parseCall(r, method)
	if err != nil {
		writeError(w, http.StatusBadRequest, "Bad Request: "+err.Error(), 0)
		return
	}
	s.mu.Lock()
	s.calls = append(s.calls, call)
	if token != s.token || s.revoked {
		s.notifyLocked()
		s.mu.Unlock()
		writeError(w, http.StatusUnauthorized, "Unauthorized", 0)
		return
	}
	f, faulted := s.takeFaultLocked(method)
	release := s.release
	s.notifyLocked()
	s.mu.Unlock()

	if faulted {
		if f.apply(w, r, release, s.closed) {
			return
		}
	}
	h, known := handlers[method]
	if !known {
		writeError(w, http.StatusNotFound, "Not Found", 0)
		return
	}
	h(s, w, r, call)
}

// parseCall reads the parameters the way Telegram accepts them: query
// string, form-encoded, multipart or JSON body.
func parseCall(r *http.Request, method string) (Call, error) {
	c := Call{Method: method, Params: url.Values{}}
	for k, v := range r.URL.Query() {
		c.Params[k] = v
	}
	ct := r.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "multipart/form-data"):
		if err := r.ParseMultipartForm(64 << 20); err != nil {
			return c, fmt.Errorf("multipart: %v", err)
		}
		for k, v := range r.MultipartForm.Value {
			c.Params[k] = v
		}
		c.Files = map[string]File{}
		for field, fhs := range r.MultipartForm.File {
			if len(fhs) == 0 {
				continue
			}
			b, err := readPart(fhs[0])
			if err != nil {
				return c, err
			}
			c.Files[field] = File{Name: fhs[0].Filename, Bytes: b}
		}
	case strings.HasPrefix(ct, "application/json"):
		var m map[string]any
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			return c, fmt.Errorf("json: %v", err)
		}
		for k, v := range m {
			if s, ok := v.(string); ok {
				c.Params.Set(k, s)
				continue
			}
			b, _ := json.Marshal(v)
			c.Params.Set(k, string(b))
		}
	default:
		if err := r.ParseForm(); err != nil {
			return c, err
		}
		for k, v := range r.PostForm {
			c.Params[k] = v
		}
	}
	return c, nil
}

func readPart(fh *multipart.FileHeader) ([]byte, error) {
	f, err := fh.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func writeResult(w http.ResponseWriter, result any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result})
}

func writeError(w http.ResponseWriter, code int, desc string, retryAfter int) {
	body := map[string]any{"ok": false, "error_code": code, "description": desc}
	if retryAfter > 0 {
		body["parameters"] = map[string]any{"retry_after": retryAfter}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(body)
}

func paramInt(v url.Values, key string) int64 {
	n, _ := strconv.ParseInt(v.Get(key), 10, 64)
	return n
}

// download serves <root>/file/bot<token>/<file_path> as Telegram does.
func (s *Server) download(w http.ResponseWriter, rest string) {
	token, filePath, _ := strings.Cut(rest, "/")
	s.mu.Lock()
	ok := token == s.token && !s.revoked
	data, found := s.files[strings.TrimPrefix(filePath, "files/")]
	s.mu.Unlock()
	if !ok || !found {
		http.NotFound(w, nil)
		return
	}
	w.Write(data)
}

// AddFile makes content downloadable as file id (AddDocument does this
// for its document).
func (s *Server) AddFile(id string, content []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[id] = content
}
