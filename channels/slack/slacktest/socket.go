package slacktest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// envelope is one Socket Mode request waiting for its ack.
type envelope struct {
	id      string
	kind    string
	payload json.RawMessage
	acked   bool
	sends   int
	sentOn  map[int]bool // connection numbers it was sent on
}

// wsConn is one Socket Mode connection.
type wsConn struct {
	n      int
	conn   *websocket.Conn
	wmu    sync.Mutex // serialises text frames
	silent bool       // guarded by Server.mu: sends and pings stop
	done   chan struct{}
	once   sync.Once
}

func (c *wsConn) close() {
	c.once.Do(func() {
		close(c.done)
		_ = c.conn.Close()
	})
}

func (c *wsConn) write(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.conn.WriteMessage(websocket.TextMessage, data)
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// SetPingInterval sets how often the socket pings the client (default
// 20ms, so that a client's short ping timeout sees a healthy socket).
// It applies to connections opened afterwards.
func (s *Server) SetPingInterval(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pingEvery = d
}

func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	s.mu.Lock()
	c := &wsConn{n: len(s.conns) + 1, conn: conn, done: make(chan struct{})}
	s.conns = append(s.conns, c)
	if s.current != nil {
		// Slack keeps up to ten connections; the fake sends to the newest.
		s.current.silent = true
	}
	s.current = c
	every := s.pingEvery
	s.notifyLocked()
	s.mu.Unlock()

	hello, _ := json.Marshal(map[string]any{
		"type": "hello", "num_connections": 1,
		"connection_info": map[string]any{"app_id": AppID},
		"debug_info":      map[string]any{"host": "slacktest", "approximate_connection_time": 3600},
	})
	if c.write(hello) != nil {
		c.close()
		return
	}
	s.redeliver(c)
	go s.pinger(c, every)
	s.reader(c)
}

// redeliver sends c every envelope not yet acknowledged, in order.
func (s *Server) redeliver(c *wsConn) {
	s.mu.Lock()
	var out []*envelope
	for _, e := range s.envelopes {
		if !e.acked && !e.sentOn[c.n] {
			out = append(out, e)
		}
	}
	s.mu.Unlock()
	for _, e := range out {
		s.sendEnvelope(c, e)
	}
}

func (s *Server) sendEnvelope(c *wsConn, e *envelope) {
	s.mu.Lock()
	if c.silent || e.acked || e.sentOn[c.n] {
		s.mu.Unlock()
		return
	}
	e.sentOn[c.n] = true
	retry := e.sends
	e.sends++
	s.notifyLocked()
	s.mu.Unlock()
	frame, _ := json.Marshal(map[string]any{
		"envelope_id": e.id, "type": e.kind, "payload": e.payload,
		"accepts_response_payload": e.kind != "events_api", "retry_attempt": retry, "retry_reason": retryReason(retry),
	})
	_ = c.write(frame)
}

func retryReason(n int) string {
	if n == 0 {
		return ""
	}
	return "timeout"
}

func (s *Server) pinger(c *wsConn, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		s.mu.Lock()
		silent := c.silent
		s.mu.Unlock()
		if silent {
			continue
		}
		if err := c.conn.WriteControl(websocket.PingMessage, []byte("ping"), time.Now().Add(time.Second)); err != nil {
			c.close()
			return
		}
	}
}

// reader records acks until the connection ends.
func (s *Server) reader(c *wsConn) {
	defer func() {
		c.close()
		s.mu.Lock()
		if s.current == c {
			s.current = nil
		}
		s.notifyLocked()
		s.mu.Unlock()
	}()
	for {
		_, data, err := c.conn.ReadMessage()
		if err != nil {
			return
		}
		var ack struct {
			EnvelopeID string `json:"envelope_id"`
		}
		if json.Unmarshal(data, &ack) != nil || ack.EnvelopeID == "" {
			continue
		}
		s.mu.Lock()
		for _, e := range s.envelopes {
			if e.id == ack.EnvelopeID {
				e.acked = true
			}
		}
		s.notifyLocked()
		s.mu.Unlock()
	}
}

// Push queues a Socket Mode request of kind (events_api, slash_commands,
// interactive) with payload and sends it on the current connection, if
// any. It returns the envelope id. Until the client acknowledges it, it
// is sent again on every new connection.
func (s *Server) Push(kind string, payload []byte) string {
	s.mu.Lock()
	s.nextID++
	e := &envelope{id: fmt.Sprintf("env-%d", s.nextID), kind: kind, payload: json.RawMessage(payload), sentOn: map[int]bool{}}
	s.envelopes = append(s.envelopes, e)
	c := s.current
	s.notifyLocked()
	s.mu.Unlock()
	if c != nil {
		s.sendEnvelope(c, e)
	}
	return e.id
}

// Acked reports whether the client acknowledged envelope id.
func (s *Server) Acked(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.envelopes {
		if e.id == id {
			return e.acked
		}
	}
	return false
}

// AckedIDs returns the ids of the acknowledged envelopes, in push order.
func (s *Server) AckedIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.envelopes {
		if e.acked {
			out = append(out, e.id)
		}
	}
	return out
}

// Deliveries returns how often envelope id was sent.
func (s *Server) Deliveries(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.envelopes {
		if e.id == id {
			return e.sends
		}
	}
	return 0
}

// WaitAcked waits until every one of ids was acknowledged.
func (s *Server) WaitAcked(d time.Duration, ids ...string) {
	s.t.Helper()
	s.waitFor(d, fmt.Sprintf("acks of %v", ids), func() bool {
		for _, e := range s.envelopes {
			if slices.Contains(ids, e.id) && !e.acked {
				return false
			}
		}
		return true
	})
}

// Connections returns how many Socket Mode connections were opened.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// WaitConnections waits until at least n connections were opened and the
// newest is live.
func (s *Server) WaitConnections(n int, d time.Duration) {
	s.t.Helper()
	s.waitFor(d, fmt.Sprintf("%d socket connections", n), func() bool {
		return len(s.conns) >= n && s.current != nil
	})
}

// DropSocket closes the current connection without a close frame, as a
// network failure would.
func (s *Server) DropSocket() {
	s.mu.Lock()
	c := s.current
	s.mu.Unlock()
	if c != nil {
		c.close()
	}
}

// Silence makes the current connection stop pinging and sending while
// staying open: a socket that died without the TCP connection noticing.
func (s *Server) Silence() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current != nil {
		s.current.silent = true
		s.notifyLocked()
	}
}

// Disconnect sends Slack's disconnect request (reason e.g.
// "refresh_requested" or "warning") on the current connection.
func (s *Server) Disconnect(reason string) {
	frame, _ := json.Marshal(map[string]any{"type": "disconnect", "reason": reason,
		"debug_info": map[string]any{"host": "slacktest"}})
	s.SendRaw(frame)
}

// SendRaw sends data as one text frame on the current connection, e.g.
// malformed JSON.
func (s *Server) SendRaw(data []byte) {
	s.mu.Lock()
	c := s.current
	s.mu.Unlock()
	if c != nil {
		_ = c.write(data)
	}
}
