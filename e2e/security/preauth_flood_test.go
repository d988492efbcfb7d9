package security

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/e2e/harness"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// floodSockets is the size of the flood: well past the 64 sockets that
// used to fill the pre-auth budget, bounded for a shared test machine.
const floodSockets = 300

// idleFlood holds n idle upgraded sockets open against url, never
// sending connect, each reopened when the gateway closes it, until stop.
// It reports how many upgrades were accepted and refused.
type idleFlood struct {
	accepted, refused atomic.Int64
	stop              chan struct{}
	wg                sync.WaitGroup
}

func startIdleFlood(url string, n int, hdr http.Header) *idleFlood {
	f := &idleFlood{stop: make(chan struct{})}
	dialer := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	for range n {
		f.wg.Go(func() {
			for range 50 { // bounded: at most 50 sockets per worker
				select {
				case <-f.stop:
					return
				default:
				}
				ws, _, err := dialer.Dial(url, hdr)
				if err != nil {
					f.refused.Add(1)
					select {
					case <-f.stop:
						return
					case <-time.After(200 * time.Millisecond):
					}
					continue
				}
				f.accepted.Add(1)
				done := make(chan struct{})
				go func() {
					select {
					case <-f.stop:
					case <-done:
					}
					ws.Close()
				}()
				for { // the challenge, then nothing until the gateway closes it
					if _, _, err := ws.ReadMessage(); err != nil {
						break
					}
				}
				close(done)
			}
		})
	}
	return f
}

// waitOpened waits until the flood has had n upgrades answered.
func (f *idleFlood) waitOpened(t *testing.T, n int64) {
	t.Helper()
	if !harness.Poll(60*time.Second, func() bool { return f.accepted.Load()+f.refused.Load() >= n }) {
		t.Fatalf("the flood did not get going: %d accepted, %d refused", f.accepted.Load(), f.refused.Load())
	}
}

func (f *idleFlood) end() {
	close(f.stop)
	f.wg.Wait()
}

// TestPreauthFloodCannotLockOutOperator: a local process (the flood may
// come from loopback, where the operator is too) opens 300 WebSocket
// upgrades to the gateway and never sends connect, reopening each socket
// the gateway closes. Before the fix the first 64 filled the pre-auth
// budget and every other client, the operator's CLI included, was refused
// for as long as the flood lasted. The operator must still get through:
// `openclaw health` exits 0, and a raw connect gets hello-ok and answers.
func TestPreauthFloodCannotLockOutOperator(t *testing.T) {
	g := harness.Start(t, harness.Opts{})
	f := startIdleFlood(g.URL, floodSockets, nil)
	defer f.end()
	f.waitOpened(t, floodSockets)

	if r := g.CLI(t, "health", "--json"); r.Code != 0 {
		t.Fatalf("openclaw health during the flood (%d accepted, %d refused):\n%s", f.accepted.Load(), f.refused.Load(), r)
	}
	c := g.Dial(t, "operator.read")
	harness.MustCall(t, c, "health", nil)
	t.Logf("flood: %d sockets accepted, %d refused", f.accepted.Load(), f.refused.Load())
}

// TestPreauthBudgetPerRemoteAddress: behind a trusted proxy, one remote
// host (one X-Forwarded-For address) floods idle upgrades. It is held to
// its own budget, refused past it with OpenClaw's 503 before any upgrade,
// while the operator on loopback still connects.
func TestPreauthBudgetPerRemoteAddress(t *testing.T) {
	g := harness.Start(t, harness.Opts{Config: `{ gateway: { mode: "local", trustedProxies: ["127.0.0.1"] } }`})
	hdr := http.Header{"X-Forwarded-For": {"203.0.113.50"}}
	var held []*websocket.Conn
	defer func() {
		for _, ws := range held {
			ws.Close()
		}
	}()
	var refusal *http.Response
	for range 100 {
		ws, resp, err := websocket.DefaultDialer.Dial(g.URL, hdr)
		if err != nil {
			if resp == nil {
				t.Fatalf("dial: %v", err)
			}
			refusal = resp
			break
		}
		held = append(held, ws)
	}
	if refusal == nil {
		t.Fatalf("one remote address held %d idle sockets without a refusal", len(held))
	}
	body, _ := io.ReadAll(refusal.Body)
	if refusal.StatusCode != http.StatusServiceUnavailable || strings.TrimSpace(string(body)) != "Too many unauthenticated sockets" {
		t.Fatalf("refusal after %d sockets: %d %q, want OpenClaw's 503", len(held), refusal.StatusCode, body)
	}
	c := g.Dial(t, "operator.read")
	harness.MustCall(t, c, "health", nil)
}

// TestDeepFrameIsAnsweredByTheGateway: an authenticated client sends a
// request nested past the JSON decoder's depth limit. It used to vanish
// without an answer, leaving the caller to time out; the gateway must
// answer INVALID_REQUEST naming the limit, and keep the connection.
func TestDeepFrameIsAnsweredByTheGateway(t *testing.T) {
	g := harness.Start(t, harness.Opts{})
	ws, _, err := websocket.DefaultDialer.Dial(g.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	read := func(id string) protocol.Inbound {
		t.Helper()
		for {
			var in protocol.Inbound
			if err := ws.ReadJSON(&in); err != nil {
				t.Fatalf("waiting for the answer to %s: %v", id, err)
			}
			if in.Type == protocol.KindRes && in.ID == id {
				return in
			}
		}
	}
	var challenge protocol.Inbound
	if err := ws.ReadJSON(&challenge); err != nil || challenge.Event != protocol.EventConnectChallenge {
		t.Fatalf("no challenge: %v %+v", err, challenge)
	}
	connect := protocol.ConnectParams{
		MinProtocol: protocol.Version, MaxProtocol: protocol.Version,
		Client: protocol.ClientInfo{ID: "cli", Version: "e2e", Platform: "linux", Mode: "cli"},
		Role:   string(protocol.RoleOperator), Scopes: []string{"operator.read"},
		Auth: &protocol.ConnectAuth{Token: g.Token},
	}
	params, _ := json.Marshal(connect)
	if err := ws.WriteJSON(protocol.Request{Type: protocol.KindReq, ID: "1:c", Method: "connect", Params: params}); err != nil {
		t.Fatal(err)
	}
	if res := read("1:c"); !res.OK {
		t.Fatalf("connect: %+v", res.Error)
	}

	n := protocol.MaxFrameDepth
	deep := `{"type":"req","id":"2:deep","method":"health","params":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`
	if err := ws.WriteMessage(websocket.TextMessage, []byte(deep)); err != nil {
		t.Fatal(err)
	}
	res := read("2:deep")
	if res.OK || res.Error == nil || res.Error.Code != protocol.CodeInvalidRequest || !strings.Contains(res.Error.Message, "10000") {
		t.Fatalf("deep request answered ok=%v %+v; want INVALID_REQUEST naming the limit", res.OK, res.Error)
	}
	if err := ws.WriteJSON(protocol.Request{Type: protocol.KindReq, ID: "3:h", Method: "health"}); err != nil {
		t.Fatal(err)
	}
	if res := read("3:h"); !res.OK {
		t.Fatalf("health after the deep frame: %+v", res.Error)
	}
}
