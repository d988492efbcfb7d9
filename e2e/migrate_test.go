package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
)

// migrateRealConfig is the real gateway's config for the migration test:
// realNodeGatewayConfig plus a model (the fake) and a Telegram bot on the
// fake Bot API, whose DMs need pairing.
const migrateRealConfig = `{
  gateway: { mode: "local", tailscale: { mode: "off" }, nodes: { pairing: { autoApproveLocal: false } } },
  update: { checkOnStart: false },
  telemetry: { enabled: false },
  discovery: { mdns: { mode: "off" } },
  models: { providers: { fake: { baseUrl: %q, apiKey: "x", api: "openai-completions", models: [{ id: "echo-1", name: "echo" }] } } },
  agents: { defaults: { heartbeat: { every: "0m" }, model: { primary: "fake/echo-1" } } },
  channels: { telegram: { botToken: %q, apiRoot: %q, dmPolicy: "pairing" } },
  logging: { file: %%q },
}
`

// TestMigrateFromRealOpenClaw builds a real install with the real gateway
// (a real node host paired as a device and its commands approved, a chat
// turn, a cron job, a Telegram DM sender approved through pairing), stops
// it, runs our `openclaw migrate --from <its state> --yes` into a fresh
// state, and starts our gateway on it: the real node host, with the SAME
// identity and state, connects without a new pairing request and its
// approved commands are invocable; the conversation is listed with its
// history and a new turn continues it; the cron job is there; the approved
// sender's DM is answered, not met with a pairing code. A second migrate
// has nothing to do, and the source is never written.
func TestMigrateFromRealOpenClaw(t *testing.T) {
	cli := needRealCLI(t)
	bin := needOurBin(t)
	needOurGateway(t)
	t.Parallel()
	const nodeName = "migrated-node"
	model := fakemodel.New(t)
	const tgToken = "7000001:TEST-token-migrate"
	tg := telegramtest.New(t, tgToken)
	ann := telegramtest.User{ID: 1001, Username: "ann", FirstName: "Ann"}

	// 1. The real install: gateway, and a node host with its own state.
	real := startRealGateway(t, fmt.Sprintf(migrateRealConfig, model.URL()+"/v1", tgToken, tg.URL()))
	nodeDir := t.TempDir()
	nodeEnv, _, _ := isolatedEnv(t, nodeDir)
	nodeEnv = append(nodeEnv, "OPENCLAW_GATEWAY_TOKEN="+real.Token)
	runNode := func(port int) *proc {
		return startProc(t, "real node host", nodeEnv, nodeDir, cli, "node", "run",
			"--host", "127.0.0.1", "--port", strconv.Itoa(port), "--no-tls", "--display-name", nodeName)
	}
	node := runNode(real.Port)
	c := realClient(t, real)
	call := func(g *gateway, method string) map[string]any {
		t.Helper()
		r := c.run(t, append([]string{"gateway", "call", method, "--json", "--params", "{}"}, g.remote(g.Token)...)...)
		r.mustSucceed(t)
		m, _ := decodeJSON(t, r).(map[string]any)
		return m
	}
	var deviceRequest string
	if !poll(90*time.Second, func() bool {
		for _, p := range asList(call(real, "device.pair.list")["pending"]) {
			if p["clientId"] == "node-host" && p["role"] == "node" {
				deviceRequest, _ = p["requestId"].(string)
				return deviceRequest != ""
			}
		}
		return node.exited()
	}) || deviceRequest == "" {
		t.Fatalf("no device pairing request from the node host on the real gateway\n%s", node.report())
	}
	c.run(t, append([]string{"devices", "approve", deviceRequest, "--json"}, real.remote(real.Token)...)...).mustSucceed(t)
	// The real node host pauses its reconnects after a refused pairing
	// until restarted; a user would restart it too.
	node.stop()
	node = runNode(real.Port)
	// The real gateway shows the node's command surface request to the
	// node host, which prints the approve command.
	var nodeRequest string
	if !poll(120*time.Second, func() bool {
		if m := nodeApproveHint.FindStringSubmatch(node.stdout.String() + node.stderr.String()); m != nil {
			nodeRequest = m[1]
			return true
		}
		return node.exited()
	}) || nodeRequest == "" {
		t.Fatalf("no node pairing request on the real gateway\n%s", node.report())
	}
	var nodeID string // a node's id is its device's
	for _, d := range asList(call(real, "device.pair.list")["paired"]) {
		if d["clientId"] == "node-host" {
			nodeID, _ = d["deviceId"].(string)
		}
	}
	if nodeID == "" {
		t.Fatalf("the node host's device is not paired on the real gateway: %v", call(real, "device.pair.list"))
	}
	c.run(t, append([]string{"nodes", "approve", nodeRequest, "--json"}, real.remote(real.Token)...)...).mustSucceed(t)
	node.stop()

	// A chat turn, a cron job, and a stranger's DM approved by pairing.
	turn := c.run(t, "agent", "--agent", "main", "--message", "hello-before-the-move", "--json")
	turn.mustSucceed(t)
	c.run(t, "cron", "add", "--name", "daily-news", "--cron", "0 9 * * *", "--message", "summarize the news", "--no-deliver").mustSucceed(t)
	tg.AddPrivateText(ann, "hi, may I?")
	pair := waitSentWhere(t, tg, "with a pairing code from the real gateway", func(m telegramtest.Message) bool {
		return migratePairingCode.FindString(m.Text) != "" && m.ChatID == "1001"
	})
	runCmd(t, real.Env, real.Dir, cli, "pairing", "approve", "telegram", migratePairingCode.FindString(pair.Text)).mustSucceed(t)
	sentBefore := len(tg.Sent())
	real.proc.stop()

	source := filepath.Join(real.StateDir, "state")
	before := hashFiles(t, source)

	// 2. Migrate into a fresh state of ours.
	oursDir := t.TempDir()
	oursEnv, oursState, oursConfig := isolatedEnv(t, oursDir)
	migrate := func() result {
		return runCmd(t, oursEnv, oursDir, bin, "migrate", "--from", real.StateDir, "--yes")
	}
	dry := runCmd(t, oursEnv, oursDir, bin, "migrate", "--from", real.StateDir, "--dry-run")
	dry.mustSucceed(t)
	for _, want := range []string{"paired devices", "node pairings", "import", "Dry run", "DM pairing: approved senders", "cron jobs (with their run history)", "sessions and transcripts"} {
		if !strings.Contains(dry.Stdout, want) {
			t.Fatalf("dry run lacks %q:\n%s", want, dry)
		}
	}
	// What a user would lose without it: the real install's chat, its
	// approved sender, its Telegram cursor and its cron job.
	for _, line := range []string{`DM pairing: approved senders\s+1\s+import`, `Telegram update offsets\s+1\s+import`,
		`cron jobs \(with their run history\)\s+1\s+import`, `sessions and transcripts\s+\d+\s+import`} {
		if !regexp.MustCompile(line).MatchString(dry.Stdout) {
			t.Fatalf("dry run lacks a line %q:\n%s", line, dry)
		}
	}
	if _, err := os.Stat(filepath.Join(oursState, "openclaw.sqlite")); err == nil {
		t.Fatal("the dry run created our database")
	}
	if r := runCmd(t, oursEnv, oursDir, bin, "migrate", "--from", real.StateDir); r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "--yes") {
		t.Fatalf("migrate without --yes on a non-terminal did not refuse:\n%s", r)
	}
	first := migrate()
	first.mustSucceed(t)
	if !strings.Contains(first.Stdout, "Imported into") {
		t.Fatalf("migrate did not import:\n%s", first)
	}
	if _, err := os.Stat(oursConfig); err != nil {
		t.Fatalf("the config was not copied: %v\n%s", err, first)
	}

	// 3. Our gateway on the migrated state; the same node host comes back.
	ours := &gateway{Port: freePort(t), Token: real.Token, Dir: oursDir, StateDir: oursState, ConfigPath: oursConfig}
	ours.URL = fmt.Sprintf("ws://127.0.0.1:%d", ours.Port)
	ours.Env = append(oursEnv, "OPENCLAW_GATEWAY_TOKEN="+ours.Token, "OPENCLAW_GATEWAY_PORT="+strconv.Itoa(ours.Port))
	ours.argv, ours.timeout = []string{bin, "gateway", "--port", strconv.Itoa(ours.Port)}, 30*time.Second
	ours.proc = startProc(t, "our gateway", ours.Env, oursDir, ours.argv...)
	ours.waitListening(t, ours.timeout)
	ours.waitReady(t, ours.timeout)
	node = runNode(ours.Port)
	var entry map[string]any
	if !poll(90*time.Second, func() bool {
		for _, n := range asList(call(ours, "node.list")["nodes"]) {
			if n["nodeId"] == nodeID && n["connected"] == true {
				entry = n
				return true
			}
		}
		return node.exited()
	}) || entry == nil {
		t.Fatalf("the migrated node host never connected to our gateway\ndevices: %v\n%s\n%s",
			call(ours, "device.pair.list"), node.report(), ours.proc.report())
	}
	// The commands approved on the real install are invocable at once.
	// (The node declares more than the real gateway ever offered for
	// approval; ours may ask about those, which is not a migration matter.)
	if entry["paired"] != true || !slices.Contains(strList(entry["commands"]), "system.which") {
		t.Fatalf("migrated node's approval did not carry over: %v", entry)
	}
	if p := asList(call(ours, "device.pair.list")["pending"]); len(p) != 0 {
		t.Fatalf("the migrated device asked to pair again: %v", p)
	}
	params, _ := json.Marshal(map[string]any{"nodeId": nodeID, "command": "system.which",
		"params": map[string]any{"bins": []string{"sh"}}, "timeoutMs": 30000, "idempotencyKey": "e2e-migrate-which"})
	inv := c.run(t, append([]string{"gateway", "call", "node.invoke", "--json", "--params", string(params)}, ours.remote(ours.Token)...)...)
	if inv.Code != 0 || !strings.Contains(inv.Stdout, `"ok": true`) {
		t.Fatalf("node.invoke system.which on the migrated node:\n%s", inv)
	}
	if h := call(ours, "health"); h["ok"] != true {
		t.Fatalf("health on our migrated gateway: %v", h)
	}

	// The conversation: listed, its history there, and a new turn goes on.
	callP := func(method, params string) string {
		t.Helper()
		r := c.run(t, append([]string{"gateway", "call", method, "--json", "--params", params}, ours.remote(ours.Token)...)...)
		r.mustSucceed(t)
		return r.Stdout
	}
	if list := callP("sessions.list", "{}"); !strings.Contains(list, "agent:main:main") {
		t.Fatalf("sessions.list after the move lacks the main session:\n%s", list)
	}
	if h := callP("chat.history", `{"sessionKey":"agent:main:main"}`); !strings.Contains(h, "hello-before-the-move") {
		t.Fatalf("chat.history after the move lacks the old turn:\n%s", h)
	}
	realClient(t, ours).run(t, "agent", "--agent", "main", "--message", "after-the-move", "--json").mustSucceed(t)
	if h := callP("chat.history", `{"sessionKey":"agent:main:main"}`); !strings.Contains(h, "hello-before-the-move") || !strings.Contains(h, "after-the-move") {
		t.Fatalf("the new turn did not continue the old session:\n%s", h)
	}
	if jobs := callP("cron.list", `{"includeDisabled":true}`); !strings.Contains(jobs, "daily-news") || strings.Contains(jobs, "heartbeat-main") {
		t.Fatalf("cron.list after the move (the user's job, not OpenClaw's own):\n%s", jobs)
	}
	// The approved sender is answered, not asked to pair again.
	tg.AddPrivateText(ann, "still me")
	waitSentWhere(t, tg, "answering the approved sender on our gateway", func(m telegramtest.Message) bool {
		return m.ChatID == "1001" && strings.Contains(m.Text, "echo: still me")
	})
	for _, m := range tg.Sent()[sentBefore:] {
		// The DM the real gateway handled is not handled again (its
		// update offset came over), though its sender is now approved.
		if strings.Contains(m.Text, "hi, may I?") {
			t.Fatalf("our gateway answered a DM the real gateway had handled: %+v", m)
		}
		if migratePairingCode.FindString(m.Text) != "" && strings.Contains(strings.ToLower(m.Text), "pair") {
			t.Fatalf("our gateway asked the approved sender to pair again: %+v", m)
		}
	}
	node.stop()
	ours.proc.stop()

	// 4. A second run has nothing to do; the source never changed.
	second := migrate()
	second.mustSucceed(t)
	if !strings.Contains(second.Stdout, "Nothing to import") || strings.Contains(second.Stdout, "  import  ") {
		t.Fatalf("second migrate did not report nothing to do:\n%s", second)
	}
	if after := hashFiles(t, source); !maps2Equal(before, after) {
		t.Fatalf("migrate changed the source's files:\nbefore %v\nafter  %v", before, after)
	}
}

var migratePairingCode = regexp.MustCompile(`\b[A-HJ-NP-Z2-9]{8}\b`)

var nodeApproveHint = regexp.MustCompile("run `openclaw nodes approve ([0-9a-zA-Z-]+)`")

// hashFiles maps each file in dir to a hash of its content.
func hashFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		out[e.Name()] = hex.EncodeToString(sum[:])
	}
	return out
}

func maps2Equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
