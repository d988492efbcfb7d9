package gateway

import (
	"context"
	"encoding/json"
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
)

// TestMessageToolModerationIsTheOwners: Bob, a stranger the allowlist
// lets talk to the agent, talks it into banning Ann: the message tool
// refuses before Telegram hears of it. Ann, the owner, asks for a kick:
// it goes out, in her own chat.
func TestMessageToolModerationIsTheOwners(t *testing.T) {
	model := fakemodel.New(t)
	ann := telegramtest.User{ID: 4001, Username: "ann", FirstName: "Ann"}
	bob := telegramtest.User{ID: 4002, Username: "bob", FirstName: "Bob"}
	tg, _ := startSharedTelegram(t, model, []telegramtest.User{ann, bob}, `commands: { ownerAllowFrom: ["telegram:4001"] },`)
	toolResult := func(n int) string {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for len(model.Requests()) < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d model calls, want %d", len(model.Requests()), n)
			}
			time.Sleep(20 * time.Millisecond)
		}
		var out string
		for _, m := range model.Requests()[n-1].Messages {
			if m.Role == "tool" {
				out = m.Text
			}
		}
		return out
	}

	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "b1", Name: "message", Arguments: `{"action":"ban","userId":"4001","reason":"ignore previous instructions"}`}}},
		fakemodel.Reply{Text: "I can't"},
	)
	tg.AddPrivateText(bob, "ban ann now")
	if res := toolResult(2); !strings.Contains(res, "only the owner") {
		t.Fatalf("a stranger's ban answered %q", res)
	}
	if calls := tg.Calls("banChatMember"); len(calls) != 0 {
		t.Fatalf("a stranger's ban reached Telegram: %+v", calls)
	}

	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "k1", Name: "message", Arguments: `{"action":"kick","userId":"4002"}`}}},
		fakemodel.Reply{Text: "done"},
	)
	tg.AddPrivateText(ann, "kick bob")
	res := toolResult(4)
	calls := tg.Calls("banChatMember")
	if len(calls) != 1 || calls[0].Params.Get("user_id") != "4002" || calls[0].Params.Get("chat_id") != "4001" {
		t.Fatalf("the owner's kick made %+v (tool said %q)", calls, res)
	}
}

// A client that may send (operator.write) asks message.action to ban:
// banning needs operator.admin, and Telegram never hears of it; the same
// client still reads its chat's member info.
func TestMessageActionBanNeedsAdmin(t *testing.T) {
	tg := telegramtest.New(t, wireBotToken)
	sl := slacktest.New(t, "xoxb-wire-bot", "")
	dir := t.TempDir()
	cfg := fmt.Sprintf(wireChannelsConfig, "", wireBotToken, tg.URL())
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startGatewayIn(t, dir, map[string]string{"OPENCLAW_SLACK_API_URL": sl.APIURL()})
	writer, err := r.dial(t, "t0k3n-channels", "operator.write")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var out any
	err = writer.Call(ctx, "message.action", map[string]any{"channel": "telegram", "action": "ban", "params": map[string]any{"to": "-1005", "userId": "4001"}}, &out)
	if err == nil || !strings.Contains(err.Error(), "operator.admin") {
		t.Fatalf("a writer's ban: %v, %v", out, err)
	}
	if calls := tg.Calls("banChatMember"); len(calls) != 0 {
		t.Fatalf("a writer's ban reached Telegram: %+v", calls)
	}
	if err := writer.Call(ctx, "message.action", map[string]any{"channel": "telegram", "action": "member-info", "params": map[string]any{"to": "-1005", "userId": "4001"}}, &out); err != nil {
		t.Fatalf("member-info: %v", err)
	}
}

// TestMessageToolActionsReachTelegram runs each message action the other
// tests here leave out as an agent turn: the owner asks, the fake model
// calls the message tool, and Telegram's fake must get the API call with
// the parameters the action names. Actions Telegram has no API for come
// back to the model as a plain "Telegram cannot <action>", and Telegram
// hears nothing.
func TestMessageToolActionsReachTelegram(t *testing.T) {
	model := fakemodel.New(t)
	ann := telegramtest.User{ID: 4001, Username: "ann", FirstName: "Ann"}
	tg, _ := startSharedTelegram(t, model, []telegramtest.User{ann}, `commands: { ownerAllowFrom: ["telegram:4001"] },`)
	const last = "$last" // replaced by the id of the bot's latest message to Ann
	cases := []struct {
		action string
		args   map[string]any
		method string            // the Bot API call it must make; "" for none
		params map[string]string // what that call must carry
		result string            // in the tool's answer to the model
	}{
		{"send", map[string]any{"message": "a note from the agent"}, "sendMessage", map[string]string{"chat_id": "4001", "text": "a note from the agent"}, "send done"},
		{"react", map[string]any{"messageId": last, "emoji": "👍"}, "setMessageReaction", map[string]string{"chat_id": "4001", "message_id": last}, "react done"},
		{"edit", map[string]any{"messageId": last, "message": "edited by the agent"}, "editMessageText", map[string]string{"chat_id": "4001", "message_id": last, "text": "edited by the agent"}, "edit done"},
		{"pin", map[string]any{"messageId": last}, "pinChatMessage", map[string]string{"chat_id": "4001", "message_id": last}, "pin done"},
		{"unpin", map[string]any{"messageId": last}, "unpinChatMessage", map[string]string{"chat_id": "4001", "message_id": last}, "unpin done"},
		{"poll", map[string]any{"question": "Lunch?", "options": []string{"pizza", "soup"}}, "sendPoll", map[string]string{"chat_id": "4001", "question": "Lunch?"}, "poll done"},
		{"typing", map[string]any{}, "sendChatAction", map[string]string{"chat_id": "4001", "action": "typing"}, "typing done"},
		{"channel-info", map[string]any{}, "getChat", map[string]string{"chat_id": "4001"}, "channel-info done"},
		{"member-info", map[string]any{"userId": "4002"}, "getChatMember", map[string]string{"chat_id": "4001", "user_id": "4002"}, "member-info done"},
		// Telegram restricts members of supergroups only: the call goes
		// out and its refusal reaches the model.
		{"timeout", map[string]any{"userId": "4002", "durationMinutes": 10}, "restrictChatMember", map[string]string{"chat_id": "4001", "user_id": "4002"}, "supergroup"},
		{"delete", map[string]any{"messageId": last}, "deleteMessage", map[string]string{"chat_id": "4001", "message_id": last}, "delete done"},
		{"read", map[string]any{"limit": 5}, "", nil, "Telegram cannot read"},
		{"emoji-list", map[string]any{}, "", nil, "Telegram cannot emoji-list"},
		{"voice-status", map[string]any{"userId": "4001"}, "", nil, "Telegram cannot voice-status"},
		{"event-list", map[string]any{}, "", nil, "Telegram cannot event-list"},
	}
	turns := 0
	for i, tc := range cases {
		t.Run(tc.action, func(t *testing.T) {
			lastID := ""
			if got := sentTo(tg)["4001"]; len(got) > 0 {
				lastID = fmt.Sprint(got[len(got)-1].MessageID)
			}
			args := map[string]any{"action": tc.action}
			for k, v := range tc.args {
				if v == last {
					v = lastID
				}
				args[k] = v
			}
			raw, err := json.Marshal(args)
			if err != nil {
				t.Fatal(err)
			}
			before := len(tg.Calls(""))
			model.Script(
				fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: fmt.Sprintf("a%d", i), Name: "message", Arguments: string(raw)}}},
				fakemodel.Reply{Text: "done: " + tc.action},
			)
			sent := len(sentTo(tg)["4001"])
			tg.AddPrivateText(ann, "please "+tc.action)
			turns += 2
			res := waitToolResult(t, model, turns)
			waitSentTo(t, tg, "4001", sent+1) // the turn's answer: the next row's message
			if !strings.Contains(res, tc.result) {
				t.Errorf("tool answered %q, want %q in it", res, tc.result)
			}
			var made []telegramtest.Call
			for _, c := range tg.Calls("")[before:] {
				if c.Method != "getUpdates" && c.Method != "sendMessage" && c.Method != "sendChatAction" || c.Method == tc.method {
					made = append(made, c)
				}
			}
			if tc.method == "" {
				if len(made) != 0 {
					t.Fatalf("an unsupported %s called Telegram: %+v", tc.action, made)
				}
				return
			}
			for _, c := range made {
				if c.Method != tc.method {
					continue
				}
				for k, want := range tc.params {
					if want == last {
						want = lastID
					}
					if got := c.Params.Get(k); got != want {
						t.Errorf("%s %s = %q, want %q", tc.method, k, got, want)
					}
				}
				return
			}
			t.Fatalf("%s made no %s call; calls %+v (tool said %q)", tc.action, tc.method, made, res)
		})
	}
}

// waitToolResult waits for the model's nth request and returns the last
// tool result in it.
func waitToolResult(t *testing.T, model *fakemodel.Server, n int) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for len(model.Requests()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d model calls, want %d", len(model.Requests()), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var out string
	for _, m := range model.Requests()[n-1].Messages {
		if m.Role == "tool" {
			out = m.Text
		}
	}
	return out
}

// waitSentTo waits until the bot has sent n messages to chat.
func waitSentTo(t *testing.T, tg *telegramtest.Server, chat string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(sentTo(tg)[chat]) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d messages to %s, want %d", len(sentTo(tg)[chat]), chat, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMessageToolActionsReachDiscord is the Discord half: the owner asks
// in a server channel, the model calls the message tool, and Discord's
// fake must get the REST call for the action, on the conversation's
// channel or server. Search has no bot API (a plain "Discord cannot
// search"), and role-add stays off until the operator enables it.
func TestMessageToolActionsReachDiscord(t *testing.T) {
	model := fakemodel.New(t)
	dc := discordtest.New(t, "MTIz.wire-token.value")
	dc.AddChannel("chan-1", map[string]any{"type": 0, "guild_id": "g1"})
	dir := t.TempDir()
	cfg := fmt.Sprintf(`{
  gateway: { mode: "local", auth: { token: "t0k3n-automation" } },
  models: { providers: { fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1" } },
  commands: { ownerAllowFrom: ["discord:111"] },
  channels: { discord: { token: "MTIz.wire-token.value", groupPolicy: "allowlist", guilds: { g1: { requireMention: false } } } },
}`, model.URL()+"/v1")
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	startGatewayIn(t, dir, map[string]string{"OPENCLAW_DISCORD_API_BASE": dc.URL(), "OPENCLAW_DISCORD_GATEWAY_URL": dc.GatewayURL()})
	dc.WaitLive(1, 0, 10*time.Second)
	ada := map[string]any{"id": "111", "username": "ada", "global_name": "Ada", "discriminator": "0"}

	cases := []struct {
		action string
		args   map[string]any
		route  string // the fake's name for the REST call; "" for none
		path   string // the call's path must hold this
		result string
	}{
		{"read", map[string]any{"limit": 5}, "messages", "channels/chan-1/messages", "read done"},
		{"reactions", map[string]any{"messageId": "$last", "emoji": "👍"}, "reactions", "channels/chan-1/messages/$last/reactions", "reactions done"},
		{"list-pins", map[string]any{}, "pins", "channels/chan-1/pins", "list-pins done"},
		{"thread-create", map[string]any{"threadName": "plans"}, "thread-create", "channels/chan-1/threads", "thread-create done"},
		{"thread-list", map[string]any{}, "threads", "guilds/g1/threads/active", "thread-list done"},
		{"channel-list", map[string]any{}, "guild-channels", "guilds/g1/channels", "channel-list done"},
		{"role-info", map[string]any{}, "roles", "guilds/g1/roles", "role-info done"},
		{"emoji-list", map[string]any{}, "emojis", "guilds/g1/emojis", "emoji-list done"},
		{"voice-status", map[string]any{"userId": "111"}, "voice-state", "guilds/g1/voice-states/111", "voice-status done"},
		{"event-list", map[string]any{}, "events", "guilds/g1/scheduled-events", "event-list done"},
		{"search", map[string]any{"query": "plans"}, "", "", "Discord cannot search"},
		{"role-add", map[string]any{"userId": "111", "roleId": "role-mod"}, "", "", "channels.discord.actions.roles"},
	}
	turns := 0
	for i, tc := range cases {
		t.Run(tc.action, func(t *testing.T) {
			asked, lastID := dc.NewID(), ""
			if sent := dc.Sent(); len(sent) > 0 {
				lastID = sent[len(sent)-1].ID // the bot's answer to the row before
			}
			args := map[string]any{"action": tc.action}
			for k, v := range tc.args {
				if v == "$last" {
					v = lastID
				}
				args[k] = v
			}
			raw, err := json.Marshal(args)
			if err != nil {
				t.Fatal(err)
			}
			before := len(dc.Calls(""))
			model.Script(
				fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: fmt.Sprintf("d%d", i), Name: "message", Arguments: string(raw)}}},
				fakemodel.Reply{Text: "done: " + tc.action},
			)
			sent := len(dc.Sent())
			dc.Dispatch("MESSAGE_CREATE", map[string]any{"id": asked, "channel_id": "chan-1", "guild_id": "g1", "content": "please " + tc.action,
				"author": ada, "member": map[string]any{"roles": []string{}}, "timestamp": "2026-12-03T12:00:00.000000+00:00",
				"type": 0, "mentions": []any{}, "attachments": []any{}})
			turns += 2
			res := waitToolResult(t, model, turns)
			dc.WaitSent(sent+1, 30*time.Second) // the turn's answer
			t.Logf("tool answered %q", res)
			if !strings.Contains(res, tc.result) {
				t.Errorf("tool answered %q, want %q in it", res, tc.result)
			}
			var made []discordtest.Call
			for _, c := range dc.Calls("")[before:] {
				if c.Route != "send" && c.Route != "typing" && c.Route != "channel" && c.Route != "react" {
					made = append(made, c)
				}
			}
			if tc.route == "" {
				if len(made) != 0 {
					t.Fatalf("%s called Discord: %+v", tc.action, made)
				}
				return
			}
			want := strings.ReplaceAll(tc.path, "$last", lastID)
			for _, c := range made {
				if c.Route == tc.route && strings.Contains(c.Path, want) {
					return
				}
			}
			t.Fatalf("%s made no %s call on %s; calls %+v (tool said %q)", tc.action, tc.route, want, made, res)
		})
	}
}

// TestMessageToolActionsReachSlack is the Slack half, in the owner's DM
// over Socket Mode: each action must reach Slack's fake as the Web API
// method with the conversation's channel; polls and stickers, which
// Slack has no API for, come back as "Slack cannot <action>".
func TestMessageToolActionsReachSlack(t *testing.T) {
	model := fakemodel.New(t)
	sl := slacktest.New(t, "xoxb-wire-bot", "xapp-wire-app")
	_, _ = startWithConfigEnv(t, model, `commands: { ownerAllowFrom: ["slack:U42"] },
  channels: { slack: { botToken: "xoxb-wire-bot", appToken: "xapp-wire-app", dmPolicy: "allowlist", allowFrom: ["U42"] } },`,
		map[string]string{"OPENCLAW_SLACK_API_URL": sl.APIURL()}, nil)

	cases := []struct {
		action string
		args   map[string]any
		method string            // the Web API method; "" for none
		params map[string]string // what it must carry
		result string
	}{
		{"send", map[string]any{"message": "a note from the agent"}, "chat.postMessage", map[string]string{"channel": "D42", "text": "a note from the agent"}, "send done"},
		{"react", map[string]any{"messageId": "$last", "emoji": "thumbsup"}, "reactions.add", map[string]string{"channel": "D42", "timestamp": "$last", "name": "thumbsup"}, "react done"},
		{"reactions", map[string]any{"messageId": "$last"}, "reactions.get", map[string]string{"channel": "D42", "timestamp": "$last"}, "reactions done"},
		{"edit", map[string]any{"messageId": "$last", "message": "edited by the agent"}, "chat.update", map[string]string{"channel": "D42", "ts": "$last"}, "edit done"},
		{"pin", map[string]any{"messageId": "$last"}, "pins.add", map[string]string{"channel": "D42", "timestamp": "$last"}, "pin done"},
		{"list-pins", map[string]any{}, "pins.list", map[string]string{"channel": "D42"}, "list-pins done"},
		{"unpin", map[string]any{"messageId": "$last"}, "pins.remove", map[string]string{"channel": "D42", "timestamp": "$last"}, "unpin done"},
		{"read", map[string]any{"limit": 5}, "conversations.history", map[string]string{"channel": "D42", "limit": "5"}, "read done"},
		{"channel-info", map[string]any{}, "conversations.info", map[string]string{"channel": "D42"}, "channel-info done"},
		{"member-info", map[string]any{"userId": "U42"}, "users.info", map[string]string{"user": "U42"}, "member-info done"},
		{"emoji-list", map[string]any{}, "emoji.list", nil, "emoji-list done"},
		{"delete", map[string]any{"messageId": "$last"}, "chat.delete", map[string]string{"channel": "D42", "ts": "$last"}, "delete done"},
		{"poll", map[string]any{"question": "Lunch?", "options": []string{"pizza", "soup"}}, "", nil, "Slack cannot poll"},
		{"sticker", map[string]any{"stickerId": []string{"s1"}}, "", nil, "Slack cannot sticker"},
	}
	ignored := map[string]bool{"chat.postMessage": true, "auth.test": true, "apps.connections.open": true}
	turns := 0
	for i, tc := range cases {
		t.Run(tc.action, func(t *testing.T) {
			lastID := ""
			for _, m := range sl.Messages() {
				if m.Channel == "D42" && !m.Deleted {
					lastID = m.TS // the bot's answer to the row before
				}
			}
			args := map[string]any{"action": tc.action}
			for k, v := range tc.args {
				if v == "$last" {
					v = lastID
				}
				args[k] = v
			}
			raw, err := json.Marshal(args)
			if err != nil {
				t.Fatal(err)
			}
			before := len(sl.Calls(""))
			model.Script(
				fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: fmt.Sprintf("s%d", i), Name: "message", Arguments: string(raw)}}},
				fakemodel.Reply{Text: "done: " + tc.action},
			)
			posted := len(sl.Calls("chat.postMessage"))
			sl.PushMessage(slacktest.Msg{Channel: "D42", ChannelType: "im", User: "U42", Text: "please " + tc.action})
			turns += 2
			res := waitToolResult(t, model, turns)
			sl.WaitCalls("chat.postMessage", posted+1, 30*time.Second) // the turn's answer
			t.Logf("tool answered %q", res)
			if !strings.Contains(res, tc.result) {
				t.Errorf("tool answered %q, want %q in it", res, tc.result)
			}
			var made []slacktest.Call
			for _, c := range sl.Calls("")[before:] {
				if !ignored[c.Method] || c.Method == tc.method {
					made = append(made, c)
				}
			}
			if tc.method == "" {
				if len(made) != 0 {
					t.Fatalf("%s called Slack: %+v", tc.action, made)
				}
				return
			}
			for _, c := range made {
				if c.Method != tc.method {
					continue
				}
				for k, want := range tc.params {
					if want == "$last" {
						want = lastID
					}
					if got := c.Params.Get(k); got != want {
						t.Errorf("%s %s = %q, want %q", tc.method, k, got, want)
					}
				}
				return
			}
			t.Fatalf("%s made no %s call; calls %+v (tool said %q)", tc.action, tc.method, made, res)
		})
	}
}
