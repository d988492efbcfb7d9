package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// syncBuffer is an io.Writer safe for the host's goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// running is a Host being run by a test.
type running struct {
	h      *Host
	out    *syncBuffer
	cancel context.CancelFunc
	done   chan struct{} // closed when Run has returned
	err    error         // what Run returned, once done is closed
	once   sync.Once
}

func startHost(t *testing.T, cfg Config) *running {
	t.Helper()
	out := &syncBuffer{}
	cfg.Out = out
	if cfg.StateDir == "" {
		cfg.StateDir = t.TempDir()
	}
	cfg.BackoffMin, cfg.BackoffMax, cfg.PairingRetry = 5*time.Millisecond, 50*time.Millisecond, 20*time.Millisecond
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{h: h, out: out, cancel: cancel, done: make(chan struct{})}
	go func() {
		r.err = h.Run(ctx)
		close(r.done)
	}()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop cancels Run and waits for it to return nil.
func (r *running) stop(t *testing.T) {
	t.Helper()
	r.once.Do(func() {
		r.cancel()
		select {
		case <-r.done:
			if r.err != nil && !errors.Is(r.err, ErrAuthRefused) {
				t.Errorf("Run: %v", r.err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return after cancel")
		}
	})
}

// result waits for Run to return by itself and returns its error.
func (r *running) result(t *testing.T) error {
	t.Helper()
	select {
	case <-r.done:
		return r.err
	case <-time.After(10 * time.Second):
		t.Fatal("Run kept going")
		return nil
	}
}

// results collects node.invoke.result calls.
type results struct {
	mu  sync.Mutex
	got []invokeResult
}

func (rs *results) handler(_ context.Context, call *clienttest.Call) (any, error) {
	var r invokeResult
	if err := call.Decode(&r); err != nil {
		return nil, protocol.InvalidParams(call.Method, err)
	}
	rs.mu.Lock()
	rs.got = append(rs.got, r)
	rs.mu.Unlock()
	return map[string]any{"ok": true}, nil
}

func (rs *results) wait(t *testing.T, id string) invokeResult {
	t.Helper()
	var out invokeResult
	waitFor(t, "node.invoke.result "+id, func() bool {
		rs.mu.Lock()
		defer rs.mu.Unlock()
		for _, r := range rs.got {
			if r.ID == id {
				out = r
				return true
			}
		}
		return false
	})
	return out
}

func onlyConn(t *testing.T, srv *clienttest.Server, connects int) *clienttest.Conn {
	t.Helper()
	var c *clienttest.Conn
	waitFor(t, "a node connection", func() bool {
		conns := srv.Conns()
		if len(conns) == 1 && len(srv.Connects()) >= connects {
			c = conns[0]
			return true
		}
		return false
	})
	return c
}

func sendInvoke(t *testing.T, c *clienttest.Conn, id, command, params string) {
	t.Helper()
	err := c.Event(EventInvokeRequest, map[string]any{"id": id, "nodeId": "node-1", "command": command,
		"paramsJSON": params, "timeoutMs": 5000, "idempotencyKey": "k-" + id})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAgainstFakeGateway(t *testing.T) {
	base := runtime.NumGoroutine()
	var rs results
	var stats atomic.Int32
	srv := clienttest.NewServer(t, clienttest.Config{
		Token: "shared",
		Hello: func(p protocol.ConnectParams, h *protocol.HelloOk) {
			h.Auth.DeviceToken, h.Auth.IssuedAtMs = "issued-device-token", 1
		},
	})
	srv.Handle("node.invoke.result", rs.handler)
	var evMu sync.Mutex
	execEvents := map[string][]map[string]any{}
	srv.Handle("node.event", func(_ context.Context, call *clienttest.Call) (any, error) {
		var p struct{ Event, PayloadJSON string }
		if err := call.Decode(&p); err != nil {
			return nil, protocol.Errorf(protocol.CodeInvalidRequest, "bad node.event %s", call.Params)
		}
		if p.Event == EventExecFinished || p.Event == EventExecDenied {
			var m map[string]any
			if err := json.Unmarshal([]byte(p.PayloadJSON), &m); err != nil {
				return nil, protocol.Errorf(protocol.CodeInvalidRequest, "bad payload %s", p.PayloadJSON)
			}
			evMu.Lock()
			execEvents[p.Event] = append(execEvents[p.Event], m)
			evMu.Unlock()
			return map[string]any{"ok": true, "event": p.Event, "handled": true}, nil
		}
		if p.Event != EventHostStats {
			return nil, protocol.Errorf(protocol.CodeInvalidRequest, "unexpected node.event %s", p.Event)
		}
		var s hostStats
		if err := json.Unmarshal([]byte(p.PayloadJSON), &s); err != nil || s.CPUCount < 1 {
			return nil, protocol.Errorf(protocol.CodeInvalidRequest, "bad stats %s", p.PayloadJSON)
		}
		stats.Add(1)
		return map[string]any{"ok": true, "event": p.Event, "handled": true}, nil
	})
	r := startHost(t, Config{URL: srv.URL(), Token: "shared", DisplayName: "test-node", NodeID: "node-id-1",
		StatsInterval: 50 * time.Millisecond})
	conn := onlyConn(t, srv, 1)

	// The connect is a node's.
	p := conn.Connect().Params
	if p.Role != "node" || p.Client.ID != "node-host" || p.Client.Mode != "node" || len(p.Scopes) != 0 ||
		p.Client.InstanceID != "node-id-1" || p.Client.DisplayName != "test-node" || p.Device == nil ||
		p.Device.ID != r.h.DeviceID() || p.Auth == nil || p.Auth.Token != "shared" || p.Auth.DeviceToken != "" ||
		!slices.Contains(p.Commands, CmdSystemRun) || !slices.Contains(p.Commands, CmdSystemWhich) ||
		slices.Contains(p.Commands, "camera.snap") || p.PathEnv == "" || !slices.Contains(p.Caps, "system") {
		t.Fatalf("connect params %+v", p)
	}
	if raw := string(conn.Connect().Raw); strings.Contains(raw, `"scopes":["`) {
		t.Fatalf("node asked for scopes: %s", raw)
	}
	waitFor(t, "device token stored", func() bool { return r.h.state.token(srv.URL()) == "issued-device-token" })

	// Invocations.
	sendInvoke(t, conn, "w1", CmdSystemWhich, `{"bins":["sh","no-such-bin-xyz"]}`)
	res := rs.wait(t, "w1")
	var which struct{ Bins map[string]string }
	if !res.OK || json.Unmarshal([]byte(res.PayloadJSON), &which) != nil || !strings.HasSuffix(which.Bins["sh"], "/sh") ||
		len(which.Bins) != 1 || res.NodeID != "node-1" {
		t.Fatalf("system.which result %+v", res)
	}
	sendInvoke(t, conn, "u1", "no.such.command", `{}`)
	if res := rs.wait(t, "u1"); res.OK || res.Error.Code != protocol.CodeUnavailable || !strings.Contains(res.Error.Message, "command not supported") {
		t.Fatalf("unknown command result %+v", res)
	}
	sendInvoke(t, conn, "c1", "camera.snap", `{}`)
	if res := rs.wait(t, "c1"); res.OK || !strings.Contains(res.Error.Message, "unsupported on this host") {
		t.Fatalf("camera result %+v", res)
	}
	sendInvoke(t, conn, "r1", CmdSystemRun, `{"command":["echo","hi"]}`)
	if res := rs.wait(t, "r1"); res.OK || res.Error.Code != protocol.CodeSystemRunDenied {
		t.Fatalf("unapproved system.run result %+v", res)
	}
	setPolicy(t, r.h, "full", "off")
	sendInvoke(t, conn, "r2", CmdSystemRun, `{"command":["echo","hi"]}`)
	res = rs.wait(t, "r2")
	var run runResult
	if !res.OK || json.Unmarshal([]byte(res.PayloadJSON), &run) != nil || run.Stdout != "hi\n" || !run.Success {
		t.Fatalf("system.run result %+v", res)
	}
	execEvent := func(name string) map[string]any {
		var ev map[string]any
		waitFor(t, name, func() bool {
			evMu.Lock()
			defer evMu.Unlock()
			if len(execEvents[name]) > 0 {
				ev = execEvents[name][0]
				return true
			}
			return false
		})
		return ev
	}
	if ev := execEvent(EventExecDenied); ev["reason"] != "approval-required" || ev["host"] != "node" || ev["sessionKey"] != "node" {
		t.Fatalf("exec.denied %v", ev)
	}
	if ev := execEvent(EventExecFinished); ev["output"] != "hi\n" || ev["exitCode"] != 0.0 || ev["success"] != true ||
		ev["command"] != "echo hi" {
		t.Fatalf("exec.finished %v", ev)
	}

	// Concurrent invocations are all answered.
	for i := range 20 {
		sendInvoke(t, conn, "p"+string(rune('a'+i)), CmdSystemWhich, `{"bins":["sh"]}`)
	}
	for i := range 20 {
		if res := rs.wait(t, "p"+string(rune('a'+i))); !res.OK {
			t.Fatalf("concurrent invoke %+v", res)
		}
	}
	waitFor(t, "two node.host.stats", func() bool { return stats.Load() >= 2 })

	// The gateway drops the socket: the node comes back and serves again.
	conn.Close(protocol.CloseServiceRestart, "restart")
	conn2 := onlyConn(t, srv, 2)
	if conn2 == conn {
		t.Fatal("no new connection")
	}
	if p := conn2.Connect().Params; p.Auth.Token != "shared" || p.Client.InstanceID != "node-id-1" {
		t.Fatalf("reconnect params %+v", p)
	}
	sendInvoke(t, conn2, "w2", CmdSystemWhich, `{"bins":["sh"]}`)
	if res := rs.wait(t, "w2"); !res.OK {
		t.Fatalf("after reconnect %+v", res)
	}
	if !strings.Contains(r.out.String(), "connection lost") {
		t.Fatalf("output %q", r.out.String())
	}

	r.stop(t)
	srv.Close()
	waitFor(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= base })
}

func TestStatsStopOnUnknownMethod(t *testing.T) {
	srv := clienttest.NewServer(t, clienttest.Config{}) // serves no node.event
	r := startHost(t, Config{URL: srv.URL(), StatsInterval: 10 * time.Millisecond})
	onlyConn(t, srv, 1)
	time.Sleep(150 * time.Millisecond) // ~15 periods: only the first event may go out
	count := func() int {
		n := 0
		for _, req := range srv.Requests() {
			if req.Method == "node.event" {
				n++
			}
		}
		return n
	}
	if n := count(); n != 1 {
		t.Fatalf("node.event sent %d times, want 1", n)
	}
	r.stop(t)
}

func TestPairingThenApproved(t *testing.T) {
	var refusals atomic.Int32
	srv := clienttest.NewServer(t, clienttest.Config{
		Token: "shared",
		Reject: func(p protocol.ConnectParams) *protocol.Error {
			if refusals.Add(1) > 3 {
				return nil
			}
			return protocol.Errorf(protocol.CodeNotPaired, "pairing required: not-paired").WithDetails(map[string]any{
				"code": protocol.DetailPairingRequired, "reason": "not-paired", "requestId": "req-42",
				"deviceId": p.Device.ID, "recommendedNextStep": "wait_then_retry", "retryable": true, "pauseReconnect": false,
			})
		},
	})
	srv.Handle("node.event", clienttest.Echo)
	r := startHost(t, Config{URL: srv.URL(), Token: "shared"})
	onlyConn(t, srv, 4)
	waitFor(t, "connected", r.h.Connected)
	out := r.out.String()
	if strings.Count(out, "approve with `openclaw devices approve req-42`") != 1 || !strings.Contains(out, "node connected") {
		t.Fatalf("output %q", out)
	}
}

func TestRevokedDeviceTokenStops(t *testing.T) {
	var revoked atomic.Bool
	srv := clienttest.NewServer(t, clienttest.Config{
		Hello: func(p protocol.ConnectParams, h *protocol.HelloOk) { h.Auth.DeviceToken = "dt-1" },
		Reject: func(p protocol.ConnectParams) *protocol.Error {
			if revoked.Load() && p.Auth != nil && p.Auth.DeviceToken == "dt-1" {
				return protocol.Errorf(protocol.CodeInvalidRequest, "unauthorized: device token mismatch").WithDetails(map[string]any{
					"code": protocol.DetailAuthDeviceTokenMismatch, "authReason": "device_token_mismatch"})
			}
			return nil
		},
	})
	srv.Handle("node.event", clienttest.Echo)
	dir := t.TempDir()
	first := startHost(t, Config{URL: srv.URL(), StateDir: dir})
	waitFor(t, "device token stored", func() bool { return first.h.state.token(srv.URL()) == "dt-1" })
	first.stop(t)
	waitFor(t, "first connection gone", func() bool { return len(srv.Conns()) == 0 })

	revoked.Store(true)
	second := startHost(t, Config{URL: srv.URL(), StateDir: dir})
	if err := second.result(t); !errors.Is(err, ErrAuthRefused) || !strings.Contains(err.Error(), "revoked") {
		t.Fatalf("Run = %v, want ErrAuthRefused (revoked)", err)
	}
	last, _ := srv.LastConnect()
	if last.Params.Auth == nil || last.Params.Auth.DeviceToken != "dt-1" {
		t.Fatalf("second connect did not use the stored token: %+v", last.Params.Auth)
	}
	if second.h.state.token(srv.URL()) != "" {
		t.Fatal("revoked token kept")
	}
	if n := len(srv.Connects()); n != 2 {
		t.Fatalf("%d connects, want 2 (no loop)", n)
	}
}

func TestWrongSharedSecretStops(t *testing.T) {
	srv := clienttest.NewServer(t, clienttest.Config{Token: "right"})
	r := startHost(t, Config{URL: srv.URL(), Token: "wrong"})
	if err := r.result(t); !errors.Is(err, ErrAuthRefused) || !strings.Contains(err.Error(), protocol.DetailAuthTokenMismatch) {
		t.Fatalf("Run = %v", err)
	}
	if !strings.Contains(r.out.String(), "node stopped") {
		t.Fatalf("output %q", r.out.String())
	}
}

func TestStoredTokenOnlyForItsGateway(t *testing.T) {
	a := clienttest.NewServer(t, clienttest.Config{Hello: func(_ protocol.ConnectParams, h *protocol.HelloOk) { h.Auth.DeviceToken = "for-a" }})
	b := clienttest.NewServer(t, clienttest.Config{})
	for _, s := range []*clienttest.Server{a, b} {
		s.Handle("node.event", clienttest.Echo)
	}
	dir := t.TempDir()
	ra := startHost(t, Config{URL: a.URL(), StateDir: dir})
	waitFor(t, "token", func() bool { return ra.h.state.token(a.URL()) == "for-a" })
	ra.stop(t)
	rb := startHost(t, Config{URL: b.URL(), StateDir: dir})
	onlyConn(t, b, 1)
	if last, _ := b.LastConnect(); last.Params.Auth != nil && last.Params.Auth.DeviceToken != "" {
		t.Fatalf("token of gateway a sent to gateway b: %+v", last.Params.Auth)
	}
	rb.stop(t)
}

func TestRetriesUnreachableGateway(t *testing.T) {
	srv := clienttest.NewServer(t, clienttest.Config{})
	url := srv.URL()
	srv.Close()
	r := startHost(t, Config{URL: url})
	time.Sleep(100 * time.Millisecond)
	select {
	case <-r.done:
		t.Fatalf("Run returned %v while the gateway was down", r.err)
	default:
	}
	r.stop(t)
}
