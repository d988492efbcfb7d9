package main

import (
	"encoding/json"
	"testing"
)

func TestSessionKey(t *testing.T) {
	tests := []struct {
		name       string
		turns      int
		conn, turn int
		want       string
	}{
		{"one session per connection", 0, 0, 0, "agent:main:bench-1"},
		{"same session later", 0, 0, 99, "agent:main:bench-1"},
		{"second connection", 0, 1, 5, "agent:main:bench-2"},
		{"rotating, first", 10, 2, 0, "agent:main:bench-3-1"},
		{"rotating, last of first", 10, 2, 9, "agent:main:bench-3-1"},
		{"rotating, next", 10, 2, 10, "agent:main:bench-3-2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config{Session: "agent:main:bench", SessionTurns: tc.turns}
			if got := cfg.sessionKey(tc.conn, tc.turn); got != tc.want {
				t.Errorf("sessionKey(%d, %d) = %q, want %q", tc.conn, tc.turn, got, tc.want)
			}
		})
	}
}

func TestAgentPayloads(t *testing.T) {
	tests := []struct {
		name         string
		payload      string
		isAccepted   bool
		outcomeFails bool
	}{
		{"interim", `{"runId":"r","status":"accepted","acceptedAt":1}`, true, true},
		{"ok", `{"runId":"r","status":"ok","summary":"completed"}`, false, false},
		{"model failed", `{"runId":"r","status":"error","summary":"all models failed"}`, false, true},
		{"not an object", `[1]`, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw := json.RawMessage(tc.payload)
			if got := accepted(raw); got != tc.isAccepted {
				t.Errorf("accepted = %v, want %v", got, tc.isAccepted)
			}
			if err := agentOutcome(raw); (err != nil) != tc.outcomeFails {
				t.Errorf("agentOutcome = %v, want failure %v", err, tc.outcomeFails)
			}
		})
	}
}

func TestRequestParams(t *testing.T) {
	cfg, err := parseFlags([]string{"-method", "agent", "-session-turns", "2"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Scope != "operator.write" {
		t.Errorf("agent scope = %q, want operator.write", cfg.Scope)
	}
	c := &conn{index: 1}
	var keys, ids []string
	for range 3 {
		p := cfg.requestParams(c).(map[string]any)
		keys = append(keys, p["sessionKey"].(string))
		ids = append(ids, p["idempotencyKey"].(string))
	}
	if keys[0] != "agent:main:bench-2-1" || keys[1] != keys[0] || keys[2] != "agent:main:bench-2-2" {
		t.Errorf("session keys = %q", keys)
	}
	if ids[0] == ids[1] || ids[1] == ids[2] {
		t.Errorf("idempotency keys repeat: %q", ids)
	}
	if _, err := parseFlags([]string{"-method", "agent", "-params", "{}"}); err == nil {
		t.Error("-params with -method agent was accepted")
	}
}
