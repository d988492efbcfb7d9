package gateway

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/discord/discordtest"
	"github.com/openclaw-go/openclaw/channels/slack/slacktest"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
	"github.com/openclaw-go/openclaw/gateway/client"
)

// heartbeatNow runs the main agent's heartbeat job as its schedule would
// and returns last-heartbeat.
func heartbeatNow(t *testing.T, c *client.Client) map[string]any {
	t.Helper()
	if res := call[map[string]any](t, c, "cron.run", map[string]any{"id": "heartbeat:main"}); res["ran"] != true {
		t.Fatalf("cron.run heartbeat: %v", res)
	}
	nextEvent(t, c, "cron", func(p map[string]any) bool { return p["jobId"] == "heartbeat:main" && p["action"] == "finished" })
	return call[map[string]any](t, c, "last-heartbeat", map[string]any{})
}

// TestHeartbeatToOwner: heartbeat target "owner", OpenClaw's default,
// sends the alert to the owner's DM: the first person
// commands.ownerAllowFrom names, else the first of a channel's
// allowFrom, on Telegram directly and on Discord and Slack through the DM
// they open with that user. An allowlist of "*" or a group id names no
// owner: the scheduled heartbeat is skipped before any model call, and
// the group never hears it.
func TestHeartbeatToOwner(t *testing.T) {
	const slackBot = "xoxb-owner-bot"
	cases := []struct {
		name     string
		channels string // the channels and commands blocks
		sent     func(tg *telegramtest.Server, dc *discordtest.Server, sl *slacktest.Server) []string
		noRoute  bool
	}{
		{name: "telegram ownerAllowFrom",
			channels: `channels: { telegram: { botToken: {TG_TOKEN}, apiRoot: {TG_URL}, allowFrom: ["6001", "6002"] } },
  commands: { ownerAllowFrom: ["telegram:6002"] },`,
			sent: func(tg *telegramtest.Server, _ *discordtest.Server, _ *slacktest.Server) []string {
				return sentToChat(tg, 6002)
			}},
		{name: "telegram allowFrom",
			channels: `channels: { telegram: { botToken: {TG_TOKEN}, apiRoot: {TG_URL}, allowFrom: ["*", "tg:6001"] } },`,
			sent: func(tg *telegramtest.Server, _ *discordtest.Server, _ *slacktest.Server) []string {
				return sentToChat(tg, 6001)
			}},
		{name: "discord opens the DM",
			channels: `channels: { discord: { token: "discord-owner-token", dmPolicy: "allowlist", allowFrom: ["discord:777"] } },`,
			sent: func(_ *telegramtest.Server, dc *discordtest.Server, _ *slacktest.Server) []string {
				var out []string
				for _, m := range dc.Sent() {
					if m.ChannelID == discordtest.DMChannelOf("777") {
						out = append(out, m.Content)
					}
				}
				return out
			}},
		{name: "slack opens the DM",
			channels: `channels: { slack: { mode: "http", botToken: {SLACK_BOT}, signingSecret: "owner-signing", dmPolicy: "allowlist", allowFrom: ["U900"] } },
  commands: { ownerAllowFrom: ["slack:U900"] },`,
			sent: func(_ *telegramtest.Server, _ *discordtest.Server, sl *slacktest.Server) []string {
				var out []string
				for _, m := range sl.Messages() {
					if m.Channel == slacktest.DMOf("U900") {
						out = append(out, m.Text)
					}
				}
				return out
			}},
		{name: "a star names nobody", noRoute: true,
			channels: `channels: { telegram: { botToken: {TG_TOKEN}, apiRoot: {TG_URL}, dmPolicy: "open", allowFrom: ["*"] } },`},
		{name: "a group is never the owner", noRoute: true,
			channels: `channels: { telegram: { botToken: {TG_TOKEN}, apiRoot: {TG_URL}, dmPolicy: "open", allowFrom: ["*"], groups: { "-100777": {} } } },
  commands: { ownerAllowFrom: ["telegram:-100777"] },`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			model := fakemodel.New(t)
			tg := telegramtest.New(t, sharedBotToken)
			dc := discordtest.New(t, "discord-owner-token")
			sl := slacktest.New(t, slackBot, "")
			dir := t.TempDir()
			cfg := fmt.Sprintf(`{
  gateway: { mode: "local", auth: { token: "t0k3n-owner" } },
  models: { providers: { fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1", heartbeat: { every: "30m" } } },
  %s
}`, model.URL()+"/v1", strings.NewReplacer("{TG_TOKEN}", fmt.Sprintf("%q", sharedBotToken),
				"{TG_URL}", fmt.Sprintf("%q", tg.URL()), "{SLACK_BOT}", fmt.Sprintf("%q", slackBot)).Replace(tc.channels))
			if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dir, "workspace"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "workspace", "HEARTBEAT.md"), []byte("- check the backups\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			r := startGatewayIn(t, dir, map[string]string{
				"OPENCLAW_SLACK_API_URL":       sl.APIURL(),
				"OPENCLAW_DISCORD_API_BASE":    dc.URL(),
				"OPENCLAW_DISCORD_GATEWAY_URL": dc.GatewayURL(),
			})
			c, err := r.dial(t, "t0k3n-owner", "operator.admin")
			if err != nil {
				t.Fatal(err)
			}
			model.Script(fakemodel.Reply{Text: "The backups failed last night."})
			// The account must be running before the DM can be opened.
			deadline := time.Now().Add(30 * time.Second)
			var last map[string]any
			for {
				last = heartbeatNow(t, c)
				if tc.noRoute || last["status"] == "sent" || time.Now().After(deadline) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if tc.noRoute {
				if last["status"] != "skipped" || last["reason"] != "no-route" || !strings.Contains(fmt.Sprint(last["message"]), "ownerAllowFrom") {
					t.Fatalf("last-heartbeat: %v", last)
				}
				if n := len(model.Requests()); n != 0 {
					t.Errorf("%d model calls for a heartbeat nobody could receive", n)
				}
				if len(tg.Sent()) != 0 {
					t.Errorf("sent %+v", tg.Sent())
				}
				return
			}
			if last["status"] != "sent" {
				t.Fatalf("last-heartbeat: %v", last)
			}
			if got := tc.sent(tg, dc, sl); len(got) != 1 || !strings.Contains(got[0], "backups failed") {
				t.Errorf("the owner's DM got %q", got)
			}
		})
	}
}
