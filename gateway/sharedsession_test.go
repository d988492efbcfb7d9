package gateway

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
	"github.com/openclaw-go/openclaw/gateway/client"
)

const sharedBotToken = "123456:TEST-shared-session"

// startSharedTelegram starts the gateway with a Telegram bot on the fake
// Bot API that lets users in, under the default session.dmScope ("main":
// every DM goes to the agent's main session).
func startSharedTelegram(t *testing.T, model *fakemodel.Server, users []telegramtest.User, extra string) (*telegramtest.Server, *client.Client) {
	t.Helper()
	tg := telegramtest.New(t, sharedBotToken)
	ids := make([]string, len(users))
	for i, u := range users {
		ids[i] = fmt.Sprint(u.ID)
	}
	_, c := startWithConfig(t, model, fmt.Sprintf(`channels: { telegram: { botToken: %q, apiRoot: %q, allowFrom: [%s] } }, %s`,
		sharedBotToken, tg.URL(), strings.Join(ids, ", "), extra))
	return tg, c
}

// waitUserMessages waits until the main session's transcript holds n user
// messages: every one accepted.
func waitUserMessages(t *testing.T, c *client.Client, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		h := call[map[string]any](t, c, "chat.history", map[string]any{"sessionKey": "agent:main:main", "limit": 1000})
		users := 0
		msgs, _ := h["messages"].([]any)
		for _, m := range msgs {
			if m.(map[string]any)["role"] == "user" {
				users++
			}
		}
		if users >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the main session holds %d user messages, want %d", users, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sentTo groups what the bot sent by chat.
func sentTo(tg *telegramtest.Server) map[string][]telegramtest.Message {
	out := map[string][]telegramtest.Message{}
	for _, m := range tg.Sent() {
		out[m.ChatID] = append(out[m.ChatID], m)
	}
	return out
}

// TestSharedMainSessionAnswersEachSender: twenty Telegram users write to
// the bot at once; with the default dmScope all their DMs share the main
// session, so nineteen messages wait in its queue behind the first. The
// model echoes the last user message it is shown. Every user must get
// exactly one reply, in their own chat, echoing their own text: a queued
// run that saw the messages stored after its own answered with another
// person's words (18 of 20 got someone else's reply).
func TestSharedMainSessionAnswersEachSender(t *testing.T) {
	const n = 20
	model := fakemodel.New(t)
	users := make([]telegramtest.User, n)
	for i := range users {
		users[i] = telegramtest.User{ID: int64(3001 + i), Username: fmt.Sprintf("user%d", i), FirstName: fmt.Sprintf("User%d", i)}
	}
	tg, c := startSharedTelegram(t, model, users, "")
	model.Hold()
	for _, u := range users {
		tg.AddPrivateText(u, fmt.Sprintf("note from %s", u.Username))
	}
	waitUserMessages(t, c, n)
	model.Release()

	deadline := time.Now().Add(90 * time.Second)
	for len(sentTo(tg)) < n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	byChat := sentTo(tg)
	for _, u := range users {
		got := byChat[fmt.Sprint(u.ID)]
		want := "echo: note from " + u.Username
		if len(got) != 1 || got[0].Text != want {
			var texts []string
			for _, m := range got {
				texts = append(texts, m.Text)
			}
			t.Errorf("%s got %q, want exactly [%q]", u.Username, texts, want)
		}
	}
	if len(byChat) != n {
		t.Errorf("the bot wrote to %d chats, want %d: %v", len(byChat), n, byChat)
	}
	if got := len(model.Requests()); got != n {
		t.Errorf("%d model calls, want one per message (%d)", got, n)
	}
}

// TestSharedSessionToolsActInTheSendersChat: Ann's turn runs while Bob's
// message waits behind it in the shared main session, so the session's
// chat (the last to write) is Bob's. The message tool and the Tool Guard
// approval of Ann's turn must still go to Ann's chat: Bob must neither
// read what the agent sends Ann nor decide her approval.
func TestSharedSessionToolsActInTheSendersChat(t *testing.T) {
	model := fakemodel.New(t)
	ann := telegramtest.User{ID: 4001, Username: "ann", FirstName: "Ann"}
	bob := telegramtest.User{ID: 4002, Username: "bob", FirstName: "Bob"}
	// Ann is the owner: only the owner's press settles an approval.
	tg, c := startSharedTelegram(t, model, []telegramtest.User{ann, bob},
		`tools: { guard: { rules: [{ tool: "DateTimeTool", action: "require_approval" }] } }, commands: { ownerAllowFrom: ["telegram:4001"] },`)
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "m1", Name: "message", Arguments: `{"action":"send","message":"private note for ann"}`}}},
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "d1", Name: "DateTimeTool", Arguments: `{"timezone":"UTC"}`}}},
		fakemodel.Reply{Text: "done for ann"},
	)
	model.Hold()
	tg.AddPrivateText(ann, "please help")
	waitUserMessages(t, c, 1)
	tg.AddPrivateText(bob, "hi")
	waitUserMessages(t, c, 2) // Bob's chat is now the session's last
	model.Release()

	annChat, bobChat := fmt.Sprint(ann.ID), fmt.Sprint(bob.ID)
	var ask telegramtest.Message
	deadline := time.Now().Add(60 * time.Second)
	for ask.MessageID == 0 && time.Now().Before(deadline) {
		for _, m := range tg.Sent() {
			if strings.Contains(m.ReplyMarkup, "approve:") {
				ask = m
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ask.MessageID == 0 {
		t.Fatalf("no approval was asked; sent %+v", tg.Sent())
	}
	if ask.ChatID != annChat {
		t.Fatalf("Ann's approval was asked in chat %s, want hers (%s)", ask.ChatID, annChat)
	}
	data := regexp.MustCompile(`approve:[0-9a-f-]+:allow-once`).FindString(ask.ReplyMarkup)
	tg.AddCallback(ann.ID, ask.MessageID, ann, data)

	deadline = time.Now().Add(60 * time.Second)
	for len(sentTo(tg)[bobChat]) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	byChat := sentTo(tg)
	var annTexts, bobTexts []string
	for _, m := range byChat[annChat] {
		annTexts = append(annTexts, m.Text)
	}
	for _, m := range byChat[bobChat] {
		bobTexts = append(bobTexts, m.Text)
	}
	if len(bobTexts) != 1 || bobTexts[0] != "echo: hi" {
		t.Errorf("Bob's chat got %q, want only the answer to his message", bobTexts)
	}
	joined := strings.Join(annTexts, "\n")
	if !strings.Contains(joined, "private note for ann") || !strings.Contains(joined, "done for ann") {
		t.Errorf("Ann's chat got %q, want the note, the approval and her answer", annTexts)
	}
}
