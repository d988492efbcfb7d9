package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
)

// telegramConfig is agentConfig plus a Telegram bot on the fake Bot API.
func telegramConfig(modelURL, apiRoot, token string, extra string) string {
	return fmt.Sprintf(`{
  gateway: { mode: "local" },
  models: { providers: { fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1" } },
  channels: { telegram: { botToken: %q, apiRoot: %q, textChunkLimit: 120, allowFrom: [2001, 2002, 2003, 2004, 2005] } },
  %s
}
`, modelURL+"/v1", token, apiRoot, extra)
}

// waitSentWhere waits until the bot sent a message matching pred and
// returns it.
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
			t.Fatalf("no sent message %s; sent:\n%+v", what, tg.Sent())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTelegramEndToEnd: a Telegram user (the fake Bot API, driven by the
// real client library inside the real binary) pairs, chats, gets chunked
// formatted replies and approves a guarded tool with a button.
func TestTelegramEndToEnd(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	const token = "123456:TEST-token-e2e"
	tg := telegramtest.New(t, token)
	g := startGateway(t, gatewayOpts{Config: telegramConfig(model.URL(), tg.URL(), token,
		`tools: { guard: { rules: [{ tool: "DateTimeTool", action: "require_approval" }] } },`)})
	c := ourClient(t, g)
	ann := telegramtest.User{ID: 1001, Username: "ann", FirstName: "Ann"}

	// A stranger gets a pairing code, and only one.
	tg.AddPrivateText(ann, "hi")
	tg.AddPrivateText(ann, "hello?")
	pair := waitSentWhere(t, tg, "with a pairing code", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "pairing code") })
	code := regexp.MustCompile(`[A-HJ-NP-Z2-9]{8}`).FindString(pair.Text)
	if code == "" || pair.ChatID != "1001" {
		t.Fatalf("pairing message %+v", pair)
	}
	list := c.run(t, "gateway", "call", "channels.pairing.list", "--json")
	list.mustSucceed(t)
	if !strings.Contains(list.Stdout, code) || !strings.Contains(list.Stdout, `"senderId": "1001"`) && !strings.Contains(list.Stdout, `"senderId":"1001"`) {
		t.Fatalf("pairing list:\n%s", list)
	}
	c.run(t, "gateway", "call", "channels.pairing.approve", "--params", fmt.Sprintf(`{"channel":"telegram","accountId":"default","requestId":%q}`, code)).mustSucceed(t)
	if n := strings.Count(fmt.Sprint(tg.Sent()), "pairing code"); n != 1 {
		t.Errorf("%d pairing messages, want 1", n)
	}

	// Now Ann chats; the reply is HTML-formatted and answers her message.
	msgID := tg.AddPrivateText(ann, "hello **gateway**")
	_ = msgID
	echo := waitSentWhere(t, tg, "echoing Ann", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "echo: hello") })
	if echo.ParseMode != "HTML" || !strings.Contains(echo.Text, "<b>gateway</b>") {
		t.Errorf("reply %+v: want HTML with <b>", echo)
	}

	// A long Markdown answer arrives in order, in chunks within the limit.
	long := "## Report\n\n" + strings.Repeat("The **quick** brown fox jumps over the lazy dog. ", 8) + "\n\n```go\nfmt.Println(\"a < b\")\n```\n\nEnd of report."
	model.Script(fakemodel.Reply{Text: long})
	tg.AddPrivateText(ann, "report please")
	last := waitSentWhere(t, tg, "with the end of the report", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "End of report.") })
	var chunks []telegramtest.Message
	for _, m := range tg.Sent() {
		if m.ChatID == "1001" && m.MessageID <= last.MessageID && (strings.Contains(m.Text, "fox") || strings.Contains(m.Text, "Report") || strings.Contains(m.Text, "End of report") || strings.Contains(m.Text, "Println")) {
			chunks = append(chunks, m)
		}
	}
	if len(chunks) < 3 {
		t.Fatalf("report came in %d messages, want it chunked: %+v", len(chunks), chunks)
	}
	for _, m := range chunks {
		if m.ParseMode != "HTML" {
			t.Errorf("chunk without HTML: %+v", m)
		}
	}
	if !strings.Contains(chunks[0].Text, "<b>Report</b>") || !strings.Contains(fmt.Sprint(chunks), "a &lt; b") {
		t.Errorf("chunks lost their formatting: %+v", chunks)
	}

	// A guarded tool asks in the chat with buttons; Ann allows it.
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "t1", Name: "DateTimeTool", Arguments: `{"timezone":"UTC"}`}}},
		fakemodel.Reply{Text: "approved and done"},
	)
	tg.AddPrivateText(ann, "what time is it?")
	ask := waitSentWhere(t, tg, "asking for approval", func(m telegramtest.Message) bool { return strings.Contains(m.ReplyMarkup, "approve:") })
	data := regexp.MustCompile(`approve:[0-9a-f-]+:allow-once`).FindString(ask.ReplyMarkup)
	if data == "" {
		t.Fatalf("approval buttons %s", ask.ReplyMarkup)
	}
	tg.AddCallback(1001, ask.MessageID, ann, data)
	waitSentWhere(t, tg, "after the approval", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "approved and done") })
	tg.WaitCalls("answerCallbackQuery", 1, 30*time.Second)
	reqs := model.Requests()
	if last := reqs[len(reqs)-1]; !strings.Contains(fmt.Sprint(last.Messages), "UTC") {
		t.Errorf("the tool did not run after approval; model saw %+v", last.Messages)
	}
}

// TestTelegramKillMidBurst: the gateway is killed while a burst of
// messages is in flight; after a restart every message is answered once.
func TestTelegramKillMidBurst(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	const token = "654321:TEST-burst"
	tg := telegramtest.New(t, token)
	// One session per sender, so every chat has a run in the model at once.
	g := startGateway(t, gatewayOpts{Config: telegramConfig(model.URL(), tg.URL(), token, `session: { dmScope: "per-channel-peer" },`)})
	model.Hold()
	t.Cleanup(model.Release) // before the model server closes
	const users, perUser = 5, 4
	want := map[string]bool{}
	for i := range perUser {
		for u := range users {
			text := fmt.Sprintf("burst-%d-%d", u, i)
			want["echo: "+text] = true
			tg.AddPrivateText(telegramtest.User{ID: int64(2001 + u), FirstName: "U"}, text)
		}
	}
	// Every chat has a run inside the model: kill the gateway there.
	deadline := time.Now().Add(60 * time.Second)
	for model.Held() < users {
		if time.Now().After(deadline) {
			t.Fatalf("only %d runs reached the model", model.Held())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := g.proc.signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	g.proc.wait(30 * time.Second)
	model.Release()
	g.restart(t)

	deadline = time.Now().Add(90 * time.Second)
	for {
		got := map[string]int{}
		for _, m := range tg.Sent() {
			got[m.Text]++
		}
		done := true
		for text := range want {
			if got[text] > 1 {
				t.Fatalf("%q answered %d times", text, got[text])
			}
			if got[text] == 0 {
				done = false
			}
		}
		if done {
			if len(tg.Sent()) != len(want) {
				t.Fatalf("sent %d messages for %d inbound: %+v", len(tg.Sent()), len(want), tg.Sent())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the restart only these were answered: %v", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Each chat's replies keep the order of its messages.
	last := map[string]int{}
	for _, m := range tg.Sent() {
		var u, i int
		fmt.Sscanf(m.Text, "echo: burst-%d-%d", &u, &i)
		if prev, ok := last[m.ChatID]; ok && i < prev {
			t.Errorf("chat %s: reply %d after %d", m.ChatID, i, prev)
		}
		last[m.ChatID] = i
	}
}
