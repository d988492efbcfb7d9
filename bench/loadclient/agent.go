package main

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/google/uuid"
)

// twoStage reports whether method answers twice: {status:"accepted"} at
// once, then the outcome under the same id.
func twoStage(method string) bool { return method == "agent" }

// accepted reports whether a response payload is a two-stage method's
// interim ack.
func accepted(payload json.RawMessage) bool {
	var p struct {
		Status string `json:"status"`
	}
	return json.Unmarshal(payload, &p) == nil && p.Status == "accepted"
}

// agentOutcome checks an agent method's final payload: a run that ended
// other than "ok" (the model failed, a timeout) is a failed request.
func agentOutcome(payload json.RawMessage) error {
	var p struct {
		Status  string `json:"status"`
		Summary string `json:"summary"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return fmt.Errorf("agent outcome: %w", err)
	}
	if p.Status != "ok" {
		return fmt.Errorf("agent run ended %q: %s", p.Status, p.Summary)
	}
	return nil
}

// requestParams are the params of c's next request: a fresh agent turn
// for -method agent, otherwise -params as given.
func (cfg config) requestParams(c *conn) any {
	defer func() { c.sent++ }()
	if cfg.Method != "agent" {
		if cfg.Params == nil {
			return nil
		}
		return cfg.Params
	}
	return map[string]any{
		"message":        fmt.Sprintf("%s (connection %d, turn %d)", cfg.Message, c.index+1, c.sent+1),
		"agentId":        "main",
		"sessionKey":     cfg.sessionKey(c.index, c.sent),
		"idempotencyKey": uuid.NewString(),
	}
}

// sessionKey is the session of connection conn's turn-th turn (both from
// 0): one session per connection, or a new one every SessionTurns turns.
func (cfg config) sessionKey(conn, turn int) string {
	key := cfg.Session + "-" + strconv.Itoa(conn+1)
	if cfg.SessionTurns > 0 {
		key += "-" + strconv.Itoa(turn/cfg.SessionTurns+1)
	}
	return key
}
