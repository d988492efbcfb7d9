package nodes

import (
	"encoding/json"
	"io/fs"
	"net/netip"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

func TestSurfaceWider(t *testing.T) {
	approved := surface{Commands: []string{"system.which", "system.notify"}, Caps: []string{"system"}, Permissions: []string{"camera"}}
	tests := []struct {
		name string
		want surface
		wide bool
	}{
		{"same", approved, false},
		{"narrower", surface{Commands: []string{"system.which"}}, false},
		{"empty", surface{}, false},
		{"new command", surface{Commands: []string{"system.which", "system.run"}}, true},
		{"new cap", surface{Caps: []string{"system", "canvas"}}, true},
		{"new permission", surface{Permissions: []string{"camera", "location"}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.want.widerThan(approved); got != tc.wide {
				t.Fatalf("widerThan = %v, want %v", got, tc.wide)
			}
		})
	}
}

func TestPairingPolicyAutoApproves(t *testing.T) {
	lan := netip.MustParsePrefix("192.168.1.0/24")
	tests := []struct {
		name   string
		policy PairingPolicy
		hello  Hello
		want   bool
	}{
		{"local with autoApproveLocal", PairingPolicy{AutoApproveLocal: true}, Hello{Local: true, RemoteIP: netip.MustParseAddr("127.0.0.1")}, true},
		{"local without autoApproveLocal", PairingPolicy{}, Hello{Local: true, RemoteIP: netip.MustParseAddr("127.0.0.1")}, false},
		{"remote with autoApproveLocal", PairingPolicy{AutoApproveLocal: true}, Hello{RemoteIP: netip.MustParseAddr("192.168.1.7")}, false},
		{"in an autoApproveCidrs range", PairingPolicy{AutoApproveCIDRs: []netip.Prefix{lan}}, Hello{RemoteIP: netip.MustParseAddr("192.168.1.7")}, true},
		{"v4-mapped in range", PairingPolicy{AutoApproveCIDRs: []netip.Prefix{lan}}, Hello{RemoteIP: netip.MustParseAddr("::ffff:192.168.1.7")}, true},
		{"outside the range", PairingPolicy{AutoApproveCIDRs: []netip.Prefix{lan}}, Hello{RemoteIP: netip.MustParseAddr("10.0.0.1")}, false},
		{"no address", PairingPolicy{AutoApproveCIDRs: []netip.Prefix{lan}}, Hello{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.policy.autoApproves(tc.hello); got != tc.want {
				t.Fatalf("autoApproves = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestApproveScope(t *testing.T) {
	tests := []struct {
		name     string
		commands []string
		want     protocol.Scope
	}{
		{"commandless", nil, protocol.ScopeNone},
		{"ordinary", []string{"system.notify", "canvas.present"}, protocol.ScopeWrite},
		{"runs programs", []string{"system.notify", "system.which"}, protocol.ScopeAdmin},
		{"reaches files", []string{"fs.listDir"}, protocol.ScopeAdmin},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := approveScope(PairRequest{Commands: tc.commands}); got != tc.want {
				t.Fatalf("approveScope = %q, want %q", got, tc.want)
			}
		})
	}
}

// connected waits until the registry announced n connects of nodeID; a
// node.pair.requested of a connect is broadcast before its presence.
func (g *testGateway) connected(t *testing.T, nodeID string, n int) {
	t.Helper()
	waitFor(t, func() bool {
		got := 0
		for _, p := range g.broadcasts(EventPresence) {
			if m := p.(map[string]any); m["nodeId"] == nodeID && m["reason"] == "connect" {
				got++
			}
		}
		return got >= n
	})
}

func (g *testGateway) pairList(t *testing.T, op *client.Client) (pending []PairRequest, paired []PairedNode) {
	t.Helper()
	var res struct {
		Pending []PairRequest `json:"pending"`
		Paired  []PairedNode  `json:"paired"`
	}
	if err := op.Call(ctx5s(t), "node.pair.list", map[string]any{}, &res); err != nil {
		t.Fatal(err)
	}
	return res.Pending, res.Paired
}

func describe(t *testing.T, op *client.Client, nodeID string) Node {
	t.Helper()
	var d Node
	if err := op.Call(ctx5s(t), "node.describe", map[string]any{"nodeId": nodeID}, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func invoke(t *testing.T, op *client.Client, nodeID, command string) error {
	t.Helper()
	return op.Call(ctx5s(t), "node.invoke", map[string]any{"nodeId": nodeID, "command": command, "idempotencyKey": command + time.Now().String()}, nil)
}

// TestFirstNodeNeedsApproval: without auto-approval a new node invokes
// nothing until its request is approved; approval applies to the live
// connection at once.
func TestFirstNodeNeedsApproval(t *testing.T) {
	g := startGateway(t, Policy{})
	g.pairing.Store(&PairingPolicy{})
	op := g.operator(t, protocol.ScopeAdmin)
	n := g.node(t, "fresh", []string{"system.which", "system.notify"}, nil)
	g.connected(t, n.id, 1)

	reqs := g.broadcasts(EventPairRequested)
	if len(reqs) != 1 {
		t.Fatalf("node.pair.requested broadcasts = %v", reqs)
	}
	ev := reqs[0].(PairRequest)
	if ev.RequestID == "" || ev.NodeID != n.id || ev.DisplayName != "fresh" || ev.Platform != "linux" || ev.IsRepair ||
		!slices.Equal(ev.Commands, []string{"system.which", "system.notify"}) || !slices.Equal(ev.Caps, []string{"system"}) {
		t.Fatalf("node.pair.requested = %+v", ev)
	}
	d := describe(t, op, n.id)
	if d.ApprovalState != "pending" || d.PairingRequestID != ev.RequestID || len(d.Commands) != 0 || len(d.DeclaredCommands) != 2 {
		t.Fatalf("node.describe while pending = %+v", d)
	}
	err := invoke(t, op, n.id, "system.notify")
	pe := wantErr(t, err, protocol.CodeInvalidRequest, protocol.DetailCommandNotAllowed)
	if pe.Details.(map[string]any)["reason"] != "not-approved" {
		t.Fatalf("refusal details = %v", pe.Details)
	}
	if n.requests.Load() != 0 {
		t.Fatal("an unapproved command reached the node")
	}
	pending, paired := g.pairList(t, op)
	if len(pending) != 1 || pending[0].RequestID != ev.RequestID || len(paired) != 0 {
		t.Fatalf("node.pair.list = %+v / %+v", pending, paired)
	}

	// Commands that run programs need operator.admin beside pairing.
	pairer := g.operator(t, protocol.ScopePairing, protocol.ScopeWrite)
	err = pairer.Call(ctx5s(t), "node.pair.approve", map[string]any{"requestId": ev.RequestID}, nil)
	wantErr(t, err, protocol.CodeForbidden, protocol.DetailMissingScope)

	var res map[string]any
	if err := op.Call(ctx5s(t), "node.pair.approve", map[string]any{"requestId": ev.RequestID}, &res); err != nil {
		t.Fatal(err)
	}
	if res["requestId"] != ev.RequestID || res["nodeId"] != n.id || res["decision"] != "approved" {
		t.Fatalf("node.pair.approve = %v", res)
	}
	resolved := g.broadcasts(EventPairResolved)
	if len(resolved) != 1 {
		t.Fatalf("node.pair.resolved broadcasts = %v", resolved)
	}
	if m := resolved[0].(map[string]any); m["requestId"] != ev.RequestID || m["nodeId"] != n.id || m["decision"] != "approved" || m["ts"] == nil {
		t.Fatalf("node.pair.resolved = %v", m)
	}
	if err := invoke(t, op, n.id, "system.notify"); err != nil {
		t.Fatalf("invoke after approval: %v", err)
	}
	d = describe(t, op, n.id)
	if d.ApprovalState != "approved" || d.PairingRequestID != "" || !slices.Equal(d.Commands, []string{"system.which", "system.notify"}) {
		t.Fatalf("node.describe after approval = %+v", d)
	}
	pending, paired = g.pairList(t, op)
	if len(pending) != 0 || len(paired) != 1 || paired[0].NodeID != n.id || !paired[0].Connected || paired[0].ApprovedAtMs == 0 ||
		!slices.Equal(paired[0].Commands, []string{"system.which", "system.notify"}) {
		t.Fatalf("node.pair.list after approval = %+v / %+v", pending, paired)
	}

	// A request is resolved once.
	for _, m := range []string{"node.pair.approve", "node.pair.reject"} {
		err = op.Call(ctx5s(t), m, map[string]any{"requestId": ev.RequestID}, nil)
		wantErr(t, err, protocol.CodeInvalidRequest, protocol.DetailUnknownRequest)
	}
	err = op.Call(ctx5s(t), "node.pair.approve", map[string]any{"requestId": " "}, nil)
	wantErr(t, err, protocol.CodeInvalidRequest, "")
}

// TestWiderSurfaceOnReconnect: an approved node that comes back with more
// keeps what was approved; retries keep one request; reject leaves the
// approved surface as it was.
func TestWiderSurfaceOnReconnect(t *testing.T) {
	g := startGateway(t, Policy{})
	op := g.operator(t, protocol.ScopeAdmin)
	id, _ := client.NewDeviceIdentity()
	n := g.nodeWith(t, id, "box", []string{"system.which"}, nil)
	g.connected(t, n.id, 1)
	if reqs := g.broadcasts(EventPairRequested); len(reqs) != 0 {
		t.Fatalf("auto-approved local node broadcast %v", reqs)
	}
	if d := describe(t, op, n.id); d.ApprovalState != "approved" {
		t.Fatalf("auto-approved node = %+v", d)
	}

	g.pairing.Store(&PairingPolicy{})
	wider := []string{"system.which", "system.notify"}
	var requestID string
	for i := 2; i <= 3; i++ {
		n.c.Close()
		waitFor(t, func() bool { return !g.reg.Connected(n.id) })
		n = g.nodeWith(t, id, "box", wider, nil)
		g.connected(t, n.id, i)
		reqs := g.broadcasts(EventPairRequested)
		if len(reqs) != 1 {
			t.Fatalf("connect %d: node.pair.requested broadcasts = %v", i, reqs)
		}
		q := reqs[0].(PairRequest)
		if !q.IsRepair || !slices.Equal(q.Commands, wider) {
			t.Fatalf("repair request = %+v", q)
		}
		pending, _ := g.pairList(t, op)
		if len(pending) != 1 || pending[0].RequestID != q.RequestID {
			t.Fatalf("connect %d: pending = %+v", i, pending)
		}
		requestID = q.RequestID
	}
	if err := invoke(t, op, n.id, "system.which"); err != nil {
		t.Fatalf("approved command while a wider request waits: %v", err)
	}
	err := invoke(t, op, n.id, "system.notify")
	wantErr(t, err, protocol.CodeInvalidRequest, protocol.DetailCommandNotAllowed)

	var res map[string]any
	if err := op.Call(ctx5s(t), "node.pair.reject", map[string]any{"requestId": requestID}, &res); err != nil {
		t.Fatal(err)
	}
	resolved := g.broadcasts(EventPairResolved)
	if res["decision"] != "rejected" || len(resolved) != 1 || resolved[0].(map[string]any)["decision"] != "rejected" {
		t.Fatalf("node.pair.reject = %v, broadcasts %v", res, resolved)
	}
	if err := invoke(t, op, n.id, "system.which"); err != nil {
		t.Fatalf("approved command after reject: %v", err)
	}
	err = invoke(t, op, n.id, "system.notify")
	wantErr(t, err, protocol.CodeInvalidRequest, protocol.DetailCommandNotAllowed)
	if d := describe(t, op, n.id); d.ApprovalState != "approved" || !slices.Equal(d.Commands, []string{"system.which"}) {
		t.Fatalf("node.describe after reject = %+v", d)
	}

	// A different surface supersedes the request with a new id.
	n.c.Close()
	waitFor(t, func() bool { return !g.reg.Connected(n.id) })
	n = g.nodeWith(t, id, "box", []string{"system.which", "system.run"}, nil)
	g.connected(t, n.id, 4)
	reqs := g.broadcasts(EventPairRequested)
	if len(reqs) != 2 || reqs[1].(PairRequest).RequestID == requestID {
		t.Fatalf("requests after a new surface = %+v", reqs)
	}
}

// TestPairRequestExpires: a request lives PendingTTL after the node's
// last retry; then it is gone from the list and cannot be approved.
func TestPairRequestExpires(t *testing.T) {
	g := startGateway(t, Policy{})
	g.pairing.Store(&PairingPolicy{})
	op := g.operator(t, protocol.ScopeAdmin)
	n := g.node(t, "late", []string{"system.which"}, nil)
	g.connected(t, n.id, 1)
	q := g.broadcasts(EventPairRequested)[0].(PairRequest)

	g.skew.Store(int64(PendingTTL - time.Second))
	if pending, _ := g.pairList(t, op); len(pending) != 1 {
		t.Fatalf("pending before expiry = %+v", pending)
	}
	g.skew.Store(int64(PendingTTL + time.Second))
	if pending, _ := g.pairList(t, op); len(pending) != 0 {
		t.Fatalf("pending after expiry = %+v", pending)
	}
	if d := describe(t, op, n.id); d.ApprovalState != "unapproved" || len(d.Commands) != 0 {
		t.Fatalf("node.describe after expiry = %+v", d)
	}
	err := op.Call(ctx5s(t), "node.pair.approve", map[string]any{"requestId": q.RequestID}, nil)
	wantErr(t, err, protocol.CodeInvalidRequest, protocol.DetailUnknownRequest)
}

// TestPolicyAppliesOverApproval: approving a surface does not lift the
// command policy (dangerous commands, deny).
func TestPolicyAppliesOverApproval(t *testing.T) {
	g := startGateway(t, Policy{Deny: []string{"system.notify"}})
	op := g.operator(t, protocol.ScopeAdmin)
	n := g.node(t, "cam", []string{"system.which", "system.notify", "camera.snap"}, func(string, json.RawMessage) answer {
		return answer{payload: map[string]any{"ok": true}}
	})
	g.connected(t, n.id, 1)
	if d := describe(t, op, n.id); d.ApprovalState != "approved" || !slices.Equal(d.Commands, []string{"system.which"}) {
		t.Fatalf("node.describe = %+v", d)
	}
	for cmd, reason := range map[string]string{"camera.snap": "dangerous", "system.notify": "denied"} {
		pe := wantErr(t, invoke(t, op, n.id, cmd), protocol.CodeInvalidRequest, protocol.DetailCommandNotAllowed)
		if got := pe.Details.(map[string]any)["reason"]; got != reason {
			t.Fatalf("%s refused for %v, want %s", cmd, got, reason)
		}
	}
	if err := invoke(t, op, n.id, "system.which"); err != nil {
		t.Fatal(err)
	}
}

// TestMigrationKeepsKnownNodes: nodes remembered before the pairing layer
// keep the commands they could invoke, with nothing pending.
func TestMigrationKeepsKnownNodes(t *testing.T) {
	ctx := ctx5s(t)
	path := storetest.Place(t)
	first, err := fs.ReadFile(migrationFiles, "migrations/001_nodes.sql")
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.OpenAt(t, path, store.Migrations{Component: "nodes", FS: fstest.MapFS{"001_nodes.sql": {Data: first}}})
	_, err = st.DB.ExecContext(ctx, `INSERT INTO nodes (node_id, platform, caps, commands, approved_commands, first_seen_at)
		VALUES ('old', 'linux', '["system"]', '["system.which","camera.snap"]', '["system.which"]', 1000)`)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	st = storetest.OpenAt(t, path, Migrations())
	defer st.Close()
	reg := New(Options{DB: st.DB})
	d, err := reg.Describe(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	if d.ApprovalState != "approved" || !slices.Equal(d.Commands, []string{"system.which"}) {
		t.Fatalf("migrated node = %+v", d)
	}
	paired, err := reg.Paired(ctx)
	if err != nil || len(paired) != 1 || paired[0].ApprovedAtMs != 1000 || !slices.Equal(paired[0].Caps, []string{"system"}) {
		t.Fatalf("Paired = %+v, %v", paired, err)
	}
}
