package gateway

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const truthToken = "status-truth-token-0123456789"

// startTruthGateway runs a gateway with two agents (ops the default, with
// its own model) and a default model for the rest.
func startTruthGateway(t *testing.T) *running {
	t.Helper()
	dir := t.TempDir()
	cfg := `{
  gateway: { auth: { token: "` + truthToken + `" } },
  session: { mainKey: "home" },
  agents: {
    defaults: { model: "openai/gpt-5.2" },
    entries: { main: {}, ops: { default: true, name: "Ops bot", model: "anthropic/claude-sonnet-4-5" } },
  },
}`
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return startGatewayIn(t, dir, nil)
}

// createSessions makes n sessions of agent over the bus.
func createSessions(t *testing.T, r *running, agent string, n int) {
	t.Helper()
	c, err := r.dial(t, truthToken, "operator.admin")
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		key := "agent:" + agent + ":s" + string(rune('a'+i))
		if err := c.Call(context.Background(), "sessions.create", map[string]any{"agentId": agent, "key": key}, nil); err != nil {
			t.Fatalf("sessions.create %s: %v", key, err)
		}
	}
}

type sessionSummary struct {
	Path   string `json:"path"`
	Count  int    `json:"count"`
	Recent []struct {
		Key string `json:"key"`
	} `json:"recent"`
}

// TestHealthCountsStoredSessions: health's session figures are the
// store's, in all and per agent, not a literal zero.
func TestHealthCountsStoredSessions(t *testing.T) {
	r := startTruthGateway(t)
	createSessions(t, r, "ops", 2)
	createSessions(t, r, "main", 1)
	c, err := r.dial(t, truthToken, "operator.read")
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		DefaultAgentID string          `json:"defaultAgentId"`
		Sessions       *sessionSummary `json:"sessions"`
		Agents         []struct {
			AgentID  string          `json:"agentId"`
			Name     string          `json:"name"`
			Sessions *sessionSummary `json:"sessions"`
		} `json:"agents"`
	}
	// No probe: the snapshot cached when the first client connected
	// (before any session existed) must not be served.
	if err := c.Call(context.Background(), "health", nil, &h); err != nil {
		t.Fatal(err)
	}
	if h.DefaultAgentID != "ops" {
		t.Errorf("defaultAgentId = %q, want ops", h.DefaultAgentID)
	}
	if h.Sessions == nil || h.Sessions.Count != 3 || len(h.Sessions.Recent) != 3 {
		t.Fatalf("sessions = %+v, want 3 counted and listed", h.Sessions)
	}
	want := map[string]int{"ops": 2, "main": 1}
	for _, a := range h.Agents {
		if a.Sessions == nil || a.Sessions.Count != want[a.AgentID] {
			t.Errorf("agent %s sessions = %+v, want %d", a.AgentID, a.Sessions, want[a.AgentID])
		}
		if a.AgentID == "ops" && a.Name != "Ops bot" {
			t.Errorf("agent ops name = %q", a.Name)
		}
	}
}

type statusAnswer struct {
	Pid           int `json:"pid"`
	ProcessMemory struct {
		RSSBytes      int64 `json:"rssBytes"`
		HeapUsedBytes int64 `json:"heapUsedBytes"`
	} `json:"processMemory"`
	Sessions struct {
		Count    int      `json:"count"`
		Paths    []string `json:"paths"`
		Defaults struct {
			Model *string `json:"model"`
		} `json:"defaults"`
		Recent  []json.RawMessage `json:"recent"`
		ByAgent []struct {
			AgentID string `json:"agentId"`
			Count   int    `json:"count"`
		} `json:"byAgent"`
	} `json:"sessions"`
	CLIProjection struct {
		Agents struct {
			DefaultID string `json:"defaultId"`
			Rows      []struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"rows"`
		} `json:"agents"`
	} `json:"cliProjection"`
	ChannelSummary []string `json:"channelSummary"`
}

// TestStatusReportsTheStore: status counts the store per agent, names the
// default agent's model to admins (and, as OpenClaw, hides session details
// from read-only clients), and carries pid and memory where the real CLI
// reads them.
func TestStatusReportsTheStore(t *testing.T) {
	r := startTruthGateway(t)
	createSessions(t, r, "ops", 2)
	createSessions(t, r, "main", 1)
	tests := []struct {
		scope     string
		wantModel string // "" = null
		wantRows  int
	}{
		{"operator.admin", "anthropic/claude-sonnet-4-5", 3},
		{"operator.read", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.scope, func(t *testing.T) {
			c, err := r.dial(t, truthToken, tc.scope)
			if err != nil {
				t.Fatal(err)
			}
			var st statusAnswer
			if err := c.Call(context.Background(), "status", map[string]any{"includeCliProjection": true}, &st); err != nil {
				t.Fatal(err)
			}
			if st.Sessions.Count != 3 {
				t.Errorf("sessions.count = %d, want 3", st.Sessions.Count)
			}
			got := map[string]int{}
			for _, a := range st.Sessions.ByAgent {
				got[a.AgentID] = a.Count
			}
			if got["ops"] != 2 || got["main"] != 1 {
				t.Errorf("byAgent = %v, want ops 2, main 1", got)
			}
			model := ""
			if st.Sessions.Defaults.Model != nil {
				model = *st.Sessions.Defaults.Model
			}
			if model != tc.wantModel {
				t.Errorf("defaults.model = %q, want %q", model, tc.wantModel)
			}
			if len(st.Sessions.Recent) != tc.wantRows {
				t.Errorf("recent rows = %d, want %d", len(st.Sessions.Recent), tc.wantRows)
			}
			if st.Pid != os.Getpid() || st.ProcessMemory.HeapUsedBytes <= 0 {
				t.Errorf("pid %d, processMemory %+v", st.Pid, st.ProcessMemory)
			}
			p := st.CLIProjection.Agents
			if p.DefaultID != "ops" || len(p.Rows) != 2 {
				t.Errorf("cliProjection.agents = %+v, want ops default of two", p)
			}
		})
	}
}

// TestHelloNamesTheConfiguredDefaults: hello-ok's sessionDefaults are the
// config's default agent, main key and whether it has a model.
func TestHelloNamesTheConfiguredDefaults(t *testing.T) {
	r := startTruthGateway(t)
	c, err := r.dial(t, truthToken, "operator.read")
	if err != nil {
		t.Fatal(err)
	}
	d := c.Hello().Snapshot.SessionDefaults
	if d == nil {
		t.Fatal("no sessionDefaults in hello-ok")
	}
	if d.DefaultAgentID != "ops" || d.MainKey != "home" || d.MainSessionKey != "agent:ops:home" ||
		d.ModelConfigured == nil || !*d.ModelConfigured {
		t.Fatalf("sessionDefaults = %+v (modelConfigured %v), want ops, home, agent:ops:home, true", d, d.ModelConfigured)
	}
}

// TestHealthSaysAReloadFailed: after an edit that does not load, health
// no longer reports a plain "active" reload: it says the running config
// is not the file's, naming the key at fault but not its value; a good
// edit clears it.
func TestHealthSaysAReloadFailed(t *testing.T) {
	r := startTruthGateway(t)
	c, err := r.dial(t, truthToken, "operator.read")
	if err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(r.config)
	if err != nil {
		t.Fatal(err)
	}
	type reload struct {
		HotReloadStatus string `json:"hotReloadStatus"`
		LastFailure     *struct {
			At    int64  `json:"at"`
			Error string `json:"error"`
		} `json:"lastFailure"`
	}
	read := func() reload {
		var h struct {
			ConfigReload reload `json:"configReload"`
		}
		if err := c.Call(context.Background(), "health", nil, &h); err != nil {
			t.Fatal(err)
		}
		return h.ConfigReload
	}
	if got := read(); got.HotReloadStatus != "active" || got.LastFailure != nil {
		t.Fatalf("before any edit: %+v", got)
	}
	bad := strings.Replace(string(orig), `gateway: {`, `gateway: { port: "secret-looking-value",`, 1)
	if err := os.WriteFile(r.config, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	got := waitReload(t, read, func(r reload) bool { return r.LastFailure != nil })
	if !strings.Contains(got.LastFailure.Error, "gateway.port") || strings.Contains(got.LastFailure.Error, "secret-looking-value") {
		t.Errorf("lastFailure.error = %q, want the key named and its value left out", got.LastFailure.Error)
	}
	if got.HotReloadStatus != "active" {
		t.Errorf("hotReloadStatus = %q: the watcher still runs", got.HotReloadStatus)
	}
	if err := os.WriteFile(r.config, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	waitReload(t, read, func(r reload) bool { return r.LastFailure == nil })
}

// waitReload polls health until ok holds (the watcher debounces edits).
func waitReload[T any](t *testing.T, read func() T, ok func(T) bool) T {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := read()
		if ok(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("health never showed the reload outcome: %+v", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type explainAnswer struct {
	Registered int `json:"registered"`
	Offered    int `json:"offered"`
	Dormant    int `json:"dormant"`
	Tools      []struct {
		Tool    string `json:"tool"`
		Allowed bool   `json:"allowed"`
		Offered bool   `json:"offered"`
		State   string `json:"state"`
		Layer   string `json:"layer"`
		Reason  string `json:"reason"`
	} `json:"tools"`
}

// TestToolsExplainCountsWhatTheModelGets: tools.explain reports what the
// model receives on the turn (extension-tier tools only inside
// enable_tool, which is itself a tool it gets; a tool the operator
// disabled not at all), not every tool the policy allows.
func TestToolsExplainCountsWhatTheModelGets(t *testing.T) {
	r := startTruthGateway(t)
	c, err := r.dial(t, truthToken, "operator.admin")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Call(ctx, "tools.setEnabled", map[string]any{"name": "web_fetch", "enabled": false}, nil); err != nil {
		t.Fatal(err)
	}
	var e explainAnswer
	if err := c.Call(ctx, "tools.explain", map[string]any{"agentId": "ops"}, &e); err != nil {
		t.Fatal(err)
	}
	rows := map[string]int{}
	offered, dormant, registered := 0, 0, 0
	for i, row := range e.Tools {
		rows[row.Tool] = i
		if row.Tool != "enable_tool" {
			registered++
		}
		switch row.State {
		case "offered":
			offered++
		case "enable_tool":
			dormant++
		}
	}
	if e.Offered != offered || e.Dormant != dormant || e.Registered != registered {
		t.Errorf("summary offered %d dormant %d registered %d; rows say %d, %d, %d", e.Offered, e.Dormant, e.Registered, offered, dormant, registered)
	}
	if dormant == 0 || e.Offered >= e.Registered {
		t.Fatalf("offered %d of %d with %d dormant: extension tools must not count as offered", e.Offered, e.Registered, dormant)
	}
	check := func(tool, state string, offered bool, reasonHas string) {
		t.Helper()
		i, ok := rows[tool]
		if !ok {
			t.Errorf("no row for %s", tool)
			return
		}
		row := e.Tools[i]
		if row.State != state || row.Offered != offered || !strings.Contains(row.Reason, reasonHas) {
			t.Errorf("%s = %+v, want state %s offered %v, reason with %q", tool, row, state, offered, reasonHas)
		}
	}
	check("browser", "enable_tool", false, "enable_tool")
	check("enable_tool", "offered", true, "extension tools")
	check("web_fetch", "refused", false, "disabled by the operator")
	check("read", "offered", true, "")

	// Made core, the browser is sent with its schema and enable_tool's
	// directory is one shorter.
	if err := c.Call(ctx, "tools.setTier", map[string]any{"name": "browser", "tier": "core"}, nil); err != nil {
		t.Fatal(err)
	}
	var after explainAnswer
	if err := c.Call(ctx, "tools.explain", map[string]any{"agentId": "ops", "tool": "browser"}, &after); err != nil {
		t.Fatal(err)
	}
	if len(after.Tools) != 1 || after.Tools[0].State != "offered" || after.Dormant != e.Dormant-1 {
		t.Errorf("after setTier core: %+v", after)
	}
}
