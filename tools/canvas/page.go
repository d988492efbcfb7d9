package canvas

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Prefix is where the gateway mounts the Host.
const Prefix = "/__openclaw__/canvas/"

// Limits of one session's canvas state.
const (
	// MaxMessages bounds what a session accumulates between resets; the
	// page replays all of it on every change.
	MaxMessages = 2000
	// maxSessions bounds how many sessions hold state at once.
	maxSessions = 1000
	// pollWait is how long a state request waits for a change; below
	// common proxy idle timeouts.
	pollWait = 25 * time.Second
)

// DefaultSession is the session a page shows when its URL names none.
const DefaultSession = "main"

//go:embed page/index.html page/canvas.js
var pageFS embed.FS

// ErrTooManyMessages is returned by Push when a session is full; the caller
// resets the canvas (a2ui_reset) and pushes again.
var ErrTooManyMessages = errors.New("canvas is full; reset it (a2ui_reset) before pushing more")

// State is a session's canvas: every message pushed since the last reset.
// Version grows on each push or reset, never going back, so a page can ask
// for "anything after N" across resets.
type State struct {
	Version  uint64    `json:"version"`
	Messages []Message `json:"messages"`
}

// UserAction is what a page reports when a Button is clicked.
type UserAction struct {
	SurfaceID   string          `json:"surfaceId"`
	ComponentID string          `json:"componentId"`
	Name        string          `json:"name"`
	Context     json.RawMessage `json:"context,omitempty"`
}

// Host serves the canvas page and keeps each session's A2UI state. Its
// methods are safe for concurrent use.
//
// Routes, relative to Prefix:
//
//	GET  ?session=S                   the page
//	GET  canvas.js                    its script
//	GET  state?session=S&after=N      state as JSON, waiting up to 25 s while Version == N
//	POST action?session=S             a UserAction from the page
type Host struct {
	// OnAction, when set before serving, receives button clicks. It runs
	// on the request's goroutine and should not block.
	OnAction func(session string, a UserAction)
	Log      *slog.Logger

	mu       sync.Mutex
	version  uint64 // shared by all sessions, so versions never repeat
	sessions map[string]*State
	changed  chan struct{} // closed and replaced on every change
}

// NewHost returns an empty Host.
func NewHost() *Host {
	return &Host{sessions: map[string]*State{}, changed: make(chan struct{})}
}

// Push appends messages to a session's canvas and returns the new version.
func (h *Host) Push(session string, msgs []Message) (uint64, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[session]
	if s == nil {
		if len(h.sessions) >= maxSessions {
			return 0, fmt.Errorf("canvas host holds %d sessions; reset some first", maxSessions)
		}
		s = &State{}
		h.sessions[session] = s
	}
	if len(s.Messages)+len(msgs) > MaxMessages {
		return 0, ErrTooManyMessages
	}
	s.Messages = append(s.Messages, msgs...)
	s.Version = h.bump()
	return s.Version, nil
}

// Reset clears a session's canvas and returns the new version. The session
// keeps a (now empty) entry so its version stays monotonic for open pages.
func (h *Host) Reset(session string) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[session]
	if s == nil {
		s = &State{}
		h.sessions[session] = s
	}
	s.Messages = nil
	s.Version = h.bump()
	return s.Version
}

// Forget drops a session's state, e.g. when the session ends.
func (h *Host) Forget(session string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.sessions[session]; ok {
		delete(h.sessions, session)
		h.bump()
	}
}

// State returns a copy of a session's canvas.
func (h *Host) State(session string) State {
	h.mu.Lock()
	defer h.mu.Unlock()
	st, _ := h.stateLocked(session)
	return st
}

func (h *Host) stateLocked(session string) (State, <-chan struct{}) {
	st := State{Messages: []Message{}}
	if s := h.sessions[session]; s != nil {
		st.Version = s.Version
		st.Messages = append(st.Messages, s.Messages...)
	}
	return st, h.changed
}

// bump must be called with mu held.
func (h *Host) bump() uint64 {
	h.version++
	close(h.changed)
	h.changed = make(chan struct{})
	return h.version
}

// PageURL is the page of session under base, the URL at which the Host is
// mounted (e.g. http://127.0.0.1:18789/__openclaw__/canvas/).
func PageURL(base, session string) string {
	return base + "?session=" + url.QueryEscape(session)
}

// ServeHTTP serves the routes listed on Host. It expects the full request
// path, Prefix included (mount it with mux.Handle(Prefix, host)).
func (h *Host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, Prefix)
	if !ok {
		if r.URL.Path+"/" == Prefix {
			http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
			return
		}
		http.NotFound(w, r)
		return
	}
	session := r.URL.Query().Get("session")
	if session == "" {
		session = DefaultSession
	}
	switch {
	case rest == "" || rest == "index.html":
		h.file(w, r, "page/index.html", "text/html; charset=utf-8")
	case rest == "canvas.js":
		h.file(w, r, "page/canvas.js", "text/javascript; charset=utf-8")
	case rest == "state":
		h.serveState(w, r, session)
	case rest == "action":
		h.serveAction(w, r, session)
	default:
		http.NotFound(w, r)
	}
}

func (h *Host) file(w http.ResponseWriter, r *http.Request, name, ctype string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	b, err := pageFS.ReadFile(name)
	if err != nil {
		http.Error(w, "missing page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// The page renders model-supplied content: scripts only from the host,
	// no inline script, images only local or inline, no framing elsewhere.
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; frame-ancestors 'self'")
	w.Write(b)
}

func (h *Host) serveState(w http.ResponseWriter, r *http.Request, session string) {
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var after uint64
	hasAfter := false
	if a := r.URL.Query().Get("after"); a != "" {
		n, err := strconv.ParseUint(a, 10, 64)
		if err != nil {
			http.Error(w, "after must be a version number", http.StatusBadRequest)
			return
		}
		after, hasAfter = n, true
	}
	timer := time.NewTimer(pollWait)
	defer timer.Stop()
	for {
		h.mu.Lock()
		st, changed := h.stateLocked(session)
		h.mu.Unlock()
		if !hasAfter || st.Version != after {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			json.NewEncoder(w).Encode(st)
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			hasAfter = false // answer with the unchanged state
		case <-r.Context().Done():
			return
		}
	}
}

func (h *Host) serveAction(w http.ResponseWriter, r *http.Request, session string) {
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var a UserAction
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&a); err != nil {
		http.Error(w, "bad action: "+err.Error(), http.StatusBadRequest)
		return
	}
	if h.Log != nil {
		h.Log.Debug("canvas action", "session", session, "surface", a.SurfaceID, "component", a.ComponentID, "name", a.Name)
	}
	if h.OnAction != nil {
		h.OnAction(session, a)
	}
	w.WriteHeader(http.StatusNoContent)
}
