package rpc

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

func TestDispatchAuthorization(t *testing.T) {
	g := startTestServer(t, nil)
	g.srv.Handle("node.event", Route{Scope: protocol.ScopeNode, Handler: func(ctx context.Context, r *Request) (any, error) { return "n", nil }})
	g.srv.HandleFunc("config.set", func(ctx context.Context, r *Request) (any, error) { return "set", nil })
	g.srv.HandleFunc("boom", func(ctx context.Context, r *Request) (any, error) { panic("kaboom") })
	tests := []struct {
		name       string
		scopes     []string
		method     string
		wantOK     bool
		wantCode   string
		wantDetail string
		wantMsg    string
	}{
		{"read method with read", []string{"operator.read"}, "status", true, "", "", ""},
		{"read method with write", []string{"operator.write"}, "status", true, "", "", ""},
		{"read method with admin", []string{"operator.admin"}, "status", true, "", "", ""},
		{"read method without scope", []string{"operator.pairing"}, "status", false, protocol.CodeForbidden, protocol.DetailMissingScope, "missing scope: operator.read"},
		{"admin method with write", []string{"operator.write"}, "config.set", false, protocol.CodeForbidden, protocol.DetailMissingScope, "missing scope: operator.admin"},
		{"unknown method", []string{"operator.admin"}, "no.such.method", false, protocol.CodeInvalidRequest, "", "unknown method: no.such.method"},
		{"node method from operator", []string{"operator.admin"}, "node.event", false, protocol.CodeInvalidRequest, "", "unauthorized role: operator"},
		{"panicking handler", []string{"operator.admin"}, "boom", false, protocol.CodeUnavailable, "", "internal error in boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := g.connected(t, tt.scopes...)
			res := call(t, ws, "2:x", tt.method, map[string]any{})
			if res.OK != tt.wantOK {
				t.Fatalf("ok = %v, error %+v", res.OK, res.Error)
			}
			if !tt.wantOK && (res.Error.Code != tt.wantCode || detail(res.Error) != tt.wantDetail || res.Error.Message != tt.wantMsg) {
				t.Fatalf("error = %+v; want %s %s %q", res.Error, tt.wantCode, tt.wantDetail, tt.wantMsg)
			}
			// The connection survives every refusal.
			if r := call(t, ws, "3:y", "health", nil); !r.OK {
				t.Fatalf("health after refusal: %+v", r.Error)
			}
		})
	}
}

func TestNoiseAfterHelloIsIgnored(t *testing.T) {
	g := startTestServer(t, nil)
	ws := g.connected(t, "operator.read")
	ws.WriteMessage(websocket.TextMessage, []byte("garbage"))
	ws.WriteMessage(websocket.TextMessage, []byte(`{"type":"event","event":"x"}`))
	if r := call(t, ws, "2:z", "health", nil); !r.OK {
		t.Fatalf("health after noise: %+v", r.Error)
	}
}

func TestIdempotencyReplay(t *testing.T) {
	var runs atomic.Int32
	g := startTestServer(t, nil)
	g.srv.HandleFunc("send", func(ctx context.Context, r *Request) (any, error) {
		return map[string]any{"run": runs.Add(1)}, nil
	})
	ws := g.connected(t, "operator.write")
	a := call(t, ws, "2:a", "send", map[string]any{"idempotencyKey": "k1"})
	b := call(t, ws, "3:b", "send", map[string]any{"idempotencyKey": "k1"})
	c := call(t, ws, "4:c", "send", map[string]any{"idempotencyKey": "k2"})
	if string(a.Payload) != `{"run":1}` || string(b.Payload) != `{"run":1}` || string(c.Payload) != `{"run":2}` {
		t.Fatalf("payloads %s %s %s", a.Payload, b.Payload, c.Payload)
	}
	if b.ID != "3:b" {
		t.Fatalf("replayed id = %q", b.ID)
	}
}

func TestTwoStageAccepted(t *testing.T) {
	g := startTestServer(t, nil)
	release := make(chan struct{})
	g.srv.HandleFunc("agent", func(ctx context.Context, r *Request) (any, error) {
		r.Accept(map[string]any{"runId": "r1", "status": "accepted"})
		<-release
		return map[string]any{"runId": "r1", "status": "ok"}, nil
	})
	ws := g.connected(t, "operator.write")
	send(t, ws, map[string]any{"type": "req", "id": "2:ag", "method": "agent", "params": map[string]any{}})
	var first response
	readInto(t, ws, &first)
	if first.ID != "2:ag" || string(first.Payload) != `{"runId":"r1","status":"accepted"}` {
		t.Fatalf("first = %+v %s", first, first.Payload)
	}
	close(release)
	var second response
	readInto(t, ws, &second)
	if second.ID != "2:ag" || string(second.Payload) != `{"runId":"r1","status":"ok"}` {
		t.Fatalf("second = %s", second.Payload)
	}
}

func TestBroadcastSeqPerConnectionAndScopeGating(t *testing.T) {
	g := startTestServer(t, nil)
	reader := g.connected(t, "operator.read")
	pairer := g.connected(t, "operator.pairing")
	g.srv.Broadcast(protocol.EventPresence, map[string]any{"n": 1})            // read only
	g.srv.Broadcast(protocol.EventDevicePairRequested, map[string]any{"n": 2}) // pairing only
	g.srv.Broadcast(protocol.EventTick, map[string]any{"n": 3})                // everyone
	g.srv.Broadcast("made.up.event", map[string]any{"n": 4})                   // admin only: fails closed
	expect := func(ws *websocket.Conn, events ...string) {
		t.Helper()
		for i, want := range events {
			var ev struct {
				Event string  `json:"event"`
				Seq   *uint64 `json:"seq"`
			}
			readInto(t, ws, &ev)
			if ev.Event != want || ev.Seq == nil || *ev.Seq != uint64(i+1) {
				t.Fatalf("event %d = %s seq %v; want %s seq %d", i, ev.Event, ev.Seq, want, i+1)
			}
		}
	}
	expect(reader, "presence", "tick")
	expect(pairer, "device.pair.requested", "tick")
}

func TestOriginGate(t *testing.T) {
	g := startTestServer(t, func(o *Options, a *AuthConfig) { a.AllowedOrigins = []string{"https://ops.example.com"} })
	tests := []struct {
		origin string
		want   int
	}{
		{"", http.StatusSwitchingProtocols},
		{"https://ops.example.com", http.StatusSwitchingProtocols},
		{"https://evil.example.com", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"http://localhost:3000", http.StatusForbidden}, // another local page is not the gateway's own
		{"http://" + g.http.Listener.Addr().String(), http.StatusSwitchingProtocols},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("origin %q", tt.origin), func(t *testing.T) {
			h := http.Header{}
			if tt.origin != "" {
				h.Set("Origin", tt.origin)
			}
			ws, resp, err := websocket.DefaultDialer.Dial(g.url, h)
			if ws != nil {
				ws.Close()
			}
			if resp == nil {
				t.Fatalf("no response: %v", err)
			}
			if resp.StatusCode != tt.want {
				t.Fatalf("status = %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
}

func TestProxyAttribution(t *testing.T) {
	g := startTestServer(t, nil)
	h := http.Header{"X-Forwarded-For": {"203.0.113.9"}}
	_, resp, _ := websocket.DefaultDialer.Dial(g.url, h)
	if resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("forwarded header from untrusted loopback proxy: %v", resp)
	}
}

func TestAuthRateLimitLockout(t *testing.T) {
	g := startTestServer(t, func(o *Options, a *AuthConfig) {
		a.RateLimit = RateLimitConfig{MaxAttempts: 3, Window: time.Minute, Lockout: time.Hour, ExemptLoopback: false}
	})
	bad := cliConnect("operator.read")
	bad["params"].(map[string]any)["auth"] = map[string]any{"token": "wrong"}
	for i := 0; i < 3; i++ {
		ws, _ := g.dial(t, nil)
		send(t, ws, bad)
		var res response
		readInto(t, ws, &res)
		if detail(res.Error) != protocol.DetailAuthTokenMismatch {
			t.Fatalf("attempt %d: %+v", i, res.Error)
		}
	}
	// Now even the right token is refused until the lockout ends.
	ws, _ := g.dial(t, nil)
	send(t, ws, cliConnect("operator.read"))
	var res response
	readInto(t, ws, &res)
	if res.OK || detail(res.Error) != protocol.DetailAuthRateLimited || res.Error.RetryAfterMs == nil || *res.Error.RetryAfterMs <= 0 {
		t.Fatalf("locked-out connect: ok=%v %+v", res.OK, res.Error)
	}
}

func TestSlowConsumerIsCutOffWithoutStallingOthers(t *testing.T) {
	g := startTestServer(t, func(o *Options, a *AuthConfig) { o.MaxBufferedBytes = 256 << 10 })
	slow := g.connected(t, "operator.read") // never reads until the end
	fast := g.connected(t, "operator.read")
	payload := map[string]any{"pad": strings.Repeat("x", 64<<10)}
	// 25 MiB: enough to fill the socket buffers between us and the slow
	// reader, and then its queue.
	for i := 0; i < 400; i++ {
		g.srv.Broadcast(protocol.EventPresence, payload)
		fast.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, _, err := fast.ReadMessage(); err != nil {
			t.Fatalf("fast client stalled or closed at event %d: %v", i, err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(g.srv.Conns()) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("slow consumer still registered; %d connections", len(g.srv.Conns()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	// If the close frame got through, it says why.
	slow.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, _, err := slow.ReadMessage()
		if err == nil {
			continue
		}
		if ce, ok := err.(*websocket.CloseError); ok && ce.Code != websocket.CloseAbnormalClosure {
			if ce.Code != protocol.ClosePolicy || ce.Text != "slow consumer" {
				t.Fatalf("slow client close = %d %q", ce.Code, ce.Text)
			}
		}
		return
	}
}
