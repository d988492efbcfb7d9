package admin

import "testing"

func TestHealthChannelKeysAccountsByID(t *testing.T) {
	got := healthChannel(map[string]any{"configured": true, "running": true},
		[]map[string]any{{"accountId": "default", "healthState": "connected"}, {"accountId": "work"}})
	accounts, ok := got["accounts"].(map[string]any)
	if !ok || len(accounts) != 2 || accounts["work"] == nil || got["configured"] != true || got["running"] != true {
		t.Fatalf("healthChannel = %v, want the summary with accounts keyed by id", got)
	}
	if a, _ := accounts["default"].(map[string]any); a["healthState"] != "connected" {
		t.Errorf("accounts[default] = %v", accounts["default"])
	}
}
