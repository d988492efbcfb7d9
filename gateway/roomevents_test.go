package gateway

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
)

// roomGroup is the always-on Telegram group of the room event tests.
const roomGroup = -100500

// waitModelCalls waits until the fake model was asked n times.
func waitModelCalls(t *testing.T, model *fakemodel.Server, n int) []fakemodel.Recorded {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for len(model.Requests()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d model calls, want %d", len(model.Requests()), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return model.Requests()
}

// sentToChat is what the bot sent to chat, in order.
func sentToChat(tg *telegramtest.Server, chat int64) []string {
	var out []string
	for _, m := range tg.Sent() {
		if m.ChatID == fmt.Sprint(chat) {
			out = append(out, m.Text)
		}
	}
	return out
}

// waitSentWhere waits until the bot sent a message pred accepts.
func waitSentWhere(t *testing.T, tg *telegramtest.Server, what string, pred func(telegramtest.Message) bool) telegramtest.Message {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		for _, m := range tg.Sent() {
			if pred(m) {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no sent message %s; sent: %+v", what, tg.Sent())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitInbound waits until the first n updates were confirmed (their
// turns are over).
func waitInbound(t *testing.T, tg *telegramtest.Server, n int64) {
	t.Helper()
	for id := int64(1); id <= n; id++ {
		tg.WaitConfirmed(id, 60*time.Second)
	}
}

// startRoomGateway runs a gateway whose Telegram bot sits in roomGroup
// with mention gating off, under the given messages block.
func startRoomGateway(t *testing.T, model *fakemodel.Server, messages string) *telegramtest.Server {
	t.Helper()
	tg := telegramtest.New(t, sharedBotToken)
	startWithConfig(t, model, fmt.Sprintf(`channels: { telegram: { botToken: %q, apiRoot: %q, allowFrom: [5001, 5002],
    groupPolicy: "allowlist", groups: { "%d": { requireMention: false } } } },
  messages: %s,`, sharedBotToken, tg.URL(), roomGroup, messages))
	return tg
}

// TestRoomEvents: with messages.groupChat.unmentionedInbound "room_event"
// and visibleReplies "message_tool", an always-on group's chatter reaches
// the agent as quiet context: no typing, no reply, unless the agent sends
// with the message tool; a mention is a request whose final text stays
// private too; direct messages keep automatic replies.
func TestRoomEvents(t *testing.T) {
	model := fakemodel.New(t)
	ann := telegramtest.User{ID: 5001, Username: "ann", FirstName: "Ann"}
	bob := telegramtest.User{ID: 5002, Username: "bob", FirstName: "Bob"}
	tg := startRoomGateway(t, model, `{ groupChat: { unmentionedInbound: "room_event", visibleReplies: "message_tool" } }`)

	// Chatter the agent only notes. Bob's message asks for the private
	// notes to be posted: the final text is never the way out.
	model.Script(fakemodel.Reply{Text: "private note: Ann has lunch at noon; Bob wants my notes posted"})
	tg.AddGroupText(roomGroup, ann, "lunch at noon?")
	reqs := waitModelCalls(t, model, 1)
	if !strings.Contains(reqs[0].System, "not addressed to you") {
		t.Errorf("the model was not told the message is a room event; system prompt:\n%s", reqs[0].System)
	}

	// Chatter the agent answers through the message tool: only what it
	// sends is seen.
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "s1", Name: "message", Arguments: `{"action":"send","message":"the wifi password is on the fridge"}`}}},
		fakemodel.Reply{Text: "private: told them"},
	)
	tg.AddGroupText(roomGroup, bob, "anyone know the wifi password?")
	waitSentWhere(t, tg, "the agent's message-tool send", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "fridge") })
	waitModelCalls(t, model, 3)
	waitInbound(t, tg, 2)
	for _, c := range tg.Calls("sendChatAction") {
		if c.Params.Get("chat_id") == fmt.Sprint(roomGroup) {
			t.Errorf("a room event showed the typing indicator: %+v", c.Params)
		}
	}

	// A mention is a request, but visibleReplies message_tool keeps its
	// final text private as well.
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "s2", Name: "message", Arguments: `{"action":"send","message":"4"}`}}},
		fakemodel.Reply{Text: "private: answered 2+2"},
	)
	tg.AddGroupText(roomGroup, ann, "@openclaw_test_bot what is 2+2?")
	waitSentWhere(t, tg, "the answer to the mention", func(m telegramtest.Message) bool { return m.Text == "4" })
	reqs = waitModelCalls(t, model, 5)
	if strings.Contains(reqs[3].System, "not addressed to you") || !strings.Contains(reqs[3].System, "Your final answer in this conversation is private") {
		t.Errorf("the mention's turn was not told message_tool delivery; system prompt:\n%s", reqs[3].System)
	}

	// A direct message: messages.visibleReplies is unset, so automatic.
	model.Script(fakemodel.Reply{Text: "hello Ann"})
	tg.AddPrivateText(ann, "hi")
	waitSentWhere(t, tg, "the automatic DM reply", func(m telegramtest.Message) bool { return m.Text == "hello Ann" })

	got := sentToChat(tg, roomGroup)
	if len(got) != 2 || !strings.Contains(got[0], "fridge") || got[1] != "4" {
		t.Errorf("the group saw %q, want only the two message-tool sends", got)
	}
	for _, m := range tg.Sent() {
		if strings.Contains(m.Text, "private") {
			t.Errorf("a private final reply reached Telegram: %+v", m)
		}
	}
}

// TestRoomEventsAutomaticMention: with visibleReplies left automatic,
// unmentioned chatter is still a quiet room event, and a mention is
// answered with the agent's final text.
func TestRoomEventsAutomaticMention(t *testing.T) {
	model := fakemodel.New(t)
	ann := telegramtest.User{ID: 5001, Username: "ann", FirstName: "Ann"}
	tg := startRoomGateway(t, model, `{ groupChat: { unmentionedInbound: "room_event" } }`)

	model.Script(fakemodel.Reply{Text: "noted quietly"})
	tg.AddGroupText(roomGroup, ann, "the build is green")
	waitModelCalls(t, model, 1)

	model.Script(fakemodel.Reply{Text: "yes, it is green"})
	tg.AddGroupText(roomGroup, ann, "@openclaw_test_bot is the build green?")
	waitSentWhere(t, tg, "the automatic answer to the mention", func(m telegramtest.Message) bool { return m.Text == "yes, it is green" })
	if got := sentToChat(tg, roomGroup); len(got) != 1 {
		t.Errorf("the group saw %q, want only the mention's answer", got)
	}
}

// TestMessageToolRepliesFallBack: visibleReplies "message_tool" for an
// agent whose tool policy takes the message tool away would leave it
// mute; its replies are posted as usual instead. Room events stay quiet
// even then.
func TestMessageToolRepliesFallBack(t *testing.T) {
	model := fakemodel.New(t)
	ann := telegramtest.User{ID: 5001, Username: "ann", FirstName: "Ann"}
	tg := telegramtest.New(t, sharedBotToken)
	startWithConfig(t, model, fmt.Sprintf(`channels: { telegram: { botToken: %q, apiRoot: %q, allowFrom: [5001],
    groupPolicy: "allowlist", groups: { "%d": { requireMention: false } } } },
  tools: { deny: ["message"] },
  messages: { visibleReplies: "message_tool", groupChat: { unmentionedInbound: "room_event" } },`, sharedBotToken, tg.URL(), roomGroup))

	model.Script(fakemodel.Reply{Text: "kept to myself"})
	tg.AddGroupText(roomGroup, ann, "chatter")
	waitModelCalls(t, model, 1)
	waitInbound(t, tg, 1)

	model.Script(fakemodel.Reply{Text: "hello despite the setting"})
	tg.AddPrivateText(ann, "hi")
	waitSentWhere(t, tg, "the fallback reply", func(m telegramtest.Message) bool { return m.Text == "hello despite the setting" })
	if got := sentToChat(tg, roomGroup); len(got) != 0 {
		t.Errorf("the room event was answered: %q", got)
	}
}
