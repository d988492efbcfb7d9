package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/gateway/rpc/rpctest"
	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// testGateway is an in-process bus with the node registry wired as the
// gateway wires it.
type testGateway struct {
	srv    *rpc.Server
	reg    *Registry
	url    string
	policy atomic.Pointer[Policy]
	// pairing is the live gateway.nodes.pairing; startGateway sets the
	// config default (loopback nodes approved without asking).
	pairing atomic.Pointer[PairingPolicy]
	// skew moves the registry's clock forward.
	skew atomic.Int64
	// events are the registry's broadcasts, in order.
	evMu   sync.Mutex
	events []recorded
}

// recorded is one broadcast of the registry.
type recorded struct {
	event   string
	payload any
}

// Broadcast records the event and passes it on to the bus.
func (g *testGateway) Broadcast(event string, payload any) {
	g.evMu.Lock()
	g.events = append(g.events, recorded{event, payload})
	g.evMu.Unlock()
	g.srv.Broadcast(event, payload)
}

// broadcasts returns the recorded events named event.
func (g *testGateway) broadcasts(event string) []any {
	g.evMu.Lock()
	defer g.evMu.Unlock()
	var out []any
	for _, e := range g.events {
		if e.event == event {
			out = append(out, e.payload)
		}
	}
	return out
}

func startGateway(t testing.TB, p Policy) *testGateway {
	t.Helper()
	st := storetest.Open(t, Migrations())
	g := &testGateway{}
	g.policy.Store(&p)
	g.pairing.Store(&PairingPolicy{AutoApproveLocal: true})
	g.srv = rpctest.NewServer(rpc.Options{
		Pairing: rpctest.GrantAsked{},
		OnConnect: func(c *rpc.Conn) {
			if h, ok := HelloFrom(c); ok {
				g.reg.Connect(context.Background(), c, h)
			}
		},
		OnDisconnect: func(c *rpc.Conn) { g.reg.Disconnect(context.Background(), c) },
	})
	g.reg = New(Options{DB: st.DB, Notify: g, Policy: func() Policy { return *g.policy.Load() },
		Pairing: func() PairingPolicy { return *g.pairing.Load() },
		Now:     func() time.Time { return time.Now().Add(time.Duration(g.skew.Load())) }})
	g.reg.Register(g.srv)
	g.url = rpctest.Serve(t, g.srv)
	t.Cleanup(func() { st.Close() })
	return g
}

// operator connects an operator client with scopes.
func (g *testGateway) operator(t testing.TB, scopes ...protocol.Scope) *client.Client {
	t.Helper()
	ss := make([]string, len(scopes))
	for i, s := range scopes {
		ss[i] = string(s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: g.url, Token: rpctest.Token, Scopes: ss})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// answer is how a fake node answers one invoke: a payload to send as
// payloadJSON, or an error, or drop (no answer at all).
type answer struct {
	payload any
	err     *protocol.Error
	drop    bool
}

// fakeNode is a node host over the Go client: it declares commands and
// answers node.invoke.request events with handle.
type fakeNode struct {
	c        *client.Client
	id       string // its node id (device id)
	requests atomic.Int64
	mu       sync.Mutex
	handle   func(command string, params json.RawMessage) answer
	last     map[string]any // last request event
}

func (g *testGateway) node(t testing.TB, name string, commands []string, handle func(string, json.RawMessage) answer) *fakeNode {
	t.Helper()
	id, err := client.NewDeviceIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return g.nodeWith(t, id, name, commands, handle)
}

func (g *testGateway) nodeWith(t testing.TB, id *client.DeviceIdentity, name string, commands []string, handle func(string, json.RawMessage) answer) *fakeNode {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: g.url, Token: rpctest.Token, Identity: id, Role: protocol.RoleNode,
		ClientID: "node-host", ClientMode: "node", DisplayName: name, Platform: "linux", DeviceFamily: "Linux",
		Caps: []string{"system"}, Commands: commands, PathEnv: "/usr/bin:/bin"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	n := &fakeNode{c: c, id: id.ID, handle: handle}
	go n.serve()
	// Connect runs in the bus's hook right after hello-ok; wait for it.
	waitFor(t, func() bool { return g.reg.Connected(n.id) })
	return n
}

func (n *fakeNode) serve() {
	for ev := range n.c.Events() {
		if ev.Event != EventInvokeRequest {
			continue
		}
		n.requests.Add(1)
		var req struct {
			ID, NodeID, Command string
			ParamsJSON          *string
		}
		json.Unmarshal(ev.Payload, &req)
		var raw map[string]any
		json.Unmarshal(ev.Payload, &raw)
		n.mu.Lock()
		n.last = raw
		h := n.handle
		n.mu.Unlock()
		var params json.RawMessage
		if req.ParamsJSON != nil {
			params = json.RawMessage(*req.ParamsJSON)
		}
		go func() {
			a := answer{payload: map[string]any{"echo": req.Command}}
			if h != nil {
				a = h(req.Command, params)
			}
			if a.drop {
				return
			}
			res := map[string]any{"id": req.ID, "nodeId": req.NodeID, "ok": a.err == nil}
			if a.err != nil {
				res["error"] = map[string]string{"code": a.err.Code, "message": a.err.Message}
			} else {
				b, _ := json.Marshal(a.payload)
				res["payloadJSON"] = string(b)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			n.c.Call(ctx, "node.invoke.result", res, nil)
		}()
	}
}

func (n *fakeNode) lastRequest() map[string]any {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.last
}

// waitFor polls cond until it holds or 5 s pass.
func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// wantErr checks an error's code and details code.
func wantErr(t testing.TB, err error, code, detail string) *protocol.Error {
	t.Helper()
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v, want a protocol error %s/%s", err, code, detail)
	}
	got := ""
	if d, ok := pe.Details.(map[string]any); ok {
		got, _ = d["code"].(string)
	}
	if pe.Code != code || got != detail {
		t.Fatalf("error = %s (details %v), want %s/%s", pe, pe.Details, code, detail)
	}
	return pe
}

func ctx5s(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}
func TestMain(m *testing.M) { pgtest.Main(m) }
