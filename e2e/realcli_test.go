package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// check inspects the decoded output of one CLI command.
type check func(t *testing.T, r result)

// TestRealCLI drives a gateway with the real OpenClaw CLI: every read-only
// operator command it has, each as a user types it.
func TestRealCLI(t *testing.T) {
	needRealCLI(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{})
	remote := g.remote(g.Token)
	call := func(method string, extra ...string) []string {
		return append(append([]string{"gateway", "call", method, "--json"}, extra...), remote...)
	}

	tests := []struct {
		name  string
		args  []string
		check check
	}{
		{"gateway call health", call("health"), objectWith("ok", true)},
		{"gateway call status", call("status"), isObject},
		{"gateway call system-presence", call("system-presence"), presenceList},
		{"gateway call logs.tail", call("logs.tail", "--params", `{"limit":5}`), logsTail(5)},
		// The CLI asks for operator.read alone for config.get (its
		// catalog scope), so the redacted config must stay readable
		// with it.
		{"gateway call config.get", call("config.get"), configSnapshot(g.Token)},
		// health and status have no --url: they use the remote config.
		{"health", []string{"health", "--json"}, objectWith("ok", true)},
		{"status", []string{"status", "--json"}, statusReachable},
		{"logs", append([]string{"logs", "--json", "--limit", "5"}, remote...), logLines},
		{"system presence", append([]string{"system", "presence", "--json"}, remote...), presenceList},
		{"devices list", append([]string{"devices", "list", "--json"}, remote...), deviceLists},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := realClient(t, g).run(t, tc.args...)
			r.mustSucceed(t)
			tc.check(t, r)
		})
	}
}

// TestRealCLIWrongToken: a wrong token is refused with AUTH_TOKEN_MISMATCH
// and the gateway keeps serving.
func TestRealCLIWrongToken(t *testing.T) {
	needRealCLI(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{})
	c := realClient(t, g)

	r := c.run(t, append([]string{"gateway", "call", "health", "--json"}, g.remote("wrong-"+g.Token)...)...)
	if r.Code == 0 {
		t.Fatalf("wrong token: command succeeded:\n%s", r)
	}
	if !strings.Contains(r.Stdout+r.Stderr, "AUTH_TOKEN_MISMATCH") {
		t.Errorf("wrong token: output does not mention AUTH_TOKEN_MISMATCH:\n%s", r)
	}

	r = c.run(t, append([]string{"gateway", "call", "health", "--json"}, g.remote(g.Token)...)...)
	r.mustSucceed(t)
	objectWith("ok", true)(t, r)
}

func isObject(t *testing.T, r result) {
	t.Helper()
	if _, ok := decodeJSON(t, r).(map[string]any); !ok {
		t.Fatalf("want a JSON object:\n%s", r)
	}
}

// objectWith wants a JSON object whose key holds want.
func objectWith(key string, want any) check {
	return func(t *testing.T, r result) {
		t.Helper()
		m, ok := decodeJSON(t, r).(map[string]any)
		if !ok {
			t.Fatalf("want a JSON object:\n%s", r)
		}
		if got := m[key]; got != want {
			t.Fatalf("%s = %v, want %v:\n%s", key, got, want, r)
		}
	}
}

// configSnapshot wants config.get's answer: the config as an object,
// without the gateway's token.
func configSnapshot(token string) check {
	return func(t *testing.T, r result) {
		t.Helper()
		m, ok := decodeJSON(t, r).(map[string]any)
		if !ok {
			t.Fatalf("want a JSON object:\n%s", r)
		}
		if _, ok := m["config"].(map[string]any); !ok || m["hash"] == nil {
			t.Fatalf("want config and hash:\n%s", r)
		}
		if strings.Contains(r.Stdout, token) {
			t.Fatalf("config.get shows the gateway token:\n%s", r)
		}
	}
}

// presenceList wants an array of presence entries, one of them the
// gateway itself.
func presenceList(t *testing.T, r result) {
	t.Helper()
	list, ok := decodeJSON(t, r).([]any)
	if !ok {
		t.Fatalf("want a JSON array:\n%s", r)
	}
	self := false
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			t.Fatalf("presence entry %v is not an object:\n%s", e, r)
		}
		if m["mode"] == "gateway" {
			self = true
		}
	}
	if !self {
		t.Fatalf("no presence entry with mode gateway:\n%s", r)
	}
}

// logsTail wants a logs.tail result: lines (at most limit) and a cursor.
func logsTail(limit int) check {
	return func(t *testing.T, r result) {
		t.Helper()
		m, ok := decodeJSON(t, r).(map[string]any)
		if !ok {
			t.Fatalf("want a JSON object:\n%s", r)
		}
		lines, ok := m["lines"].([]any)
		if !ok {
			t.Fatalf("lines is %T, want an array:\n%s", m["lines"], r)
		}
		if len(lines) > limit {
			t.Errorf("%d lines, want at most %d", len(lines), limit)
		}
		if _, ok := m["cursor"].(float64); !ok {
			t.Errorf("cursor is %T, want a number:\n%s", m["cursor"], r)
		}
	}
}

// logLines wants `logs --json` output: JSON lines, a meta line first.
func logLines(t *testing.T, r result) {
	t.Helper()
	lines := decodeJSONLines(t, r)
	if len(lines) == 0 || lines[0]["type"] != "meta" {
		t.Fatalf("want a meta line first:\n%s", r)
	}
	for _, l := range lines[1:] {
		if _, ok := l["type"].(string); !ok {
			t.Fatalf("line without a type: %v\n%s", l, r)
		}
	}
}

// jsonOutput wants stdout to be one JSON value or JSON lines.
func jsonOutput(t *testing.T, r result) {
	t.Helper()
	if json.Valid([]byte(r.Stdout)) {
		return
	}
	if len(decodeJSONLines(t, r)) == 0 {
		t.Fatalf("no JSON output:\n%s", r)
	}
}

// statusReachable wants `status --json` to have reached the gateway.
func statusReachable(t *testing.T, r result) {
	t.Helper()
	m, ok := decodeJSON(t, r).(map[string]any)
	if !ok {
		t.Fatalf("want a JSON object:\n%s", r)
	}
	gw, _ := m["gateway"].(map[string]any)
	if gw["reachable"] != true {
		t.Fatalf("gateway.reachable = %v, want true:\n%s", gw["reachable"], r)
	}
}

// deviceLists wants `devices list --json`: pending and paired arrays.
func deviceLists(t *testing.T, r result) {
	t.Helper()
	m, ok := decodeJSON(t, r).(map[string]any)
	if !ok {
		t.Fatalf("want a JSON object:\n%s", r)
	}
	for _, k := range []string{"pending", "paired"} {
		if _, ok := m[k].([]any); !ok {
			t.Errorf("%s is %T, want an array:\n%s", k, m[k], r)
		}
	}
}
