package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/slack/slacktest"
)

// TestSlackEndToEnd: the real binary on a fake Slack (Web API and Socket
// Mode) answers a DM and a channel mention in mrkdwn, in the thread a
// message came from, and goes on after the socket drops.
func TestSlackEndToEnd(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	const bot, app = "xoxb-e2e-bot", "xapp-e2e-app"
	sl := slacktest.New(t, bot, app)
	g := startGateway(t, gatewayOpts{
		Config: fmt.Sprintf(`{
  gateway: { mode: "local" },
  models: { providers: { fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1" } },
  channels: { slack: { botToken: %q, appToken: %q, dmPolicy: "allowlist", allowFrom: ["U42"], channels: { C1: {} } } },
}`, model.URL()+"/v1", bot, app),
		Env: []string{"OPENCLAW_SLACK_API_URL=" + sl.APIURL()},
	})
	sl.WaitConnections(1, 30*time.Second)

	waitSlack := func(what string, pred func(slacktest.Message) bool) slacktest.Message {
		t.Helper()
		return waitSent(t, sl.Messages, what, pred)
	}
	sl.PushMessage(slacktest.Msg{Channel: "D1", ChannelType: "im", User: "U42", Text: "hello **slack**", TS: "1764500000.000100"})
	dm := waitSlack("answering the DM", func(m slacktest.Message) bool { return strings.Contains(m.Text, "echo: hello") })
	if dm.Channel != "D1" || !strings.Contains(dm.Text, "*slack*") {
		t.Errorf("DM answer %+v: want mrkdwn bold in D1", dm)
	}
	sl.PushMessage(slacktest.Msg{Channel: "C1", ChannelType: "channel", User: "U42", Text: "chatter", TS: "1764500001.000100"})
	sl.PushAppMention(slacktest.Msg{Channel: "C1", ChannelType: "channel", User: "U42", Text: "<@" + slacktest.BotUserID + "> status?", TS: "1764500002.000100", ThreadTS: "1764500000.000900"})
	th := waitSlack("answering the mention", func(m slacktest.Message) bool { return strings.Contains(m.Text, "status?") })
	if th.Channel != "C1" || th.ThreadTS != "1764500000.000900" {
		t.Errorf("mention answer %+v: want it in the thread", th)
	}
	sl.PushMessage(slacktest.Msg{Channel: "D9", ChannelType: "im", User: "U999", Text: "stranger", TS: "1764500003.000100"})

	sl.DropSocket()
	sl.WaitConnections(2, 30*time.Second)
	sl.PushMessage(slacktest.Msg{Channel: "D1", ChannelType: "im", User: "U42", Text: "after the drop", TS: "1764500004.000100"})
	waitSlack("after the drop", func(m slacktest.Message) bool { return strings.Contains(m.Text, "after the drop") })

	for _, m := range sl.Messages() {
		if strings.Contains(m.Text, "chatter") || m.Channel == "D9" {
			t.Errorf("answered what it should not: %+v", m)
		}
	}
	counts := map[string]int{}
	for _, m := range sl.Messages() {
		counts[m.Text]++
	}
	for text, n := range counts {
		if n > 1 {
			t.Errorf("%q posted %d times", text, n)
		}
	}
	st := ourClient(t, g).run(t, "channels", "status")
	st.mustSucceed(t)
	if !strings.Contains(st.Stdout, "Slack") || !strings.Contains(st.Stdout, "connected") {
		t.Errorf("channels status:\n%s", st.Stdout)
	}
}
