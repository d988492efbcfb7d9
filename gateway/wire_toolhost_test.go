package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// TestWireToolhost pins the wire shapes of the tool host's methods: the
// tools.* views, tools.invoke's success and TOOL_ERROR, the approvals,
// the exec approvals file and the audit, with their error texts.
func TestWireToolhost(t *testing.T) {
	r := startGateway(t, nil)
	admin, err := r.dial(t, r.token(t), "operator.admin")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	call := func(c *client.Client, method string, params any) any {
		t.Helper()
		var out any
		if err := c.Call(ctx, method, params, &out); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return out
	}
	callErr := func(c *client.Client, method string, params any) *protocol.Error {
		t.Helper()
		err := c.Call(ctx, method, params, nil)
		var pe *protocol.Error
		if !errors.As(err, &pe) {
			t.Fatalf("%s: want a protocol error, got %v", method, err)
		}
		return pe
	}
	errText := func(name string, pe *protocol.Error) {
		t.Helper()
		checkWire(t, name, map[string]any{"error": pe.Error(), "details": pe.Details})
	}

	checkWire(t, "tools.catalog", call(admin, "tools.catalog", map[string]any{}))
	checkWire(t, "tools.effective", call(admin, "tools.effective", map[string]any{}))
	checkWire(t, "tools.explain", call(admin, "tools.explain", map[string]any{"tool": "sessions_list"}))
	errText("tools.explain.unknown", callErr(admin, "tools.explain", map[string]any{"tool": "no_such_tool"}))
	errText("tools.catalog.unknown-agent", callErr(admin, "tools.catalog", map[string]any{"agentId": "nobody"}))
	checkWire(t, "tools.list", call(admin, "tools.list", map[string]any{}))
	checkWire(t, "tools.schemas", call(admin, "tools.schemas", map[string]any{}))
	checkWire(t, "tools.invoke", call(admin, "tools.invoke", map[string]any{"name": "sessions_list", "args": map[string]any{}}))
	checkWire(t, "tools.invoke.tool-error", call(admin, "tools.invoke", map[string]any{"name": "gateway", "args": map[string]any{"action": "restart"}}))
	errText("tools.invoke.no-name", callErr(admin, "tools.invoke", map[string]any{}))

	checkWire(t, "exec.approval.list", call(admin, "exec.approval.list", map[string]any{}))
	checkWire(t, "plugin.approval.list", call(admin, "plugin.approval.list", map[string]any{}))
	errText("approval.get.unknown", callErr(admin, "approval.get", map[string]any{"id": "nope"}))
	errText("exec.approval.waitDecision.unknown", callErr(admin, "exec.approval.waitDecision", map[string]any{"id": "nope"}))
	errText("exec.approval.resolve.unknown", callErr(admin, "exec.approval.resolve", map[string]any{"id": "nope", "decision": "deny"}))
	checkWire(t, "plugin.approval.resolve.unknown", call(admin, "plugin.approval.resolve", map[string]any{"id": "nope", "decision": "deny"}))

	got := call(admin, "exec.approvals.get", map[string]any{})
	checkWire(t, "exec.approvals.get", got)
	var snap struct {
		Hash string          `json:"hash"`
		File json.RawMessage `json:"file"`
	}
	b, _ := json.Marshal(got)
	if err := json.Unmarshal(b, &snap); err != nil {
		t.Fatal(err)
	}
	errText("exec.approvals.set.no-file", callErr(admin, "exec.approvals.set", map[string]any{"baseHash": snap.Hash}))
	stale := callErr(admin, "exec.approvals.set", map[string]any{"file": map[string]any{"version": 1}, "baseHash": "stale"})
	checkWire(t, "exec.approvals.set.stale", map[string]any{"error": stale.Error(), "details": stale.Details})
	checkWire(t, "exec.approvals.set", call(admin, "exec.approvals.set", map[string]any{
		"file": map[string]any{"version": 1, "defaults": map[string]any{"security": "allowlist"}}, "baseHash": snap.Hash}))

	checkWire(t, "audit.list", call(admin, "audit.list", map[string]any{}), "occurredAt")
	checkWire(t, "audit.list.limit", call(admin, "audit.list", map[string]any{"limit": 1}), "occurredAt")
	errText("audit.list.bad-kind", callErr(admin, "audit.list", map[string]any{"kind": "other"}))
	errText("audit.list.bad-status", callErr(admin, "audit.list", map[string]any{"status": "odd"}))

	// A writer's exec call is not the owner's: it waits for a person.
	writer, err := r.dial(t, r.token(t), "operator.write")
	if err != nil {
		t.Fatal(err)
	}
	invoked := make(chan any, 1)
	go func() {
		var out any
		if err := writer.Call(ctx, "tools.invoke", map[string]any{"name": "exec", "args": map[string]any{"command": "echo approved"}}, &out); err != nil {
			out = err.Error()
		}
		invoked <- out
	}()
	var list struct {
		Approvals []struct {
			ID string `json:"id"`
		} `json:"approvals"`
	}
	for i := 0; len(list.Approvals) == 0; i++ {
		if i == 200 {
			t.Fatal("no pending approval appeared")
		}
		time.Sleep(25 * time.Millisecond)
		b, _ := json.Marshal(call(admin, "exec.approval.list", map[string]any{}))
		json.Unmarshal(b, &list)
	}
	id := list.Approvals[0].ID
	checkWire(t, "exec.approval.list.pending", call(admin, "exec.approval.list", map[string]any{}))
	checkWire(t, "plugin.approval.list.pending", call(admin, "plugin.approval.list", map[string]any{}), "description")
	checkWire(t, "approval.get.pending", call(admin, "approval.get", map[string]any{"id": id}))
	checkWire(t, "exec.approval.waitDecision.pending", call(admin, "exec.approval.waitDecision", map[string]any{"id": id, "timeoutMs": 1}))
	decided := make(chan any, 1)
	go func() {
		var out any
		if err := admin.Call(ctx, "exec.approval.waitDecision", map[string]any{"id": id, "timeoutMs": 60000}, &out); err != nil {
			out = err.Error()
		}
		decided <- out
	}()
	checkWire(t, "exec.approval.resolve", call(admin, "exec.approval.resolve", map[string]any{"id": id[:8], "decision": "deny"}))
	checkWire(t, "exec.approval.waitDecision", <-decided)
	checkWire(t, "tools.invoke.denied", <-invoked)
	checkWire(t, "approval.get", call(admin, "approval.get", map[string]any{"id": id}))
}
