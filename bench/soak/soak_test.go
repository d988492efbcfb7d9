// Package soak runs the built gateway for a long time under a mixed,
// low-concurrency load and checks that nothing grows without bound and
// that every accepted message is answered once. It is a test only so it
// can reuse the end-to-end harness and the channel fakes, which take a
// testing.TB; without -soak it skips. bench/soak.sh runs it:
//
//	bash bench/soak.sh                 # an hour
//	bash bench/soak.sh -soak 20m       # shorter
//
// See bench/README.md, "Soak", for what it does and what it found.
package soak

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/slack/slacktest"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
	"github.com/openclaw-go/openclaw/e2e/harness"
	"github.com/openclaw-go/openclaw/gateway/client"
)

var (
	soakFor     = flag.Duration("soak", 0, "how long to run the soak (0 skips TestSoak)")
	sampleEvery = flag.Duration("soak-sample", time.Minute, "how often to sample RSS, goroutines, open files and SQLite size")
	reloadEvery = flag.Duration("soak-reload", 3*time.Minute, "how often to change the config over config.patch")
	retainFor   = flag.String("soak-retain", "4m", "gateway.retention.channelMessages, gateway.retention.toolAudit and cron.sessionRetention for the run: short, so the retention sweep's plateau shows within it (\"\" leaves the defaults)")
	busWorkers  = flag.Int("soak-sessions", 3, "bus connections chatting at once, each in its own rotating session")
	outDir      = flag.String("soak-out", "", "folder for samples.csv, summary.md and soak.png (default .cache/bench/soak in the repo)")
	pngOut      = flag.String("soak-png", "", "also write the plot here (bench/soak.sh passes bench/soak.png)")
)

func TestMain(m *testing.M) {
	flag.Parse()
	if *soakFor <= 0 {
		os.Exit(m.Run()) // the unit tests of this package only
	}
	harness.Main(m)
}

// The pace of each part of the load. Low on purpose: the soak looks for
// growth over time, not throughput, and shares two cores.
const (
	turnsPerSession = 8           // bus turns before the session is checked and deleted
	busPause        = time.Second // between one bus worker's turns
	channelPause    = 1500 * time.Millisecond
	channelTurns    = 10 // channel messages per person before their session is deleted
	churnPause      = 2 * time.Second
	answerWithin    = 2 * time.Minute // a message not answered by then counts as lost
	cronEvery       = "1m"
	toolEvery       = 4 // every toolEvery-th message asks for a tool call
)

var (
	telegramUsers = []telegramtest.User{
		{ID: 2001, Username: "ann", FirstName: "Ann"},
		{ID: 2002, Username: "bob", FirstName: "Bob"},
	}
	slackUsers = []string{"U41", "U42"}
)

// respond is the fake model's behaviour: a message containing "[tool]"
// makes it call DateTimeTool, the tool's result makes it answer "tool ok:
// <message>", anything else is echoed. Every answer carries the message's
// marker, so the driver can tell which message it answers.
func respond(rec fakemodel.Recorded) (fakemodel.Reply, bool) {
	if len(rec.Messages) == 0 {
		return fakemodel.Reply{}, false
	}
	user := ""
	for i := len(rec.Messages) - 1; i >= 0; i-- {
		if rec.Messages[i].Role == "user" && rec.Messages[i].Text != "" {
			user = rec.Messages[i].Text
			break
		}
	}
	switch last := rec.Messages[len(rec.Messages)-1]; {
	case last.Role == "tool":
		return fakemodel.Reply{Text: "tool ok: " + user}, true
	case last.Role == "user" && strings.Contains(user, "[tool]"):
		m := markerRE.FindString(user)
		return fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "call-" + m, Name: "DateTimeTool", Arguments: `{"timezone":"UTC"}`}}}, true
	}
	return fakemodel.Reply{}, false
}

func TestSoak(t *testing.T) {
	if *soakFor <= 0 {
		t.Skip("a soak runs only when asked: bash bench/soak.sh (or -soak 20m)")
	}
	out := *outDir
	if out == "" {
		root, err := harness.FindRepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		out = filepath.Join(root, ".cache", "bench", "soak")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}

	model, err := fakemodel.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(model.Close)
	model.Respond(respond)
	const tgToken = "123456:SOAK-token"
	tg := telegramtest.New(t, tgToken)
	const slBot, slApp = "xoxb-soak-bot", "xapp-soak-app"
	sl := slacktest.New(t, slBot, slApp)

	tgAllow := make([]string, len(telegramUsers))
	for i, u := range telegramUsers {
		tgAllow[i] = fmt.Sprint(u.ID)
	}
	retention, cronRetention := "", ""
	if *retainFor != "" {
		retention = fmt.Sprintf(`, retention: { channelMessages: %q, toolAudit: %q }`, *retainFor, *retainFor)
		cronRetention = fmt.Sprintf("\n  cron: { sessionRetention: %q },", *retainFor)
	}
	cfg := fmt.Sprintf(`{
  gateway: { mode: "local"%s },
  logging: { level: "info" },
  models: { providers: { fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1", heartbeat: { every: "0m" } } },
  session: { dmScope: "per-channel-peer" },%s
  channels: {
    telegram: { botToken: %q, apiRoot: %q, allowFrom: [%s] },
    slack: { botToken: %q, appToken: %q, dmPolicy: "allowlist", allowFrom: [%s] },
  },
}
`, retention, model.URL()+"/v1", cronRetention, tgToken, tg.URL(), strings.Join(tgAllow, ", "), slBot, slApp, `"`+strings.Join(slackUsers, `", "`)+`"`)
	g := harness.Start(t, harness.Opts{Config: cfg, Env: []string{"OPENCLAW_SLACK_API_URL=" + sl.APIURL()}})
	sl.WaitConnections(1, time.Minute)
	admin := g.Admin(t)

	led := newLedger()
	ctx, cancel := context.WithTimeout(context.Background(), *soakFor)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	var errs errorLog
	run := func(name string, f func(ctx context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(ctx); err != nil && ctx.Err() == nil {
				errs.add(fmt.Errorf("%s: %w", name, err))
			}
		}()
	}

	cronID := addCronJob(t, g)
	var counters counters
	for i := range *busWorkers {
		c := g.Admin(t)
		run(fmt.Sprintf("bus worker %d", i+1), func(ctx context.Context) error { return busWorker(ctx, c, i+1, led, &counters, &errs) })
	}
	for _, u := range telegramUsers {
		run(fmt.Sprintf("telegram %d", u.ID), func(ctx context.Context) error {
			return channelWorker(ctx, admin, telegramPerson(tg, u), led, &counters, &errs)
		})
	}
	for _, u := range slackUsers {
		run("slack "+u, func(ctx context.Context) error {
			return channelWorker(ctx, admin, slackPerson(sl, u), led, &counters, &errs)
		})
	}
	run("client churn", func(ctx context.Context) error { return churn(ctx, g, &counters) })
	run("config reload", func(ctx context.Context) error { return reloader(ctx, admin, *reloadEvery, &counters) })

	samples := []sample{}
	csv, err := os.Create(filepath.Join(out, "samples.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer csv.Close()
	fmt.Fprintln(csv, sampleHeader)
	take := func() {
		s, err := takeSample(admin, g, start, &counters)
		if err != nil {
			errs.add(fmt.Errorf("sample: %w", err))
			return
		}
		samples = append(samples, s)
		fmt.Fprintln(csv, s.csv())
		t.Logf("%s", s.human())
	}
	take()
	tick := time.NewTicker(*sampleEvery)
sampling:
	for {
		select {
		case <-ctx.Done():
			break sampling
		case <-tick.C:
			if g.Exited() {
				t.Fatalf("the gateway exited during the soak:\n%s", harness.Clip(g.Log()))
			}
			take()
		}
	}
	tick.Stop()
	wg.Wait()
	take()
	elapsed := time.Since(start)

	// Every message was waited for by its worker; the fakes keep what the
	// bot sent, so a late duplicate still shows up here.
	led.countChannel(tg, sl)
	cronRuns, cronOK := cronRunCount(t, admin, cronID)
	rep := report{
		Elapsed: elapsed, Samples: samples, Ledger: led.summary(), Counters: counters.snapshot(),
		CronRuns: cronRuns, CronOK: cronOK, CronExpected: int(elapsed / time.Minute), Errors: errs.list(),
		Trends: trends(samples),
	}
	md := rep.markdown()
	if err := os.WriteFile(filepath.Join(out, "summary.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	pngs := []string{filepath.Join(out, "soak.png")}
	if *pngOut != "" {
		pngs = append(pngs, *pngOut)
	}
	for _, p := range pngs {
		if err := plotSamples(samples, p); err != nil {
			t.Errorf("plot: %v", err)
		}
	}
	t.Logf("summary:\n%s", md)
	for _, p := range rep.problems() {
		t.Error(p)
	}
}

// counters are running totals the samples and the summary show.
type counters struct {
	busTurns, channelMsgs, toolTurns, sessionsDeleted, connects, drops, reloads, reloadErrors atomic.Int64
}

func (c *counters) snapshot() map[string]int64 {
	return map[string]int64{
		"bus turns": c.busTurns.Load(), "channel messages": c.channelMsgs.Load(), "tool-call turns": c.toolTurns.Load(),
		"sessions deleted": c.sessionsDeleted.Load(), "client connects": c.connects.Load(), "abrupt drops": c.drops.Load(),
		"config reloads": c.reloads.Load(), "config reload errors": c.reloadErrors.Load(),
	}
}

// errorLog keeps the first errors of the workers.
type errorLog struct {
	mu   sync.Mutex
	errs []string
	n    int
}

func (e *errorLog) add(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.n++
	if len(e.errs) < 50 {
		e.errs = append(e.errs, err.Error())
	}
}

func (e *errorLog) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := append([]string(nil), e.errs...)
	if e.n > len(e.errs) {
		out = append(out, fmt.Sprintf("… and %d more", e.n-len(e.errs)))
	}
	return out
}

// call makes one request with a deadline.
func call(c *client.Client, method string, params, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), answerWithin)
	defer cancel()
	return c.Call(ctx, method, params, out)
}

// addCronJob adds a job that fires every minute into its own session.
func addCronJob(t *testing.T, g *harness.Gateway) string {
	t.Helper()
	r := g.CLI(t, "cron", "add", "--name", "soak-tick", "--every", cronEvery, "--message", "cron tick", "--json")
	var job struct {
		ID string `json:"id"`
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &job) != nil || job.ID == "" {
		t.Fatalf("cron add:\n%s", r)
	}
	return job.ID
}

// cronRunCount is how many runs the job has, and how many ended ok.
func cronRunCount(t *testing.T, c *client.Client, id string) (all, ok int) {
	t.Helper()
	for offset := 0; ; {
		var page struct {
			Entries []map[string]any `json:"entries"`
			HasMore bool             `json:"hasMore"`
		}
		if err := call(c, "cron.runs", map[string]any{"id": id, "limit": 50, "offset": offset}, &page); err != nil {
			t.Errorf("cron.runs: %v", err)
			return all, ok
		}
		for _, e := range page.Entries {
			all++
			if e["status"] == "ok" {
				ok++
			}
		}
		offset += len(page.Entries)
		if !page.HasMore || len(page.Entries) == 0 {
			return all, ok
		}
	}
}
