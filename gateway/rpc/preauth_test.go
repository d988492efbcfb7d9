package rpc

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// budgetRefusal is OpenClaw's answer to a socket over the pre-auth budget.
const budgetRefusal = "Too many unauthenticated sockets"

// idleSocket opens a socket, reads its challenge and then says nothing,
// as a flooder does. It returns the HTTP status of a refused upgrade, and
// checks that a refusal by the budget is worded as OpenClaw's.
func (g *testGateway) idleSocket(t *testing.T, hdr http.Header) (*websocket.Conn, int) {
	t.Helper()
	ws, resp, err := websocket.DefaultDialer.Dial(g.url, hdr)
	if err != nil {
		if resp == nil {
			t.Fatalf("dial: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == http.StatusServiceUnavailable && !g.srv.closingNow() && strings.TrimSpace(string(body)) != budgetRefusal {
			t.Fatalf("refusal body %q is not OpenClaw's %q", body, budgetRefusal)
		}
		return nil, resp.StatusCode
	}
	t.Cleanup(func() { ws.Close() })
	var ev protocol.Inbound
	readInto(t, ws, &ev)
	if ev.Event != protocol.EventConnectChallenge {
		t.Fatalf("first frame %+v is not the challenge", ev)
	}
	return ws, http.StatusSwitchingProtocols
}

// connectOn sends the CLI's connect on an open socket and wants hello-ok.
func connectOn(t *testing.T, ws *websocket.Conn) {
	t.Helper()
	send(t, ws, cliConnect("operator.read"))
	var res response
	readInto(t, ws, &res)
	if !res.OK {
		t.Fatalf("connect refused: %+v", res.Error)
	}
}

// closedByServer waits (up to a generous bound that the socket's own
// deadline, an hour in these tests, is far beyond) for the server to end
// an idle socket, and returns the close code, or 0 without a close frame.
func closedByServer(t *testing.T, ws *websocket.Conn) int {
	t.Helper()
	ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, _, err := ws.ReadMessage()
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatal("the server kept the idle socket open")
		}
		return 0
	}
}

// TestPreauthFloodDoesNotStarveOperator: a local process opens upgraded
// sockets and never sends connect: 65 with the default budget (the
// reported case: the 65th and every later socket, the operator's
// included, were refused for the 15 s of the idle ones' deadline), and
// four times a small budget. Every flood socket is admitted, each new one
// past the budget evicting the oldest idle one (closed with 1000, as a
// timed-out handshake), so the flood only churns itself, and a fresh
// client still completes connect and calls a method.
func TestPreauthFloodDoesNotStarveOperator(t *testing.T) {
	tests := []struct {
		name   string
		budget int // 0: the default
		flood  int
	}{
		{"the reported 65 sockets, default budget", 0, 65},
		{"four times a small budget", 16, 64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := startTestServer(t, func(o *Options, a *AuthConfig) {
				o.MaxPreauth = tt.budget
				o.PreauthPressure = 10 * tt.flood // this test is about the budget alone
				o.PreauthMinAge = time.Nanosecond // evict at once (see TestPreauthMinAge)
				o.HandshakeTimeout = time.Hour
			})
			var flood []*websocket.Conn
			for i := range tt.flood {
				ws, status := g.idleSocket(t, nil)
				if ws == nil {
					t.Fatalf("flood socket %d refused with %d; the budget should make room by evicting the oldest idle socket", i, status)
				}
				flood = append(flood, ws)
			}
			if budget := g.srv.opts.MaxPreauth; tt.flood > budget {
				if code := closedByServer(t, flood[0]); code != websocket.CloseNormalClosure {
					t.Fatalf("evicted socket closed with %d, want 1000 as a timed-out handshake", code)
				}
			}

			ws, status := g.idleSocket(t, nil)
			if ws == nil {
				t.Fatalf("operator refused with %d during the flood", status)
			}
			connectOn(t, ws)
			if r := call(t, ws, "2:h", "health", nil); !r.OK {
				t.Fatalf("health during the flood: %+v", r.Error)
			}
			if n, budget := g.srv.preauthCount(), g.srv.opts.MaxPreauth; n > budget {
				t.Fatalf("%d sockets hold the pre-auth budget of %d", n, budget)
			}
		})
	}
}

// TestPreauthMinAge: a socket past the budget evicts the oldest idle one
// only once that one has been open PreauthMinAge, so a flood cannot churn
// the budget at the speed of upgrades, and every admitted socket (the
// operator's among them) has at least that long to send connect. While
// all are younger the newcomer is refused with 503, and gets in on a
// later try once the oldest has aged.
func TestPreauthMinAge(t *testing.T) {
	const budget = 4
	fill := func(t *testing.T, minAge time.Duration) (*testGateway, []*websocket.Conn) {
		g := startTestServer(t, func(o *Options, a *AuthConfig) {
			o.MaxPreauth, o.PreauthPressure, o.PreauthMinAge, o.HandshakeTimeout = budget, 100, minAge, time.Hour
		})
		var held []*websocket.Conn
		for i := range budget {
			ws, status := g.idleSocket(t, nil)
			if ws == nil {
				t.Fatalf("socket %d within the budget refused with %d", i, status)
			}
			held = append(held, ws)
		}
		return g, held
	}
	t.Run("young sockets are not evicted", func(t *testing.T) {
		g, held := fill(t, time.Hour)
		if _, status := g.idleSocket(t, nil); status != http.StatusServiceUnavailable {
			t.Fatalf("socket past a budget of young sockets: status %d, want 503", status)
		}
		connectOn(t, held[0]) // the admitted ones were left alone
	})
	t.Run("the oldest is evicted once it has aged", func(t *testing.T) {
		g, held := fill(t, 50*time.Millisecond)
		var ws *websocket.Conn
		for attempt := 0; ws == nil; attempt++ {
			if attempt == 500 {
				t.Fatal("never admitted past the budget")
			}
			if ws, _ = g.idleSocket(t, nil); ws == nil {
				time.Sleep(20 * time.Millisecond)
			}
		}
		if code := closedByServer(t, held[0]); code != websocket.CloseNormalClosure {
			t.Fatalf("the oldest socket closed with %d, want 1000", code)
		}
		connectOn(t, ws)
	})
}

// TestPreauthEvictionsAreSpaced is the attack that kept an operator out
// of a small budget: a flood whose evicted sockets redial at once. Were
// evictions free, every slot would be retaken in one burst, all the
// flood's sockets would share one age, and each time they came of age
// together the flood's redials would take every opening within a
// millisecond. Evictions are spaced PreauthMinAge/MaxPreauth apart, so
// of two newcomers in the same instant past a budget of old sockets only
// the first gets in; the next opening comes one spacing later.
func TestPreauthEvictionsAreSpaced(t *testing.T) {
	const budget = 2
	g := startTestServer(t, func(o *Options, a *AuthConfig) {
		o.MaxPreauth, o.PreauthPressure, o.PreauthMinAge, o.HandshakeTimeout = budget, 100, time.Second, time.Hour
	})
	var mu sync.Mutex
	clock := time.Now()
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	g.srv.preauth.setClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return clock })
	for i := range budget {
		if ws, status := g.idleSocket(t, nil); ws == nil {
			t.Fatalf("socket %d within the budget refused with %d", i, status)
		}
	}
	advance(time.Hour) // every held socket is old enough to evict
	if ws, status := g.idleSocket(t, nil); ws == nil {
		t.Fatalf("first newcomer past a budget of old sockets refused with %d", status)
	}
	if _, status := g.idleSocket(t, nil); status != http.StatusServiceUnavailable {
		t.Fatalf("second newcomer in the same instant: status %d, want 503 (a second eviction within the spacing)", status)
	}
	advance(time.Second / budget)
	ws, status := g.idleSocket(t, nil)
	if ws == nil {
		t.Fatalf("newcomer one spacing later refused with %d", status)
	}
	connectOn(t, ws)
}

// TestOperatorConnectsDuringConcurrentFlood: four flooders open idle
// sockets as fast as they can while an operator connects again and
// again, with the budget small and under pressure, so eviction, deadline
// cuts, releases and hello-ok race each other (run it with -race). Each
// of the operator's connects must get through within a few attempts: its
// socket can be refused or evicted by the flood, but the flood can never
// hold the door shut.
func TestOperatorConnectsDuringConcurrentFlood(t *testing.T) {
	g := startTestServer(t, func(o *Options, a *AuthConfig) {
		o.MaxPreauth = 16
		o.PreauthPressure = 8
		o.PreauthPressureTimeout = 50 * time.Millisecond
		o.PreauthMinAge = 5 * time.Millisecond
		o.HandshakeTimeout = time.Hour
	})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				select {
				case <-stop:
					return
				default:
				}
				ws, _, err := websocket.DefaultDialer.Dial(g.url, nil)
				if err != nil {
					continue // refused while every slot was busy, or the server went away
				}
				defer ws.Close()
			}
		})
	}
	for i := range 10 {
		connected := false
		for attempt := 0; attempt < 100 && !connected; attempt++ {
			ws, _, err := websocket.DefaultDialer.Dial(g.url, nil)
			if err != nil {
				time.Sleep(10 * time.Millisecond) // refused while every socket was young
				continue
			}
			connected = tryConnect(ws)
			ws.Close()
		}
		if !connected {
			t.Fatalf("operator connect %d failed 100 times during the flood", i)
		}
	}
	close(stop)
	wg.Wait()
}

// tryConnect performs the CLI's handshake and reports whether it got
// hello-ok; a socket evicted on the way reports false.
func tryConnect(ws *websocket.Conn) bool {
	ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	var ev protocol.Inbound
	if ws.ReadJSON(&ev) != nil || ev.Event != protocol.EventConnectChallenge {
		return false
	}
	if ws.WriteJSON(cliConnect("operator.read")) != nil {
		return false
	}
	var res response
	return ws.ReadJSON(&res) == nil && res.OK
}

// TestRefusedConnectsDoNotPinBudget: a flooder fills the budget with
// sockets whose first frame is refused and then lingers, never closing,
// through the grace the server gives a refused client to read its
// answer. Those sockets must be evictable like idle ones, or the budget
// is pinned by sockets that will never authenticate.
func TestRefusedConnectsDoNotPinBudget(t *testing.T) {
	const budget = 8
	g := startTestServer(t, func(o *Options, a *AuthConfig) {
		o.MaxPreauth = budget
		o.PreauthPressure = 10 * budget
		o.PreauthMinAge = time.Nanosecond
		o.HandshakeTimeout = time.Hour
	})
	notConnect := map[string]any{"type": "req", "id": "1:x", "method": "health"}
	for i := range budget {
		ws, status := g.idleSocket(t, nil)
		if ws == nil {
			t.Fatalf("socket %d refused with %d", i, status)
		}
		send(t, ws, notConnect)
		var res response
		readInto(t, ws, &res) // the refusal: the socket is now in its grace
		if res.OK {
			t.Fatal("a first frame other than connect was accepted")
		}
	}
	ws, status := g.idleSocket(t, nil)
	if ws == nil {
		t.Fatalf("operator refused with %d while refused sockets linger", status)
	}
	connectOn(t, ws)
}

// TestPreauthPressureShortensDeadlines: once the pre-auth count reaches
// the pressure mark, the idle sockets already open and the new ones get
// the short deadline instead of the full handshake timeout (an hour
// here), and an operator connecting afterwards is served.
func TestPreauthPressureShortensDeadlines(t *testing.T) {
	g := startTestServer(t, func(o *Options, a *AuthConfig) {
		o.HandshakeTimeout = time.Hour
		o.PreauthPressure = 4
		o.PreauthPressureTimeout = 100 * time.Millisecond
	})
	var idle []*websocket.Conn
	for range 4 {
		ws, status := g.idleSocket(t, nil)
		if ws == nil {
			t.Fatalf("idle socket refused with %d", status)
		}
		idle = append(idle, ws)
	}
	for i, ws := range idle {
		if code := closedByServer(t, ws); code != websocket.CloseNormalClosure {
			t.Fatalf("idle socket %d closed with %d, want 1000", i, code)
		}
	}
	ws, _ := g.idleSocket(t, nil)
	connectOn(t, ws)
}

// TestPreauthBudgetPerIP: one remote address (through a trusted proxy's
// X-Forwarded-For, as several hosts would reach a proxied gateway) may
// hold MaxPreauthPerIP idle sockets; past that it is refused with
// OpenClaw's 503 before the upgrade, while another address, the same
// address once a socket authenticated, and direct loopback are served.
// An IPv6 client is budgeted by its /64, which it usually holds whole.
func TestPreauthBudgetPerIP(t *testing.T) {
	const perIP = 3
	g := startTestServer(t, func(o *Options, a *AuthConfig) {
		o.MaxPreauthPerIP = perIP
		o.HandshakeTimeout = time.Hour
		a.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	})
	from := func(ip string) http.Header { return http.Header{"X-Forwarded-For": {ip}} }

	var first *websocket.Conn
	for i := range perIP {
		ws, status := g.idleSocket(t, from("203.0.113.1"))
		if ws == nil {
			t.Fatalf("socket %d of 203.0.113.1 refused with %d", i, status)
		}
		if first == nil {
			first = ws
		}
	}
	if _, status := g.idleSocket(t, from("203.0.113.1")); status != http.StatusServiceUnavailable {
		t.Fatalf("socket over 203.0.113.1's budget: status %d, want 503", status)
	}
	other, status := g.idleSocket(t, from("198.51.100.7"))
	if other == nil {
		t.Fatalf("another address refused with %d", status)
	}
	connectOn(t, other)
	for i := range 2 * perIP {
		if ws, status := g.idleSocket(t, nil); ws == nil {
			t.Fatalf("direct loopback socket %d refused with %d; loopback is not budgeted by address", i, status)
		}
	}
	connectOn(t, first)
	if ws, status := g.idleSocket(t, from("203.0.113.1")); ws == nil {
		t.Fatalf("203.0.113.1 still refused (%d) after one of its sockets authenticated", status)
	}

	for i := range perIP {
		if ws, status := g.idleSocket(t, from("2001:db8::"+string(rune('1'+i)))); ws == nil {
			t.Fatalf("IPv6 socket %d refused with %d", i, status)
		}
	}
	if _, status := g.idleSocket(t, from("2001:db8::ff")); status != http.StatusServiceUnavailable {
		t.Fatalf("a fourth address of the same /64: status %d, want 503", status)
	}
	if ws, status := g.idleSocket(t, from("2001:db8:0:1::1")); ws == nil {
		t.Fatalf("the next /64 refused with %d", status)
	}
}

// TestPreauthBudgetPerOrigin: a browser page (one Origin) opening more
// idle sockets than MaxPreauthPerOrigin only evicts its own oldest
// socket; another origin's sockets stay, and its newest socket connects.
func TestPreauthBudgetPerOrigin(t *testing.T) {
	const perOrigin = 2
	g := startTestServer(t, func(o *Options, a *AuthConfig) {
		o.MaxPreauthPerOrigin = perOrigin
		o.PreauthMinAge = time.Nanosecond
		o.HandshakeTimeout = time.Hour
		a.AllowedOrigins = []string{"https://a.example", "https://b.example"}
	})
	origin := func(o string) http.Header { return http.Header{"Origin": {o}} }
	b, _ := g.idleSocket(t, origin("https://b.example"))
	var a []*websocket.Conn
	for i := range perOrigin + 1 {
		ws, status := g.idleSocket(t, origin("https://a.example"))
		if ws == nil {
			t.Fatalf("socket %d of a.example refused with %d", i, status)
		}
		a = append(a, ws)
	}
	if code := closedByServer(t, a[0]); code != websocket.CloseNormalClosure {
		t.Fatalf("a.example's oldest socket closed with %d, want 1000", code)
	}
	connectOn(t, a[perOrigin])
	connectOn(t, b) // the other origin's idle socket was left alone
}

// TestShutdownEndsIdlePreauthSockets: a shutdown does not wait out the
// handshake deadline (an hour here) of sockets that never sent connect.
func TestShutdownEndsIdlePreauthSockets(t *testing.T) {
	g := startTestServer(t, func(o *Options, a *AuthConfig) { o.HandshakeTimeout = time.Hour })
	ws, _ := g.idleSocket(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go g.srv.Shutdown(ctx, "test over", 0)
	closedByServer(t, ws)
	if _, status := g.idleSocket(t, nil); status != http.StatusServiceUnavailable {
		t.Fatalf("socket during shutdown: status %d, want 503", status)
	}
}

func (s *Server) preauthCount() int {
	s.preauth.mu.Lock()
	defer s.preauth.mu.Unlock()
	return s.preauth.count
}

func (s *Server) closingNow() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.closing
}
