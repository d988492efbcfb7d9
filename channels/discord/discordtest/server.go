// Package discordtest is a fake Discord for tests: the REST endpoints the
// adapter uses (httptest, Discord's JSON and multipart bodies, its error
// shapes) and a gateway WebSocket speaking Discord's protocol (HELLO,
// IDENTIFY → READY, HEARTBEAT → ACK, RESUME → replay and RESUMED,
// dispatches injected by the test). It records everything the bot does
// and injects faults: 429 with retry_after, 500, malformed answers,
// dropped and silent sockets, malformed frames and a revoked token
// (close 4004 and REST 401).
//
// A Server is safe for concurrent use. Waits are condition-based with a
// deadline and fail the test on timeout; call them from the test
// goroutine.
package discordtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels/channelstest"
)

// The bot the fake is.
const (
	BotID       = "900000000000000001"
	BotUsername = "openclaw-test"
	AppID       = "900000000000000002"
)

// Server is a fake Discord for one bot token.
type Server struct {
	t     testing.TB
	token string
	srv   *httptest.Server

	mu        sync.Mutex
	changed   channelstest.Changes // closed and replaced on every change
	revoked   bool
	interval  time.Duration
	nextID    int64
	calls     []Call
	sent      []Message
	edits     []Message
	faults    map[string][]Fault
	acked     map[string]bool // interaction ids acknowledged
	callbacks []Callback
	commands  json.RawMessage
	channels  map[string]map[string]any
	files     map[string][]byte
	voice     map[string]string // user id -> voice channel id
	emojis    []map[string]any
	events    []map[string]any
	stickers  []File
	gw        gateway
}

// Call is one REST call as the fake received it.
type Call struct {
	Route  string // e.g. "send", "edit", "react" (see Fail)
	Method string
	Path   string // below /api/v9
	Query  string // the raw query string
	Reason string // the X-Audit-Log-Reason header
	Body   []byte // JSON body, or payload_json of a multipart body
}

// File is an uploaded file.
type File struct {
	Form  string // the multipart field's name
	Name  string
	Bytes []byte
}

// Message is a message the bot sent or edited.
type Message struct {
	ID              string
	ChannelID       string
	Content         string
	ReplyTo         string
	Flags           int
	Components      json.RawMessage
	AllowedMentions json.RawMessage
	Poll            json.RawMessage
	Files           []File
	// Attachments is the attachment metadata of payload_json (a voice
	// message's duration and waveform).
	Attachments []Attachment
	StickerIDs  []string
}

// Attachment is one entry of a message's attachments metadata.
type Attachment struct {
	ID           json.Number `json:"id"`
	Filename     string      `json:"filename"`
	DurationSecs float64     `json:"duration_secs"`
	Waveform     string      `json:"waveform"`
}

// voiceMessageFlag is IS_VOICE_MESSAGE.
const voiceMessageFlag = 1 << 13

// Callback is an interaction response or follow-up.
type Callback struct {
	InteractionID string // "" for a follow-up
	Token         string
	Type          int
	Content       string
	Flags         int
}

// New starts a fake for token and closes it when the test ends.
func New(t testing.TB, token string) *Server {
	t.Helper()
	s := &Server{
		t:        t,
		token:    token,
		interval: 45 * time.Second,
		nextID:   1300000000000000000,
		faults:   map[string][]Fault{},
		acked:    map[string]bool{},
		channels: map[string]map[string]any{},
		files:    map[string][]byte{},
	}
	s.gw.init()
	mux := http.NewServeMux()
	mux.HandleFunc("/gateway", s.serveGateway)
	mux.HandleFunc("/gateway/", s.serveGateway) // discordgo adds a slash to gateway/bot's url
	mux.HandleFunc("/attachments/", s.serveAttachment)
	mux.HandleFunc("/api/v9/", s.serveREST)
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// URL is the REST base to configure the adapter with (APIBase).
func (s *Server) URL() string { return s.srv.URL + "/" }

// GatewayURL is the gateway WebSocket URL (also the answer of
// gateway/bot and READY's resume_gateway_url).
func (s *Server) GatewayURL() string {
	return "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/gateway"
}

// Close drops every gateway connection and stops the server.
func (s *Server) Close() {
	s.gw.dropAll()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// SetHeartbeatInterval sets the interval HELLO announces to later
// connections (default 45s).
func (s *Server) SetHeartbeatInterval(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.interval = d
}

// RevokeToken makes REST calls answer 401 and the gateway close with 4004
// on IDENTIFY and RESUME, as Discord does for a reset token.
func (s *Server) RevokeToken() {
	s.mu.Lock()
	s.revoked = true
	s.notifyLocked()
	s.mu.Unlock()
}

// AddChannel makes GET channels/{id} answer ch (it gets "id" set).
func (s *Server) AddChannel(id string, ch map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch["id"] = id
	s.channels[id] = ch
}

// AddAttachment serves data at the URL it returns, as Discord's CDN would.
func (s *Server) AddAttachment(name string, data []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[name] = data
	return s.srv.URL + "/attachments/" + name
}

// NewID returns a fresh snowflake-shaped id.
func (s *Server) NewID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.newIDLocked()
}

func (s *Server) newIDLocked() string {
	s.nextID++
	return strconv.FormatInt(s.nextID, 10)
}

func (s *Server) notifyLocked() {
	s.changed.Notify()
}

// Sent returns the messages the bot sent, in order.
func (s *Server) Sent() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.sent...)
}

// Edits returns the edits the bot made, in order.
func (s *Server) Edits() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.edits...)
}

// Callbacks returns the interaction responses and follow-ups, in order.
func (s *Server) Callbacks() []Callback {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Callback(nil), s.callbacks...)
}

// Commands returns the JSON of the last application command overwrite.
func (s *Server) Commands() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commands
}

// Calls returns the calls of route ("" for all), in order.
func (s *Server) Calls(route string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.callsLocked(route)
}

func (s *Server) callsLocked(route string) []Call {
	var out []Call
	for _, c := range s.calls {
		if route == "" || c.Route == route {
			out = append(out, c)
		}
	}
	return out
}

// waitFor waits until cond (called with the server locked) holds,
// failing the test after d.
func (s *Server) waitFor(d time.Duration, what string, cond func() bool) {
	s.t.Helper()
	channelstest.WaitFor(s.t, "discordtest", &s.mu, &s.changed, d, what, cond)
}

// WaitSent waits until the bot sent at least n messages and returns them.
func (s *Server) WaitSent(n int, d time.Duration) []Message {
	s.t.Helper()
	s.waitFor(d, fmt.Sprintf("%d sent messages", n), func() bool { return len(s.sent) >= n })
	return s.Sent()
}

// WaitCalls waits until route was called at least n times.
func (s *Server) WaitCalls(route string, n int, d time.Duration) []Call {
	s.t.Helper()
	s.waitFor(d, fmt.Sprintf("%d calls of %s", n, route), func() bool { return len(s.callsLocked(route)) >= n })
	return s.Calls(route)
}

// WaitCallbacks waits until at least n interaction responses arrived.
func (s *Server) WaitCallbacks(n int, d time.Duration) []Callback {
	s.t.Helper()
	s.waitFor(d, fmt.Sprintf("%d interaction callbacks", n), func() bool { return len(s.callbacks) >= n })
	return s.Callbacks()
}
