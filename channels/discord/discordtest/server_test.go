package discordtest

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

const token = "fake-token"

type frame struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
	S  int64           `json:"s"`
	T  string          `json:"t"`
}

func dial(t *testing.T, s *Server) *websocket.Conn {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(s.GatewayURL()+"?v=9&encoding=json", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	return ws
}

func read(t *testing.T, ws *websocket.Conn) frame {
	t.Helper()
	var f frame
	if err := ws.ReadJSON(&f); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestGatewayProtocol(t *testing.T) {
	s := New(t, token)
	s.SetHeartbeatInterval(time.Second)
	ws := dial(t, s)
	if f := read(t, ws); f.Op != 10 || !strings.Contains(string(f.D), `"heartbeat_interval":1000`) {
		t.Fatalf("first frame %+v, want HELLO", f)
	}
	_ = ws.WriteJSON(map[string]any{"op": 2, "d": map[string]any{"token": token, "intents": 1}})
	ready := read(t, ws)
	var r struct {
		SessionID string `json:"session_id"`
		ResumeURL string `json:"resume_gateway_url"`
	}
	_ = json.Unmarshal(ready.D, &r)
	if ready.T != "READY" || r.SessionID == "" || r.ResumeURL != s.GatewayURL() {
		t.Fatalf("READY %+v", ready)
	}
	_ = ws.WriteJSON(map[string]any{"op": 1, "d": ready.S})
	if f := read(t, ws); f.Op != 11 {
		t.Fatalf("got op %d, want HEARTBEAT_ACK", f.Op)
	}
	seq := s.Dispatch("MESSAGE_CREATE", map[string]any{"id": "1"})
	if f := read(t, ws); f.T != "MESSAGE_CREATE" || f.S != seq {
		t.Fatalf("dispatch %+v", f)
	}
	s.Dispatch("MESSAGE_CREATE", map[string]any{"id": "2"})
	read(t, ws)

	// Resume after seq: the second event is replayed, then RESUMED.
	ws2 := dial(t, s)
	read(t, ws2)
	_ = ws2.WriteJSON(map[string]any{"op": 6, "d": map[string]any{"token": token, "session_id": r.SessionID, "seq": seq}})
	if f := read(t, ws2); f.T != "MESSAGE_CREATE" || !strings.Contains(string(f.D), `"2"`) {
		t.Fatalf("replay %+v", f)
	}
	if f := read(t, ws2); f.T != "RESUMED" {
		t.Fatalf("got %+v, want RESUMED", f)
	}
	// An unknown session is invalid.
	ws3 := dial(t, s)
	read(t, ws3)
	_ = ws3.WriteJSON(map[string]any{"op": 6, "d": map[string]any{"token": token, "session_id": "nope", "seq": 1}})
	if f := read(t, ws3); f.Op != 9 || string(f.D) != "false" {
		t.Fatalf("got %+v, want INVALID_SESSION false", f)
	}
	if st := s.Stats(); st.Identifies != 1 || st.Resumes != 1 || st.Connections != 3 {
		t.Errorf("stats %+v", st)
	}
}

func TestGatewayBadToken(t *testing.T) {
	s := New(t, token)
	ws := dial(t, s)
	read(t, ws)
	_ = ws.WriteJSON(map[string]any{"op": 2, "d": map[string]any{"token": "wrong"}})
	_, _, err := ws.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != 4004 {
		t.Fatalf("err = %v, want close 4004", err)
	}
}

func TestRESTFaults(t *testing.T) {
	s := New(t, token)
	s.Fail("send", 1, TooManyRequests(2.5))
	req, _ := http.NewRequest("POST", s.URL()+"api/v9/channels/1/messages", strings.NewReader(`{"content":"x"}`))
	req.Header.Set("Authorization", "Bot "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		RetryAfter float64 `json:"retry_after"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != 429 || body.RetryAfter != 2.5 || resp.Header.Get("Retry-After") != "2.5" {
		t.Errorf("429 answer: %d %+v %q", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	req, _ = http.NewRequest("POST", s.URL()+"api/v9/channels/1/messages", strings.NewReader(`{"content":"x"}`))
	req.Header.Set("Authorization", "Bot "+token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || len(s.Sent()) != 1 {
		t.Errorf("after the fault: %d, %d sent", resp.StatusCode, len(s.Sent()))
	}
}
