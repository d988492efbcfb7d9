package discordtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// gateway is the fake's gateway state: one session, its event log (for
// resume replay) and the live connections.
type gateway struct {
	mu          sync.Mutex
	seq         int64
	sessionID   string
	log         []event
	conns       map[*gwConn]bool
	identifies  int
	resumes     int
	connections int
	intents     int
	presence    json.RawMessage // of the last IDENTIFY
}

type event struct {
	seq int64
	t   string
	d   json.RawMessage
}

type gwConn struct {
	ws     *websocket.Conn
	wmu    sync.Mutex
	live   bool // identified or resumed, and not silenced
	silent bool
}

func (g *gateway) init() { g.conns = map[*gwConn]bool{} }

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

func (c *gwConn) send(v any) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.ws.WriteJSON(v)
}

func (c *gwConn) sendRaw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.ws.WriteMessage(websocket.TextMessage, b)
}

func (c *gwConn) closeWith(code int, text string) {
	c.wmu.Lock()
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(time.Second))
	c.wmu.Unlock()
	c.ws.Close()
}

func (s *Server) serveGateway(w http.ResponseWriter, r *http.Request) {
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := &gwConn{ws: ws}
	g := &s.gw
	g.mu.Lock()
	g.conns[c] = true
	g.connections++
	g.mu.Unlock()
	s.mu.Lock()
	interval := s.interval
	s.notifyLocked()
	s.mu.Unlock()
	defer func() {
		g.mu.Lock()
		delete(g.conns, c)
		g.mu.Unlock()
		ws.Close()
	}()
	if c.send(map[string]any{"op": 10, "d": map[string]any{"heartbeat_interval": interval.Milliseconds()}}) != nil {
		return
	}
	for {
		var f struct {
			Op int             `json:"op"`
			D  json.RawMessage `json:"d"`
		}
		if err := ws.ReadJSON(&f); err != nil {
			return
		}
		switch f.Op {
		case 1:
			g.mu.Lock()
			silent := c.silent
			g.mu.Unlock()
			if !silent {
				_ = c.send(map[string]any{"op": 11})
			}
		case 2:
			var id struct {
				Token    string          `json:"token"`
				Intents  int             `json:"intents"`
				Presence json.RawMessage `json:"presence"`
			}
			_ = json.Unmarshal(f.D, &id)
			if !s.tokenOK(id.Token) {
				c.closeWith(4004, "Authentication failed.")
				return
			}
			g.mu.Lock()
			g.identifies++
			g.intents = id.Intents
			g.presence = id.Presence
			g.sessionID = fmt.Sprintf("session-%d", g.identifies)
			g.log = nil
			g.seq++
			ready := map[string]any{"op": 0, "t": "READY", "s": g.seq, "d": map[string]any{
				"v": 9, "user": botUser(), "session_id": g.sessionID, "resume_gateway_url": s.GatewayURL(),
				"application": map[string]any{"id": AppID, "flags": 0}, "guilds": []any{},
			}}
			c.live = true
			err := c.send(ready)
			g.mu.Unlock()
			s.touch()
			if err != nil {
				return
			}
		case 6:
			var rs struct {
				Token     string `json:"token"`
				SessionID string `json:"session_id"`
				Seq       int64  `json:"seq"`
			}
			_ = json.Unmarshal(f.D, &rs)
			if !s.tokenOK(rs.Token) {
				c.closeWith(4004, "Authentication failed.")
				return
			}
			g.mu.Lock()
			if rs.SessionID == "" || rs.SessionID != g.sessionID {
				g.mu.Unlock()
				_ = c.send(map[string]any{"op": 9, "d": false})
				continue
			}
			g.resumes++
			var err error
			for _, e := range g.log {
				if e.seq > rs.Seq && err == nil {
					err = c.send(map[string]any{"op": 0, "t": e.t, "s": e.seq, "d": e.d})
				}
			}
			g.seq++
			if err == nil {
				err = c.send(map[string]any{"op": 0, "t": "RESUMED", "s": g.seq, "d": map[string]any{}})
			}
			c.live = true
			g.mu.Unlock()
			s.touch()
			if err != nil {
				return
			}
		}
	}
}

func (s *Server) tokenOK(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return token == s.token && !s.revoked
}

func (s *Server) touch() {
	s.mu.Lock()
	s.notifyLocked()
	s.mu.Unlock()
}

// Dispatch sends event t with data d (anything JSON-encodable) to every
// live connection and logs it for resume replay. It returns the event's
// sequence number.
func (s *Server) Dispatch(t string, d any) int64 {
	raw, err := json.Marshal(d)
	if err != nil {
		s.t.Fatalf("discordtest: dispatch %s: %v", t, err)
	}
	g := &s.gw
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seq++
	g.log = append(g.log, event{seq: g.seq, t: t, d: raw})
	for c := range g.conns {
		if c.live && !c.silent {
			_ = c.send(map[string]any{"op": 0, "t": t, "s": g.seq, "d": json.RawMessage(raw)})
		}
	}
	return g.seq
}

// SendRaw writes raw bytes as one text frame to every live connection:
// malformed payloads.
func (s *Server) SendRaw(raw []byte) {
	g := &s.gw
	g.mu.Lock()
	defer g.mu.Unlock()
	for c := range g.conns {
		if c.live && !c.silent {
			_ = c.sendRaw(raw)
		}
	}
}

// DropConnections closes every gateway socket without a close frame, as
// a network failure would.
func (s *Server) DropConnections() { s.gw.dropAll() }

func (g *gateway) dropAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for c := range g.conns {
		c.ws.Close()
		c.live = false
	}
}

// GoSilent makes every current connection stop sending anything (no
// heartbeat ACKs, no events) while staying open; later connections are
// normal. Events dispatched meanwhile are replayed on resume.
func (s *Server) GoSilent() {
	g := &s.gw
	g.mu.Lock()
	defer g.mu.Unlock()
	for c := range g.conns {
		c.silent = true
	}
}

// CloseWith closes every gateway connection with code, e.g. 4000 or 4004.
func (s *Server) CloseWith(code int) {
	g := &s.gw
	g.mu.Lock()
	defer g.mu.Unlock()
	for c := range g.conns {
		c.closeWith(code, "closed by test")
		c.live = false
	}
}

// GatewayStats counts IDENTIFYs, RESUMEs and WebSocket connections
// (Live: identified or resumed and not silenced), with the intents of the
// last IDENTIFY.
type GatewayStats struct{ Identifies, Resumes, Connections, Live, Intents int }

// IdentifyPresence is the presence the last IDENTIFY carried (nil for
// none).
func (s *Server) IdentifyPresence() json.RawMessage {
	g := &s.gw
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.presence
}

// Stats returns the gateway counters.
func (s *Server) Stats() GatewayStats {
	g := &s.gw
	g.mu.Lock()
	defer g.mu.Unlock()
	live := 0
	for c := range g.conns {
		if c.live && !c.silent {
			live++
		}
	}
	return GatewayStats{Identifies: g.identifies, Resumes: g.resumes, Connections: g.connections, Live: live, Intents: g.intents}
}

// WaitLive waits until a connection is identified or resumed and not
// silenced, with at least identifies IDENTIFYs and resumes RESUMEs.
func (s *Server) WaitLive(identifies, resumes int, d time.Duration) GatewayStats {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		st := s.Stats()
		if st.Live > 0 && st.Identifies >= identifies && st.Resumes >= resumes {
			return st
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("discordtest: timed out after %s waiting for a live gateway connection (%d identifies, %d resumes); have %+v", d, identifies, resumes, st)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
