package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
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
	return waitSent(t, tg.Sent, what, pred)
}

// waitSent polls a fake's record of sent messages until one matches.
func waitSent[M any](t *testing.T, sent func() []M, what string, pred func(M) bool) M {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		for _, m := range sent() {
			if pred(m) {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no sent message %s; sent: %+v", what, sent())
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
		`tools: { guard: { rules: [{ tool: "DateTimeTool", action: "require_approval" }] } },
  commands: { ownerAllowFrom: ["telegram:1001"] },`)})
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
	list := c.run(t, "pairing", "list", "telegram")
	list.mustSucceed(t)
	if !strings.Contains(list.Stdout, code) || !strings.Contains(list.Stdout, "1001") {
		t.Fatalf("pairing list:\n%s", list)
	}
	approve := c.run(t, "pairing", "approve", "telegram", strings.ToLower(code))
	approve.mustSucceed(t)
	if !strings.Contains(approve.Stdout, "Approved 1001") {
		t.Fatalf("pairing approve:\n%s", approve)
	}
	if again := c.run(t, "pairing", "approve", "telegram", code); again.Code == 0 {
		t.Fatalf("a pairing code worked twice:\n%s", again)
	}
	status := c.run(t, "channels", "status")
	status.mustSucceed(t)
	if !strings.Contains(status.Stdout, "connected") || !strings.Contains(status.Stdout, telegramtest.BotUsername) {
		t.Fatalf("channels status:\n%s", status)
	}
	health := c.run(t, "gateway", "call", "health", "--json")
	health.mustSucceed(t)
	if !strings.Contains(health.Stdout, `"telegram"`) || !strings.Contains(health.Stdout, `"connected": true`) && !strings.Contains(health.Stdout, `"connected":true`) {
		t.Fatalf("health lacks the Telegram account:\n%s", health.Stdout)
	}
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

	// A document Ann sends lands in the agent's workspace; the agent reads
	// it, reacts to her message and sends a file back, all in her chat.
	docMsg := tg.AddDocument(1001, ann, telegramtest.Doc{Name: "notes.txt", MIME: "text/plain", Bytes: []byte("remember the milk")}, "my notes")
	_ = docMsg
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "w1", Name: "write", Arguments: `{"path":"out/answer.txt","content":"milk: remembered"}`}}},
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "s1", Name: "send_file", Arguments: `{"path":"out/answer.txt","caption":"here you go"}`}}},
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "m1", Name: "message", Arguments: `{"action":"send","target":"9999","message":"spam"}`}}},
		fakemodel.Reply{Text: "filed"},
	)
	waitSentWhere(t, tg, "with the filed answer", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "filed") })
	doc := waitSentWhere(t, tg, "with the file", func(m telegramtest.Message) bool { return m.FileName == "answer.txt" })
	if string(doc.FileBytes) != "milk: remembered" || doc.ChatID != "1001" || !strings.Contains(doc.Text, "here you go") {
		t.Errorf("sent file %+v", doc)
	}
	var sawInbox, sawRefusal bool
	for _, r := range model.Requests() {
		all := fmt.Sprint(r.Messages)
		sawInbox = sawInbox || strings.Contains(all, "notes.txt saved at inbox/")
		sawRefusal = sawRefusal || strings.Contains(all, "may only go to that chat")
	}
	if !sawInbox || !sawRefusal {
		t.Errorf("model saw the saved attachment %v, the refusal to message another chat %v", sawInbox, sawRefusal)
	}
	for _, m := range tg.Sent() {
		if m.ChatID == "9999" {
			t.Errorf("a message reached another chat: %+v", m)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(g.StateDir, "workspace", "inbox", "*", "*notes.txt"))
	if len(matches) != 1 {
		t.Fatalf("saved attachments %v", matches)
	}
	if b, _ := os.ReadFile(matches[0]); string(b) != "remember the milk" {
		t.Errorf("saved attachment holds %q", b)
	}
}

// TestTelegramWebhook: in webhook mode the gateway registers its URL and
// secret with Telegram and takes updates on its own port, refusing calls
// without the secret.
func TestTelegramWebhook(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	const token, secret = "777:TEST-webhook", "s3cret_webhook-token"
	tg := telegramtest.New(t, token)
	g := startGateway(t, gatewayOpts{Config: fmt.Sprintf(`{
  gateway: { mode: "local" },
  models: { providers: { fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1" } },
  channels: { telegram: { botToken: %q, apiRoot: %q, allowFrom: [3001],
    webhookUrl: "https://bot.example.org/telegram/webhook/default", webhookSecret: %q } },
}`, model.URL()+"/v1", token, tg.URL(), secret)})
	if url, sec := tg.WaitWebhook(30 * time.Second); url != "https://bot.example.org/telegram/webhook/default" || sec != secret {
		t.Fatalf("registered webhook %q with secret %q", url, sec)
	}
	hook := fmt.Sprintf("http://127.0.0.1:%d/telegram/webhook/default", g.Port)
	update := `{"update_id": 9001, "message": {"message_id": 77, "date": 1764500000, "chat": {"id": 3001, "type": "private"},
		"from": {"id": 3001, "is_bot": false, "first_name": "Wes"}, "text": "via webhook"}}`
	post := func(secret string) int {
		req, _ := http.NewRequest(http.MethodPost, hook, strings.NewReader(update))
		req.Header.Set("Content-Type", "application/json")
		if secret != "" {
			req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// The adapter answers 503 until getMe succeeded; wait for a verdict.
	deadline := time.Now().Add(30 * time.Second)
	for code := post("wrong"); code != http.StatusUnauthorized; code = post("wrong") {
		if time.Now().After(deadline) {
			t.Fatalf("a wrong secret got %d, want 401", code)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code := post(""); code != http.StatusUnauthorized {
		t.Fatalf("no secret got %d, want 401", code)
	}
	if code := post(secret); code != http.StatusOK {
		t.Fatalf("the right secret got %d", code)
	}
	if code := post(secret); code != http.StatusOK { // Telegram retrying: answered once
		t.Fatalf("a redelivery got %d", code)
	}
	waitSentWhere(t, tg, "answering the webhook update", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "echo: via webhook") })
	if n := len(tg.Calls("getUpdates")); n != 0 {
		t.Errorf("webhook mode also polled getUpdates %d times", n)
	}
	time.Sleep(200 * time.Millisecond) // let a duplicate show up if there were one
	n := 0
	for _, m := range tg.Sent() {
		if strings.Contains(m.Text, "via webhook") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("answered %d times", n)
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
	// Queue mode followup gives each message its own answer, so every one
	// can be counted; TestSteeredSurvivesAStop covers steer (the default),
	// which folds a burst into the running turn.
	g := startGateway(t, gatewayOpts{Config: telegramConfig(model.URL(), tg.URL(), token,
		`session: { dmScope: "per-channel-peer" }, messages: { queue: { mode: "followup" } },`)})
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
