package nodes

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

var headlessCommands = []string{"system.run", "system.run.prepare", "system.which", "system.execApprovals.get", "camera.snap", "file.fetch"}

func whichNode(command string, params json.RawMessage) answer {
	var p struct{ Bins []string }
	json.Unmarshal(params, &p)
	bins := map[string]string{}
	for _, b := range p.Bins {
		bins[b] = "/usr/bin/" + b
	}
	return answer{payload: map[string]any{"bins": bins}}
}

func TestListAndInvoke(t *testing.T) {
	g := startGateway(t, Policy{})
	n := g.node(t, "box", headlessCommands, whichNode)
	op := g.operator(t, protocol.ScopeWrite)
	ctx := ctx5s(t)

	var list listResult
	if err := op.Call(ctx, "node.list", map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Nodes) != 1 {
		t.Fatalf("node.list = %+v, want one node", list)
	}
	got := list.Nodes[0]
	wantCmds := []string{"system.run", "system.run.prepare", "system.which", "system.execApprovals.get"}
	if got.NodeID != n.id || got.DisplayName != "box" || !got.Connected || !got.Paired || got.Platform != "linux" ||
		!slices.Equal(got.Commands, wantCmds) || !slices.Equal(got.DeclaredCommands, headlessCommands) ||
		got.PathEnv != "/usr/bin:/bin" || got.RemoteIP != "127.0.0.1" || got.ConnectedAtMs == 0 || got.ClientID != "node-host" {
		t.Fatalf("node.list entry = %+v", got)
	}

	var res struct {
		OK          bool            `json:"ok"`
		NodeID      string          `json:"nodeId"`
		Command     string          `json:"command"`
		Payload     json.RawMessage `json:"payload"`
		PayloadJSON *string         `json:"payloadJSON"`
	}
	err := op.Call(ctx, "node.invoke", map[string]any{"nodeId": n.id, "command": "system.which",
		"params": map[string]any{"bins": []string{"sh"}}, "idempotencyKey": "k1", "timeoutMs": 5000}, &res)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || res.NodeID != n.id || res.Command != "system.which" || string(res.Payload) != `{"bins":{"sh":"/usr/bin/sh"}}` ||
		res.PayloadJSON == nil || *res.PayloadJSON != string(res.Payload) {
		t.Fatalf("node.invoke = %+v (payload %s)", res, res.Payload)
	}
	req := n.lastRequest()
	if req["paramsJSON"] != `{"bins":["sh"]}` || req["idempotencyKey"] != "k1" || req["nodeId"] != n.id || req["timeoutMs"] != float64(5000) {
		t.Fatalf("node.invoke.request = %v", req)
	}

	// The Go API: what the exec host=node path uses.
	payload, err := g.reg.Invoke(ctx, n.id, "system.which", map[string]any{"bins": []string{"ls"}}, time.Second)
	if err != nil || string(payload) != `{"bins":{"ls":"/usr/bin/ls"}}` {
		t.Fatalf("Invoke = %s, %v", payload, err)
	}
	if _, err := g.reg.Invoke(ctx, n.id, "system.run", map[string]any{"command": []string{"true"}}, time.Second); err != nil {
		t.Fatalf("Invoke system.run through the Go API: %v", err)
	}
}

func TestInvokeRefusals(t *testing.T) {
	g := startGateway(t, Policy{Deny: []string{"system.execApprovals.get"}})
	n := g.node(t, "box", headlessCommands, whichNode)
	writer := g.operator(t, protocol.ScopeWrite)
	reader := g.operator(t, protocol.ScopeRead)
	ctx := ctx5s(t)
	calls := 0
	invoke := func(c *client.Client, nodeID, command string) error {
		calls++ // a fresh key each time: the bus replays a repeated key's answer
		return c.Call(ctx, "node.invoke", map[string]any{"nodeId": nodeID, "command": command, "params": map[string]any{}, "idempotencyKey": fmt.Sprint("k", calls)}, nil)
	}
	tests := []struct {
		name, nodeID, command string
		c                     *client.Client
		code, detail          string
	}{
		{"read scope", n.id, "system.which", reader, protocol.CodeForbidden, protocol.DetailMissingScope},
		{"system.run", n.id, "system.run", writer, protocol.CodeInvalidRequest, protocol.DetailApprovalRequired},
		{"system.run.prepare", n.id, "system.run.prepare", writer, protocol.CodeInvalidRequest, protocol.DetailApprovalRequired},
		{"exec approvals over invoke", n.id, "system.execApprovals.get", writer, protocol.CodeInvalidRequest, protocol.DetailCommandNotAllowed},
		{"undeclared", n.id, "system.notify", writer, protocol.CodeInvalidRequest, protocol.DetailCommandNotAllowed},
		{"dangerous", n.id, "camera.snap", writer, protocol.CodeInvalidRequest, protocol.DetailCommandNotAllowed},
		{"not allowlisted", n.id, "file.fetch", writer, protocol.CodeInvalidRequest, protocol.DetailCommandNotAllowed},
		{"admin-only browser proxy", n.id, "browser.proxy", writer, protocol.CodeForbidden, protocol.DetailMissingScope},
		{"offline node", "no-such-node", "system.which", writer, protocol.CodeUnavailable, protocol.DetailNotConnected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantErr(t, invoke(tt.c, tt.nodeID, tt.command), tt.code, tt.detail)
		})
	}
	// Deny applies to the Go API too.
	_, err := g.reg.Invoke(ctx, n.id, "system.execApprovals.get", nil, time.Second)
	pe := wantErr(t, err, protocol.CodeInvalidRequest, protocol.DetailCommandNotAllowed)
	if pe.Details.(map[string]any)["reason"] != "denied" {
		t.Fatalf("deny reason: %v", pe.Details)
	}
	// A config change applies to the next invoke.
	g.policy.Store(&Policy{Allow: []string{"file.fetch"}})
	if err := invoke(writer, n.id, "file.fetch"); err != nil {
		t.Fatalf("file.fetch after allowing it: %v", err)
	}
	if n.requests.Load() != 1 {
		t.Fatalf("node got %d requests, want only the allowed one", n.requests.Load())
	}
}

func TestInvokeTimeoutAndNodeError(t *testing.T) {
	g := startGateway(t, Policy{})
	n := g.node(t, "slow", []string{"system.which", "system.run"}, func(command string, _ json.RawMessage) answer {
		if command == "system.run" {
			return answer{err: protocol.Errorf("SYSTEM_RUN_DENIED", "denied by policy")}
		}
		return answer{drop: true}
	})
	op := g.operator(t, protocol.ScopeWrite)
	ctx := ctx5s(t)
	start := time.Now()
	err := op.Call(ctx, "node.invoke", map[string]any{"nodeId": n.id, "command": "system.which", "timeoutMs": 150, "idempotencyKey": "t1"}, nil)
	wantErr(t, err, protocol.CodeUnavailable, protocol.DetailTimeout)
	if time.Since(start) > 3*time.Second {
		t.Fatalf("timeout took %v", time.Since(start))
	}
	_, err = g.reg.Invoke(ctx, n.id, "system.run", map[string]any{"command": []string{"id"}}, time.Second)
	pe := wantErr(t, err, protocol.CodeUnavailable, protocol.DetailNodeError)
	if ne, _ := pe.Details.(map[string]any)["nodeError"].(map[string]string); ne["code"] != "SYSTEM_RUN_DENIED" {
		t.Fatalf("nodeError = %v", pe.Details)
	}
	if pe.Message != "denied by policy" {
		t.Fatalf("message = %q", pe.Message)
	}
}

func TestNodeDisconnectFailsInvoke(t *testing.T) {
	g := startGateway(t, Policy{})
	got := make(chan struct{})
	var once sync.Once
	n := g.node(t, "leaving", []string{"system.which"}, func(string, json.RawMessage) answer {
		once.Do(func() { close(got) })
		return answer{drop: true}
	})
	op := g.operator(t, protocol.ScopeWrite)
	ctx := ctx5s(t)
	errc := make(chan error, 1)
	go func() {
		errc <- op.Call(ctx, "node.invoke", map[string]any{"nodeId": n.id, "command": "system.which", "timeoutMs": 30000, "idempotencyKey": "d1"}, nil)
	}()
	<-got
	n.c.Close()
	pe := wantErr(t, <-errc, protocol.CodeUnavailable, protocol.DetailNotConnected)
	if pe.Message != "node disconnected during invoke" {
		t.Fatalf("message = %q", pe.Message)
	}
	waitFor(t, func() bool { return !g.reg.Connected(n.id) })
	err := op.Call(ctx, "node.invoke", map[string]any{"nodeId": n.id, "command": "system.which", "idempotencyKey": "d2"}, nil)
	wantErr(t, err, protocol.CodeUnavailable, protocol.DetailNotConnected)

	var list listResult
	if err := op.Call(ctx, "node.list", nil, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Nodes) != 1 || list.Nodes[0].Connected || list.Nodes[0].LastSeenReason != "disconnect" {
		t.Fatalf("node.list after disconnect = %+v", list.Nodes)
	}
}

func TestInvokeResultRefused(t *testing.T) {
	g := startGateway(t, Policy{})
	held := make(chan map[string]any, 1)
	a := g.node(t, "a", []string{"system.which"}, func(string, json.RawMessage) answer { return answer{drop: true} })
	b := g.node(t, "b", []string{"system.which"}, nil)
	op := g.operator(t, protocol.ScopeAdmin)
	ctx := ctx5s(t)

	// An operator may not answer an invoke.
	err := op.Call(ctx, "node.invoke.result", map[string]any{"id": "x", "nodeId": a.id, "ok": true}, nil)
	if pe, ok := err.(*protocol.Error); !ok || pe.Code != protocol.CodeInvalidRequest || pe.Message != "unauthorized role: operator" {
		t.Fatalf("operator node.invoke.result: %v", err)
	}
	for _, m := range []string{"node.event", "node.invoke.progress", "skills.bins"} {
		if err := op.Call(ctx, m, map[string]any{}, nil); err == nil {
			t.Fatalf("operator %s succeeded", m)
		}
	}

	errc := make(chan error, 1)
	go func() {
		_, err := g.reg.Invoke(ctx, a.id, "system.which", map[string]any{"bins": []string{"sh"}}, 5*time.Second)
		errc <- err
	}()
	waitFor(t, func() bool { return a.lastRequest() != nil })
	held <- a.lastRequest()
	req := <-held
	id := req["id"].(string)

	// Node b answers a's invoke: refused, and a's invoke keeps waiting.
	err = b.c.Call(ctx, "node.invoke.result", map[string]any{"id": id, "nodeId": a.id, "ok": true, "payloadJSON": `{"x":1}`}, nil)
	wantErr(t, err, protocol.CodeForbidden, "")
	err = b.c.Call(ctx, "node.invoke.result", map[string]any{"id": "no-such-id", "nodeId": b.id, "ok": true}, nil)
	wantErr(t, err, protocol.CodeInvalidRequest, protocol.DetailUnknownInvoke)
	select {
	case err := <-errc:
		t.Fatalf("invoke finished early: %v", err)
	default:
	}
	// a itself answers: accepted.
	if err := a.c.Call(ctx, "node.invoke.result", map[string]any{"id": id, "nodeId": a.id, "ok": true, "payload": map[string]any{"bins": map[string]string{}}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	// A second answer for the same id is unknown now.
	err = a.c.Call(ctx, "node.invoke.result", map[string]any{"id": id, "nodeId": a.id, "ok": true}, nil)
	wantErr(t, err, protocol.CodeInvalidRequest, protocol.DetailUnknownInvoke)
}

func TestIdempotentInvokeJoins(t *testing.T) {
	g := startGateway(t, Policy{})
	release := make(chan struct{})
	n := g.node(t, "n", []string{"system.which"}, func(c string, p json.RawMessage) answer {
		<-release
		return whichNode(c, p)
	})
	ctx := ctx5s(t)
	var wg sync.WaitGroup
	results := make([]string, 3)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := g.reg.Do(ctx, InvokeRequest{NodeID: n.id, Command: "system.which", Params: map[string]any{"bins": []string{"sh"}}, IdempotencyKey: "same"})
			if err != nil {
				results[i] = err.Error()
				return
			}
			results[i] = string(res.Payload)
		}()
	}
	waitFor(t, func() bool {
		g.reg.mu.Lock()
		defer g.reg.mu.Unlock()
		inv := g.reg.inflight[n.id+"\x00same"]
		return inv != nil && inv.waiters == 3
	})
	close(release)
	wg.Wait()
	for _, r := range results {
		if r != `{"bins":{"sh":"/usr/bin/sh"}}` {
			t.Fatalf("results = %v", results)
		}
	}
	if n.requests.Load() != 1 {
		t.Fatalf("node got %d requests for one idempotency key", n.requests.Load())
	}
}

func TestInvokeCallerGivesUp(t *testing.T) {
	g := startGateway(t, Policy{})
	n := g.node(t, "n", []string{"system.which"}, func(string, json.RawMessage) answer { return answer{drop: true} })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := g.reg.Invoke(ctx, n.id, "system.which", nil, time.Minute); err == nil {
		t.Fatal("invoke with an ended context succeeded")
	}
	g.reg.mu.Lock()
	left := len(g.reg.pending)
	g.reg.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d invokes left pending after the caller gave up", left)
	}
	if _, ok := n.lastRequest()["paramsJSON"]; ok {
		t.Fatalf("nil params sent paramsJSON: %v", n.lastRequest())
	}
}

func TestRenameDescribeAndPresence(t *testing.T) {
	g := startGateway(t, Policy{})
	op := g.operator(t, protocol.ScopeAdmin)
	id, _ := client.NewDeviceIdentity()
	n := g.nodeWith(t, id, "declared", []string{"system.which"}, nil)
	ctx := ctx5s(t)
	waitPresence(t, op, n.id, "connect")

	var renamed map[string]any
	if err := op.Call(ctx, "node.rename", map[string]any{"nodeId": n.id, "displayName": "Build box"}, &renamed); err != nil {
		t.Fatal(err)
	}
	if renamed["displayName"] != "Build box" {
		t.Fatalf("node.rename = %v", renamed)
	}
	waitPresence(t, op, n.id, "rename")
	err := op.Call(ctx, "node.rename", map[string]any{"nodeId": "nope", "displayName": "x"}, nil)
	wantErr(t, err, protocol.CodeInvalidRequest, protocol.DetailUnknownNode)
	err = op.Call(ctx, "node.rename", map[string]any{"nodeId": n.id, "displayName": "  "}, nil)
	wantErr(t, err, protocol.CodeInvalidRequest, "")

	// The name outlives a reconnect; the registry keeps one entry.
	n.c.Close()
	waitPresence(t, op, n.id, "disconnect")
	n2 := g.nodeWith(t, id, "declared", []string{"system.which", "system.run"}, nil)
	var d Node
	if err := op.Call(ctx, "node.describe", map[string]any{"nodeId": n2.id}, &d); err != nil {
		t.Fatal(err)
	}
	if d.DisplayName != "Build box" || !d.Connected || !slices.Equal(d.Commands, []string{"system.which", "system.run"}) {
		t.Fatalf("node.describe after reconnect = %+v", d)
	}
	err = op.Call(ctx, "node.describe", map[string]any{"nodeId": "nope"}, nil)
	wantErr(t, err, protocol.CodeInvalidRequest, protocol.DetailUnknownNode)
	if list := g.reg.List(ctx); len(list) != 1 {
		t.Fatalf("List = %+v", list)
	}

	var pairs struct {
		Pending []any  `json:"pending"`
		Paired  []Node `json:"paired"`
	}
	if err := op.Call(ctx, "node.pair.list", map[string]any{}, &pairs); err != nil {
		t.Fatal(err)
	}
	if len(pairs.Pending) != 0 || len(pairs.Paired) != 1 {
		t.Fatalf("node.pair.list = %+v", pairs)
	}
	err = op.Call(ctx, "node.pair.remove", map[string]any{"nodeId": n2.id}, nil)
	wantErr(t, err, protocol.CodeInvalidRequest, "")
}

// waitPresence reads operator events until a node.presence for nodeID
// with reason arrives.
func waitPresence(t *testing.T, op *client.Client, nodeID, reason string) {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev := <-op.Events():
			if ev.Event != EventPresence {
				continue
			}
			var p map[string]any
			json.Unmarshal(ev.Payload, &p)
			if p["nodeId"] == nodeID && p["reason"] == reason {
				return
			}
		case <-timeout:
			t.Fatalf("no node.presence %s for %s", reason, nodeID)
		}
	}
}

func TestNodeEvents(t *testing.T) {
	g := startGateway(t, Policy{})
	n := g.node(t, "n", []string{"system.run"}, nil)
	approver := g.operator(t, protocol.ScopeApprovals)
	ctx := ctx5s(t)
	call := func(method string, params any) map[string]any {
		t.Helper()
		var out map[string]any
		if err := n.c.Call(ctx, method, params, &out); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return out
	}
	if r := call("node.event", map[string]any{"event": "node.host.stats", "payloadJSON": `{"cpuCount":4}`}); r["handled"] != true || r["ok"] != true || r["event"] != "node.host.stats" {
		t.Fatalf("node.host.stats = %v", r)
	}
	d, err := g.reg.Describe(ctx, n.id)
	if err != nil || string(d.HostStats) != `{"cpuCount":4}` {
		t.Fatalf("hostStats = %s, %v", d.HostStats, err)
	}
	if r := call("node.event", map[string]any{"event": "something.else", "payload": map[string]any{}}); r["handled"] != false || r["ok"] != true {
		t.Fatalf("unknown event = %v", r)
	}
	for _, m := range []string{"node.runnerInventory.update", "node.pluginTools.update"} {
		if r := call(m, map[string]any{"tools": []any{}}); r["ok"] != true {
			t.Fatalf("%s = %v", m, r)
		}
	}
	if r := call("node.skills.update", map[string]any{"skills": []any{}}); r["ok"] != true {
		t.Fatalf("node.skills.update = %v", r)
	}
	if r := call("skills.bins", map[string]any{}); r["bins"] == nil {
		t.Fatalf("skills.bins = %v", r)
	}
	call("node.event", map[string]any{"event": "exec.finished", "payloadJSON": `{"runId":"r1","exitCode":0,"success":true}`})
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev := <-approver.Events():
			if ev.Event != "exec.finished" {
				continue
			}
			var p map[string]any
			json.Unmarshal(ev.Payload, &p)
			if p["runId"] != "r1" || p["nodeId"] != n.id {
				t.Fatalf("exec.finished = %v", p)
			}
			return
		case <-timeout:
			t.Fatal("no exec.finished rebroadcast")
		}
	}
}

func TestEventScopes(t *testing.T) {
	if !protocol.EventVisible("exec.finished", protocol.RoleOperator, []string{string(protocol.ScopeApprovals)}) {
		t.Error("exec.finished hidden from approvers")
	}
	if protocol.EventVisible("exec.denied", protocol.RoleOperator, []string{string(protocol.ScopeRead)}) {
		t.Error("exec.denied shown to readers")
	}
	if protocol.EventVisible(EventPresence, protocol.RoleNode, nil) {
		t.Error("node.presence shown to nodes")
	}
}
