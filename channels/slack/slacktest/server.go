// Package slacktest is a fake Slack for tests: the Web API methods the
// adapter uses (form or JSON in, {"ok":…} JSON out, the token checked from
// the Authorization header or the token field), the external file upload
// flow, response_url and url_private endpoints, and the Socket Mode
// WebSocket that apps.connections.open hands out. The socket sends hello,
// pings, and envelopes with envelope ids; it records which envelopes were
// acknowledged and, like Slack, redelivers the unacknowledged ones on the
// next connection. Faults can be injected: 429 with Retry-After, 500,
// malformed answers, Slack errors such as invalid_auth, a dropped socket,
// a socket that goes silent, disconnect messages and raw frames.
//
// A Server is safe for concurrent use. Waits are condition-based with a
// deadline and fail the test on timeout; call them from the test goroutine.
package slacktest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels/channelstest"
)

// The workspace and bot the fake answers auth.test with.
const (
	TeamID    = "T0TEAM"
	BotUserID = "U0BOT"
	BotID     = "B0BOT"
	BotName   = "openclaw"
	AppID     = "A0APP"
)

// Server is a fake Slack for one bot token and one app token.
type Server struct {
	t        testing.TB
	botToken string
	appToken string
	srv      *httptest.Server

	mu        sync.Mutex
	changed   channelstest.Changes // closed and replaced on every state change
	closed    chan struct{}
	revoked   bool
	calls     []Call
	messages  []Message
	uploads   map[string]*Upload
	uploaded  []Upload
	responses []Response
	files     map[string][]byte
	faults    map[string][]Fault
	nextTS    int64
	nextID    int64

	// Socket Mode.
	pingEvery time.Duration
	envelopes []*envelope
	conns     []*wsConn
	current   *wsConn
}

// Call is one Web API call as the fake received it.
type Call struct {
	Method string
	Params url.Values
	Token  string
}

// Message is one message the bot posted or updated.
type Message struct {
	Method   string // chat.postMessage or chat.update
	Channel  string
	TS       string
	ThreadTS string
	Text     string
	Blocks   string // raw JSON, "" when none
	Deleted  bool
}

// Upload is one file sent through the external upload flow.
type Upload struct {
	FileID   string
	Name     string
	Title    string
	Bytes    []byte
	Channel  string // set by files.completeUploadExternal
	ThreadTS string
	Done     bool
}

// Response is one post to a response_url.
type Response struct {
	Path string
	Body map[string]any
}

// New starts a fake for the two tokens and closes it when the test ends.
func New(t testing.TB, botToken, appToken string) *Server {
	t.Helper()
	s := &Server{
		t:         t,
		botToken:  botToken,
		appToken:  appToken,
		closed:    make(chan struct{}),
		uploads:   map[string]*Upload{},
		files:     map[string][]byte{},
		faults:    map[string][]Fault{},
		nextTS:    1700000000,
		pingEvery: 20 * time.Millisecond,
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", s.serveAPI)
	mux.HandleFunc("/socket", s.serveSocket)
	mux.HandleFunc("/upload/", s.serveUpload)
	mux.HandleFunc("/response/", s.serveResponse)
	mux.HandleFunc("/files/", s.serveFile)
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// URL is the server's root, e.g. http://127.0.0.1:1234.
func (s *Server) URL() string { return s.srv.URL }

// APIURL is the Web API base to configure the adapter with (APIURL).
func (s *Server) APIURL() string { return s.srv.URL + "/api/" }

// Close drops every socket and stops the server.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.closed:
		s.mu.Unlock()
		return
	default:
	}
	close(s.closed)
	conns := append([]*wsConn(nil), s.conns...)
	s.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// notifyLocked wakes every waiter. s.mu must be held.
func (s *Server) notifyLocked() {
	s.changed.Notify()
}

// RevokeTokens makes every later Web API call answer invalid_auth, as
// Slack does for a revoked or wrong token.
func (s *Server) RevokeTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.revoked = true
}

// Calls returns the Web API calls of method ("" for all), in order.
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

// Messages returns every message the bot posted (with edits applied), in
// order.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// Uploads returns the completed uploads, in order.
func (s *Server) Uploads() []Upload {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Upload(nil), s.uploaded...)
}

// Responses returns the posts to response URLs, in order.
func (s *Server) Responses() []Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Response(nil), s.responses...)
}

// ResponseURL returns a response_url the fake records posts to.
func (s *Server) ResponseURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	return fmt.Sprintf("%s/response/R%d", s.srv.URL, s.nextID)
}

// AddFile stores data as a private file and returns its url_private; a
// download needs the bot token as bearer.
func (s *Server) AddFile(name string, data []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	path := fmt.Sprintf("/files/F%d/%s", s.nextID, url.PathEscape(name))
	s.files[path] = data
	return s.srv.URL + path
}

// waitFor waits until cond (called with the server locked, so it must not
// call the Server) holds, failing the test after d.
func (s *Server) waitFor(d time.Duration, what string, cond func() bool) {
	s.t.Helper()
	channelstest.WaitFor(s.t, "slacktest", &s.mu, &s.changed, d, what, cond)
}

// WaitMessages waits until the bot posted at least n messages and returns
// them.
func (s *Server) WaitMessages(n int, d time.Duration) []Message {
	s.t.Helper()
	s.waitFor(d, fmt.Sprintf("%d posted messages", n), func() bool { return len(s.messages) >= n })
	return s.Messages()
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

func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	call, err := parseCall(r, method)
	if err != nil {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "invalid_form_data"})
		return
	}
	want := s.botToken
	if method == "apps.connections.open" {
		want = s.appToken
	}
	s.mu.Lock()
	s.calls = append(s.calls, call)
	revoked := s.revoked
	f, faulted := s.takeFaultLocked(method)
	s.notifyLocked()
	s.mu.Unlock()

	switch {
	case call.Token == "":
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "not_authed"})
		return
	case revoked || call.Token != want:
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "invalid_auth"})
		return
	}
	if faulted {
		f.apply(w)
		return
	}
	h, known := handlers[method]
	if !known {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "unknown_method"})
		return
	}
	h(s, w, call)
}

// parseCall reads parameters the way Slack accepts them: query string,
// form-encoded or JSON body; the token from Authorization or the form.
func parseCall(r *http.Request, method string) (Call, error) {
	c := Call{Method: method, Params: url.Values{}}
	for k, v := range r.URL.Query() {
		c.Params[k] = v
	}
	ct := r.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/json"):
		body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
		if err != nil {
			return c, err
		}
		if len(strings.TrimSpace(string(body))) > 0 {
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				return c, err
			}
			for k, v := range m {
				if str, ok := v.(string); ok {
					c.Params.Set(k, str)
					continue
				}
				b, _ := json.Marshal(v)
				c.Params.Set(k, string(b))
			}
		}
	default:
		if err := r.ParseForm(); err != nil {
			return c, err
		}
		for k, v := range r.PostForm {
			c.Params[k] = v
		}
	}
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		c.Token = tok
	} else {
		c.Token = c.Params.Get("token")
	}
	c.Params.Del("token")
	return c, nil
}

func (s *Server) serveUpload(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/upload/")
	if r.Header.Get("Authorization") != "Bearer "+s.botToken {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	mr, err := r.MultipartReader()
	if err != nil {
		http.Error(w, "not multipart", http.StatusBadRequest)
		return
	}
	var data []byte
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			http.Error(w, "bad multipart", http.StatusBadRequest)
			return
		}
		if p.FormName() == "file" {
			data, err = io.ReadAll(io.LimitReader(p, 64<<20))
			if err != nil {
				http.Error(w, "read", http.StatusBadRequest)
				return
			}
		}
		_ = p.Close()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.uploads[id]
	if !ok {
		http.Error(w, "unknown upload", http.StatusNotFound)
		return
	}
	u.Bytes = data
	s.notifyLocked()
	_, _ = io.WriteString(w, "OK - "+fmt.Sprint(len(data)))
}

func (s *Server) serveResponse(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body); err != nil {
		http.Error(w, "invalid_payload", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.responses = append(s.responses, Response{Path: r.URL.Path, Body: body})
	s.notifyLocked()
	s.mu.Unlock()
	_, _ = io.WriteString(w, "ok")
}

func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+s.botToken {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	s.mu.Lock()
	data, ok := s.files[r.URL.EscapedPath()]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	_, _ = w.Write(data)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
