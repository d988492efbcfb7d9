// Package clienttest is an in-process fake OpenClaw gateway for tests of
// the Go client and of everything built on it (the CLI, the node host).
// It speaks the real wire protocol over a real WebSocket: it sends
// connect.challenge, checks the connect request (protocol range, client id
// and mode, shared secret, device signature), answers hello-ok, and then
// serves the methods a test registers, concurrently and in any order.
//
// It is a fake, not the gateway: no scopes are enforced after connect, and
// every registered method is callable.
package clienttest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// Handler serves one method. It returns the response payload, or an error:
// a *protocol.Error is sent as is, anything else as UNAVAILABLE. Handlers
// run concurrently, each in its own goroutine; ctx ends when the
// connection closes.
type Handler func(ctx context.Context, call *Call) (any, error)

// Config sets up a Server. The zero value accepts any connect.
type Config struct {
	// Token and Password, when set, are the shared secrets connect must
	// carry; a wrong or missing one is refused as the real gateway does.
	Token    string
	Password string

	// NoChallenge makes the server send nothing on open.
	NoChallenge bool
	// Challenge, when set, replaces the connect.challenge payload.
	Challenge func(nonce string, ts int64) any

	// Reject, when set, may refuse a connect that passed the built-in
	// checks; the error is sent and the socket closed with 1008.
	Reject func(p protocol.ConnectParams) *protocol.Error
	// Hello, when set, may edit the hello-ok before it is sent.
	Hello func(p protocol.ConnectParams, h *protocol.HelloOk)
}

// Server is a running fake gateway. Create it with NewServer; it stops at
// the end of the test.
type Server struct {
	cfg  Config
	http *httptest.Server
	up   websocket.Upgrader

	mu       sync.Mutex
	handlers map[string]Handler
	conns    map[*Conn]struct{} // handshake done, still open
	all      map[*Conn]struct{} // every upgraded socket not yet finished
	wg       sync.WaitGroup     // serveHTTP goroutines past the upgrade
	connects []Connect
	requests []Request
	closed   bool
}

// Connect is one connect request as the server received it.
type Connect struct {
	Raw    json.RawMessage // the whole frame
	ID     string
	Params protocol.ConnectParams
	Nonce  string // of the challenge this socket got
	Ts     int64
}

// Request is one call as the server received it (connect excluded).
type Request struct {
	ID     string
	Method string
	Params json.RawMessage // nil when the frame had none
}

// NewServer starts a fake gateway and stops it when tb ends.
func NewServer(tb testing.TB, cfg Config) *Server {
	tb.Helper()
	s := &Server{
		cfg:      cfg,
		handlers: make(map[string]Handler),
		conns:    make(map[*Conn]struct{}),
		all:      make(map[*Conn]struct{}),
	}
	s.http = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	tb.Cleanup(s.Close)
	return s
}

// URL is the ws:// address of the server.
func (s *Server) URL() string { return "ws" + strings.TrimPrefix(s.http.URL, "http") }

// Handle registers h for method, replacing any earlier handler.
func (s *Server) Handle(method string, h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[method] = h
}

// Reply registers a handler that always answers payload.
func (s *Server) Reply(method string, payload any) {
	s.Handle(method, func(context.Context, *Call) (any, error) { return payload, nil })
}

// Fail registers a handler that always answers err.
func (s *Server) Fail(method string, err *protocol.Error) {
	s.Handle(method, func(context.Context, *Call) (any, error) { return nil, err })
}

// Echo is a handler that answers the call's params.
func Echo(_ context.Context, call *Call) (any, error) {
	if call.Params == nil {
		return map[string]any{}, nil
	}
	return call.Params, nil
}

// Connects returns the connect requests received so far.
func (s *Server) Connects() []Connect {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Connect(nil), s.connects...)
}

// LastConnect returns the latest connect request; ok is false if none.
func (s *Server) LastConnect() (Connect, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.connects) == 0 {
		return Connect{}, false
	}
	return s.connects[len(s.connects)-1], true
}

// Requests returns the calls received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Conns returns the connections that completed the handshake and are open.
func (s *Server) Conns() []*Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Conn, 0, len(s.conns))
	for c := range s.conns {
		out = append(out, c)
	}
	return out
}

// Broadcast sends an event to every connected client, each with its own
// seq counter.
func (s *Server) Broadcast(event string, payload any) {
	for _, c := range s.Conns() {
		_ = c.broadcast(event, payload)
	}
}

// Close disconnects every client and stops the server. It is safe to call
// more than once.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	conns := make([]*Conn, 0, len(s.all))
	for c := range s.all {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.ws.Close()
	}
	s.http.CloseClientConnections()
	s.http.Close()
	s.wg.Wait()
}

func (s *Server) handler(method string) Handler {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.handlers[method]
}

func (s *Server) methods() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.handlers))
	for m := range s.handlers {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

// adopt registers a freshly upgraded socket; it refuses after Close.
func (s *Server) adopt(c *Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.all[c] = struct{}{}
	s.wg.Add(1)
	return true
}

// release forgets a finished socket.
func (s *Server) release(c *Conn) {
	s.mu.Lock()
	delete(s.all, c)
	delete(s.conns, c)
	s.mu.Unlock()
	s.wg.Done()
}

// ready marks a connection as past the handshake.
func (s *Server) ready(c *Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.all[c]; ok {
		s.conns[c] = struct{}{}
	}
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	ws, err := s.up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := newConn(s, ws)
	if !s.adopt(c) {
		ws.Close()
		return
	}
	defer s.release(c)
	defer c.shutdown()
	if err := c.handshake(); err != nil {
		return
	}
	c.serve()
}

// errClosed ends a connection quietly.
var errClosed = errors.New("connection closed")
