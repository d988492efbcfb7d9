package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/slack/slacktest"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
	"github.com/openclaw-go/openclaw/gateway/client"
)

// wireChannelsConfig configures one account of every network: Telegram
// and Slack (HTTP Events) on their fakes, Discord without a token (it
// cannot start), WhatsApp never linked (logged out).
const wireChannelsConfig = `{
  gateway: { mode: "local", auth: { token: "t0k3n-channels" } },
  %s
  channels: {
    telegram: { botToken: %q, apiRoot: %q, allowFrom: ["4001"] },
    slack: { mode: "http", botToken: "xoxb-wire-bot", signingSecret: "wire-signing-secret", dmPolicy: "allowlist", allowFrom: ["U42"] },
    discord: { dmPolicy: "open", allowFrom: ["*"] },
    whatsapp: { dmPolicy: "disabled" },
  },
}`

const wireBotToken = "123456:TEST-wire-channels"

func startWireChannels(t *testing.T, extra string) (*telegramtest.Server, *client.Client) {
	t.Helper()
	tg := telegramtest.New(t, wireBotToken)
	sl := slacktest.New(t, "xoxb-wire-bot", "")
	dir := t.TempDir()
	cfg := fmt.Sprintf(wireChannelsConfig, extra, wireBotToken, tg.URL())
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startGatewayIn(t, dir, map[string]string{"OPENCLAW_SLACK_API_URL": sl.APIURL()})
	c, err := r.dial(t, "t0k3n-channels", "operator.admin")
	if err != nil {
		t.Fatal(err)
	}
	return tg, c
}

// settledStatus polls channels.status until every account reached the
// state it stays in.
func settledStatus(t *testing.T, c *client.Client) map[string]any {
	t.Helper()
	want := map[string]string{"telegram": "connected", "slack": "connected", "discord": "stopped", "whatsapp": "logged-out"}
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := call[map[string]any](t, c, "channels.status", map[string]any{})
		accounts, _ := st["channelAccounts"].(map[string]any)
		settled := true
		for ch, state := range want {
			list, _ := accounts[ch].([]any)
			if len(list) != 1 || list[0].(map[string]any)["healthState"] != state {
				settled = false
			}
		}
		if settled {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("channels did not settle: %v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// callErr makes an RPC that must fail and returns its error text.
func callErr(t *testing.T, c *client.Client, method string, params any) string {
	t.Helper()
	err := c.Call(context.Background(), method, params, nil)
	if err == nil {
		t.Fatalf("%s %v: no error", method, params)
	}
	return err.Error()
}

// TestWireChannels pins the channel methods' answers, and the pairing
// events, as clients receive them.
func TestWireChannels(t *testing.T) {
	tg, c := startWireChannels(t, "")
	checkWire(t, "channels.status", settledStatus(t, c), "lastConnectedAt", "lastInboundAt", "lastOutboundAt")
	checkWire(t, "channels.status.channel", call[map[string]any](t, c, "channels.status", map[string]any{"channel": "slack"}), "lastConnectedAt", "lastInboundAt", "lastOutboundAt")

	// A stranger's DM asks for pairing; operators see the request.
	tg.AddPrivateText(telegramtest.User{ID: 5005, Username: "stranger", FirstName: "Stran"}, "hello?")
	requested := nextEvent(t, c, "channels.pairing.requested", nil)
	checkWire(t, "event.channels.pairing.requested", requested, "requestId")
	list := call[map[string]any](t, c, "channels.pairing.list", map[string]any{})
	checkWire(t, "channels.pairing.list", list, "requestId", "code", "lastSeenAt", "expiresAt")
	checkWire(t, "channels.pairing.list.slack", call[map[string]any](t, c, "channels.pairing.list", map[string]any{"channel": "slack"}))
	dismissed := call[map[string]any](t, c, "channels.pairing.dismiss", map[string]any{"channel": "telegram", "requestId": requested["requestId"]})
	checkWire(t, "channels.pairing.dismiss", dismissed, "requestId")
	checkWire(t, "event.channels.pairing.resolved", nextEvent(t, c, "channels.pairing.resolved", nil), "requestId")

	sent := call[map[string]any](t, c, "send", map[string]any{"to": "tg:4001", "message": "hi from the wire", "idempotencyKey": "wire-send-1"})
	checkWire(t, "send", sent, "messageId")
	checkWire(t, "channels.stop", call[map[string]any](t, c, "channels.stop", map[string]any{"channel": "slack"}))
	checkWire(t, "channels.start", call[map[string]any](t, c, "channels.start", map[string]any{"channel": "slack"}))
	checkWire(t, "channels.logout", call[map[string]any](t, c, "channels.logout", map[string]any{"channel": "discord"}))

	errs := map[string]string{}
	for _, tc := range []struct {
		name, method string
		params       map[string]any
	}{
		{"status-unknown-channel", "channels.status", map[string]any{"channel": "irc"}},
		{"start-unknown-channel", "channels.start", map[string]any{"channel": "irc"}},
		{"logout-unknown-account", "channels.logout", map[string]any{"channel": "telegram", "accountId": "nope"}},
		{"send-no-key", "send", map[string]any{"to": "tg:4001", "message": "x"}},
		{"send-signal", "send", map[string]any{"to": "signal:+15550001", "message": "x", "idempotencyKey": "wire-send-2"}},
		{"send-ambiguous", "send", map[string]any{"to": "4001", "message": "x", "idempotencyKey": "wire-send-3"}},
		{"action-unknown", "message.action", map[string]any{"channel": "telegram", "action": "bogus", "params": map[string]any{"to": "4001"}}},
		{"login-telegram", "web.login.start", map[string]any{"channel": "telegram"}},
		{"login-wait-default", "web.login.wait", map[string]any{}},
		{"pairing-approve-missing", "channels.pairing.approve", map[string]any{"channel": "telegram", "requestId": "NOPE1234"}},
	} {
		errs[tc.name] = callErr(t, c, tc.method, tc.params)
	}
	checkWire(t, "channels.errors", errs)
}

// TestWireChannelApproval pins the approval events of a turn a chat
// started (exec and plugin, requested and resolved) and the question
// asked in that chat with buttons.
func TestWireChannelApproval(t *testing.T) {
	model := fakemodel.New(t)
	owner := telegramtest.User{ID: 4001, Username: "ann", FirstName: "Ann"}
	tg, c := startWireChannels(t, fmt.Sprintf(`
  models: { providers: { fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1" } },
  tools: { guard: { rules: [{ tool: "DateTimeTool", action: "require_approval" }] } },
  commands: { ownerAllowFrom: ["telegram:4001"] },`, model.URL()+"/v1"))
	settledStatus(t, c)
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "d1", Name: "DateTimeTool", Arguments: `{"timezone":"UTC"}`}}},
		fakemodel.Reply{Text: "done"},
	)
	tg.AddPrivateText(owner, "what time is it?")
	exec := nextEvent(t, c, "exec.approval.requested", nil)
	id, _ := exec["id"].(string)
	if id == "" {
		t.Fatalf("exec.approval.requested without an id: %v", exec)
	}
	scrub := func(v map[string]any) map[string]any {
		b, _ := json.Marshal(v)
		s := strings.ReplaceAll(string(b), id, "<id>")
		s = strings.ReplaceAll(s, id[:8], "<short>")
		var out map[string]any
		json.Unmarshal([]byte(s), &out)
		return out
	}
	checkWire(t, "event.exec.approval.requested", scrub(exec))
	checkWire(t, "event.plugin.approval.requested", scrub(nextEvent(t, c, "plugin.approval.requested", nil)))

	var ask telegramtest.Message
	deadline := time.Now().Add(30 * time.Second)
	for ask.MessageID == 0 {
		for _, m := range tg.Sent() {
			if strings.Contains(m.ReplyMarkup, "approve:") {
				ask = m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no approval was asked in the chat; sent %+v", tg.Sent())
		}
		time.Sleep(20 * time.Millisecond)
	}
	var markup any
	json.Unmarshal([]byte(strings.ReplaceAll(ask.ReplyMarkup, id, "<id>")), &markup)
	checkWire(t, "telegram.approval.ask", map[string]any{"chatId": ask.ChatID, "text": strings.ReplaceAll(ask.Text, id, "<id>"), "replyMarkup": markup})

	data := regexp.MustCompile(`approve:[0-9a-f-]+:allow-once`).FindString(ask.ReplyMarkup)
	tg.AddCallback(owner.ID, ask.MessageID, owner, data)
	checkWire(t, "event.exec.approval.resolved", scrub(nextEvent(t, c, "exec.approval.resolved", nil)))
	checkWire(t, "event.plugin.approval.resolved", scrub(nextEvent(t, c, "plugin.approval.resolved", nil)))
}
