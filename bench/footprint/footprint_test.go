// Package footprint measures the built gateway's memory: idle on a
// default config, idle with Telegram, Discord and Slack connected to
// their fakes, and the growth over 1,000 agent sessions. It is a test
// only so it can reuse the end-to-end harness and the channel fakes;
// without -footprint it skips. bench/footprint.sh runs it; see
// bench/README.md, "Footprint".
package footprint

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/discord/discordtest"
	"github.com/openclaw-go/openclaw/channels/slack/slacktest"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
	"github.com/openclaw-go/openclaw/e2e/harness"
)

var (
	run      = flag.Bool("footprint", false, "run the footprint measurements")
	idleFor  = flag.Duration("footprint-idle", 10*time.Second, "how long after ready a gateway is left alone before its memory is read")
	sessions = flag.Int("footprint-sessions", 1000, "agent sessions to open for the growth figure")
)

func TestMain(m *testing.M) {
	flag.Parse()
	if !*run {
		os.Exit(m.Run())
	}
	harness.Main(m)
}

// memory is one reading of /proc/PID/status, in kB.
type memory struct{ rss, anon, file int64 }

func (m memory) String() string {
	return fmt.Sprintf("%.1f MB (%.1f anonymous, %.1f file-backed)", mb(m.rss), mb(m.anon), mb(m.file))
}

func mb(kb int64) float64 { return float64(kb) / 1000 }

func readMemory(t *testing.T, pid int) memory {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	var m memory
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			m.rss = n
		case "RssAnon":
			m.anon = n
		case "RssFile":
			m.file = n
		}
	}
	return m
}

const modelConfig = `models: { providers: { fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1", heartbeat: { every: "0m" } } },`

func TestIdleDefault(t *testing.T) {
	if !*run {
		t.Skip("-footprint not set")
	}
	g := harness.Start(t, harness.Opts{})
	time.Sleep(*idleFor)
	m := readMemory(t, g.PID())
	t.Logf("FIGURE idle, default config, %v after ready: %v", *idleFor, m)
}

func TestIdleThreeChannels(t *testing.T) {
	if !*run {
		t.Skip("-footprint not set")
	}
	model := fakemodel.New(t)
	const tgToken = "7001:FOOTPRINT"
	tg := telegramtest.New(t, tgToken)
	const dcToken = "footprint-discord"
	dc := discordtest.New(t, dcToken)
	const slBot, slApp = "xoxb-footprint", "xapp-footprint"
	sl := slacktest.New(t, slBot, slApp)
	cfg := fmt.Sprintf(`{
  gateway: { mode: "local" },
  `+modelConfig+`
  channels: {
    telegram: { botToken: %q, apiRoot: %q, allowFrom: ["42"] },
    discord: { token: %q, dmPolicy: "allowlist", allowFrom: ["4242"] },
    slack: { botToken: %q, appToken: %q, dmPolicy: "allowlist", allowFrom: ["U42"] },
  },
}`, model.URL()+"/v1", tgToken, tg.URL(), dcToken, slBot, slApp)
	g := harness.Start(t, harness.Opts{Config: cfg, Env: []string{
		"OPENCLAW_SLACK_API_URL=" + sl.APIURL(),
		"OPENCLAW_DISCORD_API_BASE=" + dc.URL(), "OPENCLAW_DISCORD_GATEWAY_URL=" + dc.GatewayURL(),
	}})
	dc.WaitLive(1, 0, time.Minute)
	sl.WaitConnections(1, time.Minute)
	time.Sleep(*idleFor)
	m := readMemory(t, g.PID())
	t.Logf("FIGURE idle, Telegram + Discord + Slack connected to fakes, %v after ready: %v", *idleFor, m)
}

func TestSessionGrowth(t *testing.T) {
	if !*run {
		t.Skip("-footprint not set")
	}
	model := fakemodel.New(t)
	g := harness.Start(t, harness.Opts{Config: fmt.Sprintf("{\n  gateway: { mode: \"local\" },\n  "+modelConfig+"\n}", model.URL()+"/v1")})
	c := g.Admin(t)
	turn := func(key string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var res struct {
			Status string `json:"status"`
		}
		if err := c.CallFinal(ctx, "agent", map[string]any{"message": "hello " + key, "agentId": "main", "sessionKey": key, "idempotencyKey": key}, &res); err != nil || res.Status != "ok" {
			t.Errorf("agent turn in %s: %v (status %q)", key, err, res.Status)
		}
	}
	// Warm up: the first turns load the agent loop, the provider and the
	// SQLite page cache, which every later session shares.
	for i := range 20 {
		turn(fmt.Sprintf("agent:main:warm-%d", i))
	}
	time.Sleep(*idleFor)
	before := readMemory(t, g.PID())
	const workers = 4
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < *sessions; i += workers {
				turn(fmt.Sprintf("agent:main:footprint-%d", i))
			}
		}()
	}
	wg.Wait()
	time.Sleep(*idleFor)
	after := readMemory(t, g.PID())
	t.Logf("FIGURE before %d sessions: %v", *sessions, before)
	t.Logf("FIGURE after %d sessions (one turn each), %v later: %v", *sessions, *idleFor, after)
	t.Logf("FIGURE growth per 1,000 sessions: %.1f MB RSS (%.1f MB anonymous)",
		mb(after.rss-before.rss)*1000/float64(*sessions), mb(after.anon-before.anon)*1000/float64(*sessions))
}
