package rpc

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

const testToken = "test-token-123"

type testGateway struct {
	srv  *Server
	http *httptest.Server
	url  string
	auth AuthConfig
}

func startTestServer(t testing.TB, mutate func(*Options, *AuthConfig)) *testGateway {
	t.Helper()
	g := &testGateway{auth: AuthConfig{Mode: "token", Token: testToken, RateLimit: RateLimitConfig{ExemptLoopback: true}}}
	opts := Options{Auth: func() AuthConfig { return g.auth }, TickInterval: time.Hour}
	if mutate != nil {
		mutate(&opts, &g.auth)
	}
	g.srv = NewServer(opts)
	g.srv.Handle("health", Route{Scope: protocol.ScopeNone, Inline: true, Handler: func(ctx context.Context, r *Request) (any, error) { return map[string]any{"ok": true}, nil }})
	g.srv.HandleFunc("status", func(ctx context.Context, r *Request) (any, error) { return map[string]any{"ok": true}, nil })
	g.srv.Start()
	g.http = httptest.NewServer(g.srv)
	g.url = "ws" + strings.TrimPrefix(g.http.URL, "http")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		g.srv.Shutdown(ctx, "test over", 0)
		g.http.Close()
	})
	return g
}

// dial opens a socket and returns it with the challenge it got.
func (g *testGateway) dial(t testing.TB, hdr http.Header) (*websocket.Conn, protocol.ChallengePayload) {
	t.Helper()
	ws, resp, err := websocket.DefaultDialer.Dial(g.url, hdr)
	if err != nil {
		if resp != nil {
			t.Fatalf("dial: %v (HTTP %d)", err, resp.StatusCode)
		}
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { ws.Close() })
	var ev struct {
		Type    string                    `json:"type"`
		Event   string                    `json:"event"`
		Payload protocol.ChallengePayload `json:"payload"`
		Seq     *uint64                   `json:"seq"`
	}
	readInto(t, ws, &ev)
	if ev.Type != "event" || ev.Event != "connect.challenge" || ev.Payload.Nonce == "" || ev.Payload.Ts == 0 || ev.Seq != nil {
		t.Fatalf("first frame is not a challenge without seq: %+v", ev)
	}
	return ws, ev.Payload
}

func readInto(t testing.TB, ws *websocket.Conn, v any) {
	t.Helper()
	ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, data, err := ws.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}

func send(t testing.TB, ws *websocket.Conn, v any) {
	t.Helper()
	if err := ws.WriteJSON(v); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// cliConnect is the connect frame the real CLI sends for `gateway call`.
func cliConnect(scopes ...string) map[string]any {
	return map[string]any{"type": "req", "id": "1:a", "method": "connect", "params": map[string]any{
		"minProtocol": 4, "maxProtocol": 4,
		"client": map[string]any{"id": "cli", "version": "2026.9.6", "platform": "linux", "deviceFamily": "Linux", "mode": "cli", "instanceId": "e8a08fae"},
		"caps":   []string{}, "auth": map[string]any{"token": testToken}, "role": "operator", "scopes": scopes,
	}}
}

type response struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	OK      bool            `json:"ok"`
	Payload json.RawMessage `json:"payload"`
	Error   *protocol.Error `json:"error"`
}

func (g *testGateway) connected(t testing.TB, scopes ...string) *websocket.Conn {
	t.Helper()
	ws, _ := g.dial(t, nil)
	send(t, ws, cliConnect(scopes...))
	var res response
	readInto(t, ws, &res)
	if !res.OK {
		t.Fatalf("connect failed: %+v", res.Error)
	}
	return ws
}

func call(t *testing.T, ws *websocket.Conn, id, method string, params any) response {
	t.Helper()
	send(t, ws, map[string]any{"type": "req", "id": id, "method": method, "params": params})
	for {
		var res response
		readInto(t, ws, &res)
		if res.Type == "res" && res.ID == id {
			return res
		}
	}
}

// closeCode reads until the server closes and returns the close code.
func closeCode(t *testing.T, ws *websocket.Conn) (int, string) {
	t.Helper()
	ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		_, _, err := ws.ReadMessage()
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if ok := asCloseError(err, &ce); ok {
			return ce.Code, ce.Text
		}
		t.Fatalf("connection ended without a close frame: %v", err)
	}
}

func asCloseError(err error, out **websocket.CloseError) bool {
	ce, ok := err.(*websocket.CloseError)
	if ok {
		*out = ce
	}
	return ok
}

func detail(e *protocol.Error) string {
	if e == nil {
		return ""
	}
	m, _ := e.Details.(map[string]any)
	s, _ := m["code"].(string)
	return s
}
