package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
)

// TestStatusTellsTheTruth: with sessions stored, a model set and Telegram
// configured, `status` and `health` (ours, and the real CLI's --json)
// report those: the session counts, the channel, the process, not
// literal zeros and empty lists. The real `openclaw doctor` finds the two
// RPCs it calls (diagnostics.stability, doctor.memory.status).
func TestStatusTellsTheTruth(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	const token = "123456:TEST-status-truth"
	tg := telegramtest.New(t, token)
	g := startGateway(t, gatewayOpts{Config: telegramConfig(model.URL(), tg.URL(), token, "")})
	ours := ourClient(t, g)
	for _, key := range []string{"agent:main:truth-a", "agent:main:truth-b"} {
		ours.run(t, "gateway", "call", "sessions.create", "--params", `{"key":"`+key+`"}`).mustSucceed(t)
	}

	st := ours.run(t, "status")
	st.mustSucceed(t)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^Gateway:\s+` + regexp.QuoteMeta(g.URL) + ` \(auth token\)$`),
		regexp.MustCompile(`(?m)^Process:\s+pid [1-9]\d*, up \S+, rss [1-9]\d* MiB`),
		regexp.MustCompile(`(?m)^Sessions:\s+2 sessions$`),
		regexp.MustCompile(`(?m)^Channels:\s+Telegram: configured$`),
	} {
		if !want.MatchString(st.Stdout) {
			t.Errorf("our status: no line matching %s:\n%s", want, st)
		}
	}

	h := ours.run(t, "health")
	h.mustSucceed(t)
	for _, want := range []string{"  main: default, heartbeat", ", 2 sessions\n", "Sessions: 2\n", "Channels: Telegram\n", "Config reload: active\n"} {
		if !strings.Contains(h.Stdout, want) {
			t.Errorf("our health: no %q:\n%s", want, h)
		}
	}

	if realCLI == "" {
		t.Log("real OpenClaw CLI not installed: its part skipped")
		return
	}
	real := realClient(t, g)
	rh := real.run(t, "health", "--json")
	rh.mustSucceed(t)
	hm, _ := decodeJSON(t, rh).(map[string]any)
	if n := number(dig(hm, "sessions", "count")); n != 2 || hm["defaultAgentId"] != "main" {
		t.Errorf("real health --json: sessions.count %v, defaultAgentId %v; want 2, main:\n%s", n, hm["defaultAgentId"], rh)
	}
	if agents, _ := hm["agents"].([]any); len(agents) != 1 || number(dig(agents[0], "sessions", "count")) != 2 {
		t.Errorf("real health --json: agents %v, want main with 2 sessions", hm["agents"])
	}
	// OpenClaw's health formatter looks accounts up by id: an object, not a list.
	if id := dig(hm, "channels", "telegram", "accounts", "default", "accountId"); id != "default" || dig(hm, "channels", "telegram", "configured") != true {
		t.Errorf("real health --json: channels.telegram = %v, want configured with accounts keyed by id", dig(hm, "channels", "telegram"))
	}

	rs := real.run(t, "status", "--json")
	rs.mustSucceed(t)
	sm, _ := decodeJSON(t, rs).(map[string]any)
	if n := number(dig(sm, "sessions", "count")); n != 2 {
		t.Errorf("real status --json: sessions.count = %v, want 2:\n%s", n, clip(rs.Stdout))
	}
	if n := number(dig(sm, "agents", "totalSessions")); n != 2 {
		t.Errorf("real status --json: agents.totalSessions = %v, want 2:\n%s", n, clip(rs.Stdout))
	}

	// The two RPCs the real `openclaw doctor` calls besides status, as
	// its own commands read them (the whole doctor takes minutes: its
	// exporter and memory probes are these calls). A method we lacked
	// would fail the command.
	remote := g.remote(g.Token)
	stab := real.run(t, append([]string{"gateway", "stability", "--json"}, remote...)...)
	stab.mustSucceed(t)
	sb, _ := decodeJSON(t, stab).(map[string]any)
	events, _ := sb["events"].([]any)
	if len(events) == 0 || dig(events[0], "type") != "diagnostic.memory.sample" || number(dig(events[0], "memory", "rssBytes")) <= 0 {
		t.Errorf("real gateway stability --json: want the gateway's memory samples:\n%s", stab)
	}
	real.run(t, append([]string{"gateway", "stability"}, remote...)...).mustSucceed(t)
	mem := real.run(t, append([]string{"gateway", "call", "doctor.memory.status", "--json", "--params", `{"probe":false}`}, remote...)...)
	mem.mustSucceed(t)
	mm, _ := decodeJSON(t, mem).(map[string]any)
	if mm["agentId"] != "main" || dig(mm, "embedding", "ok") != false || dig(mm, "embedding", "checked") != false {
		t.Errorf("real gateway call doctor.memory.status: want main, embeddings not claimed ready:\n%s", mem)
	}
}

// dig walks nested JSON objects by key.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// number is a JSON number as float64, or -1.
func number(v any) float64 {
	if f, ok := v.(float64); ok {
		return f
	}
	return -1
}
