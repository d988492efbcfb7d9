package gateway

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/gateway/client"
)

// approvalWindow invokes DateTimeTool, which the config's guard sends to
// approval, and returns how long the announced request would wait
// (expiresAtMs − createdAtMs); the request is then denied.
func approvalWindow(t *testing.T, c *client.Client) int64 {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		done <- c.Call(context.Background(), "tools.invoke", map[string]any{"name": "DateTimeTool", "sessionKey": "agent:main:main"}, nil)
	}()
	ev := nextEvent(t, c, "exec.approval.requested", nil)
	created, _ := ev["createdAtMs"].(float64)
	expires, _ := ev["expiresAtMs"].(float64)
	call[map[string]any](t, c, "exec.approval.resolve", map[string]any{"id": ev["id"], "decision": "deny"})
	if err := <-done; err != nil {
		t.Fatalf("tools.invoke: %v", err)
	}
	return int64(expires - created)
}

// TestReloadAppliesToolSettings: settings the tools were built with at
// start (tools.guard.approvalTimeoutSeconds, tools.datasources) apply
// after a config change, without a restart.
func TestReloadAppliesToolSettings(t *testing.T) {
	r, c := startWithConfig(t, fakemodel.New(t), `tools: { guard: { approvalTimeoutSeconds: 120, rules: [{ tool: "DateTimeTool", action: "require_approval" }] } },`)
	if got := approvalWindow(t, c); got != 120_000 {
		t.Fatalf("approval window at start = %d ms, want 120000", got)
	}

	db := filepath.Join(t.TempDir(), "shop.sqlite")
	if err := os.WriteFile(db, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(r.config)
	if err != nil {
		t.Fatal(err)
	}
	ds := `, datasources: [{ name: "shop", dsn: ` + jsonString(db) + ` }]`
	next := strings.Replace(string(raw), "approvalTimeoutSeconds: 120", "approvalTimeoutSeconds: 45", 1)
	next = strings.Replace(next, `action: "require_approval" }] }`, `action: "require_approval" }] }`+ds, 1)
	if next == string(raw) {
		t.Fatal("test config not edited")
	}
	call[map[string]any](t, c, "config.apply", map[string]any{"raw": next}) // applied before it answers

	if got := approvalWindow(t, c); got != 45_000 {
		t.Errorf("approval window after reload = %d ms, want 45000", got)
	}
	res := call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "DatasourceTool", "sessionKey": "agent:main:main", "args": map[string]any{"action": "list"}})
	if out, _ := res["output"].(string); res["ok"] != true || !strings.Contains(out, `"name":"shop"`) {
		t.Errorf("DatasourceTool after reload = %v, want the datasource shop", res)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
