package security

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
	"github.com/openclaw-go/openclaw/e2e/harness"
	"github.com/openclaw-go/openclaw/gateway/client"
)

// echoConfig is a gateway on the fake model, which echoes the last user
// message it is shown, with extra top-level keys.
func echoConfig(modelURL, extra string) string {
	return fmt.Sprintf(`{
  gateway: { mode: "local" },
  models: { providers: { fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1" } },
  %s
}
`, modelURL+"/v1", extra)
}

// userMessages counts the user messages of a session's history.
func userMessages(t *testing.T, c *client.Client, key string) (users, answers int) {
	t.Helper()
	h := harness.MustCall(t, c, "chat.history", map[string]any{"sessionKey": key, "limit": 1000})
	msgs, _ := h["messages"].([]any)
	for _, m := range msgs {
		switch m.(map[string]any)["role"] {
		case "user":
			users++
		case "assistant":
			answers++
		}
	}
	return users, answers
}

// TestSharedSessionSendersGetTheirOwnReply: twenty people write to the
// Telegram bot at the same moment. Under the default session.dmScope
// ("main") all DMs share the agent's main session, so nineteen messages
// wait in its queue behind the first. A queued turn that is shown the
// messages stored after its own answers someone else: before the fix 18
// of 20 users got a reply meant for another user's message. Each user
// must get exactly one reply, in their own chat, echoing only their own
// text.
func TestSharedSessionSendersGetTheirOwnReply(t *testing.T) {
	t.Parallel()
	const n = 20
	model := fakemodel.New(t)
	const token = "5009:TEST-shared-session"
	tg := telegramtest.New(t, token)
	users := make([]telegramtest.User, n)
	ids := make([]string, n)
	for i := range users {
		users[i] = telegramtest.User{ID: int64(6001 + i), Username: fmt.Sprintf("user%d", i), FirstName: fmt.Sprintf("User%d", i)}
		ids[i] = fmt.Sprint(users[i].ID)
	}
	g := harness.Start(t, harness.Opts{Config: echoConfig(model.URL(),
		fmt.Sprintf(`channels: { telegram: { botToken: %q, apiRoot: %q, allowFrom: [%s] } },`, token, tg.URL(), strings.Join(ids, ", ")))})
	c := g.Dial(t, "operator.read")

	model.Hold() // the first turn waits at the model while the others queue
	for _, u := range users {
		tg.AddPrivateText(u, "note from "+u.Username)
	}
	if !harness.Poll(90*time.Second, func() bool { got, _ := userMessages(t, c, "agent:main:main"); return got == n }) {
		got, _ := userMessages(t, c, "agent:main:main")
		t.Fatalf("the main session holds %d of the %d messages", got, n)
	}
	model.Release()

	byChat := func() map[string][]string {
		out := map[string][]string{}
		for _, m := range tg.Sent() {
			out[m.ChatID] = append(out[m.ChatID], m.Text)
		}
		return out
	}
	if !harness.Poll(120*time.Second, func() bool { return len(byChat()) >= n }) {
		t.Fatalf("replies reached %d of %d chats: %v", len(byChat()), n, byChat())
	}
	// Every turn has ended once the session holds n answers; nothing more
	// can be sent after that.
	if !harness.Poll(60*time.Second, func() bool { _, a := userMessages(t, c, "agent:main:main"); return a == n }) {
		t.Fatal("not every turn was answered")
	}
	got := byChat()
	for _, u := range users {
		want := "echo: note from " + u.Username
		if texts := got[fmt.Sprint(u.ID)]; len(texts) != 1 || texts[0] != want {
			t.Errorf("%s got %q, want exactly [%q]", u.Username, texts, want)
		}
	}
	if len(got) != n {
		t.Errorf("the bot wrote to %d chats, want %d", len(got), n)
	}
}
