package telegram

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
)

func asRetryable(err error, re **channels.RetryableError) bool { return errors.As(err, re) }

func TestSendText(t *testing.T) {
	tests := []struct {
		name  string
		msg   channels.Outbound
		check func(t *testing.T, m telegramtest.Message)
	}{
		{"plain", channels.Outbound{To: channels.Target{ChatID: "42"}, Text: "hello **world**"},
			func(t *testing.T, m telegramtest.Message) {
				if m.Text != FormatHTML("hello **world**") || m.ParseMode != "HTML" || m.ChatID != "42" {
					t.Errorf("sent %+v", m)
				}
			}},
		{"reply thread silent", channels.Outbound{To: channels.Target{ChatID: "-1009", ThreadID: "77"}, Text: "x", ReplyToID: "12", Silent: true},
			func(t *testing.T, m telegramtest.Message) {
				if m.ReplyTo != 12 || m.ThreadID != 77 || !m.Silent {
					t.Errorf("sent %+v", m)
				}
			}},
		{"general topic", channels.Outbound{To: channels.Target{ChatID: "-1009", ThreadID: "1"}, Text: "x"},
			func(t *testing.T, m telegramtest.Message) {
				if m.ThreadID != 0 {
					t.Errorf("General topic sent with thread id %d", m.ThreadID)
				}
			}},
		{"buttons", channels.Outbound{To: channels.Target{ChatID: "42"}, Text: "Allow?",
			Buttons: [][]channels.Button{{{Text: "Allow", Data: "a:1"}, {Text: "Deny", Data: "d:1"}}}},
			func(t *testing.T, m telegramtest.Message) {
				want := `{"inline_keyboard":[[{"text":"Allow","callback_data":"a:1"},{"text":"Deny","callback_data":"d:1"}]]}`
				if m.ReplyMarkup != want {
					t.Errorf("reply_markup %s, want %s", m.ReplyMarkup, want)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := telegramtest.New(t, testToken)
			a := newAdapter(t, fake, nil)
			sent, err := a.Send(context.Background(), tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			msgs := fake.Sent()
			if len(msgs) != 1 {
				t.Fatalf("%d messages sent, want 1", len(msgs))
			}
			if sent.MessageID != itoa(msgs[0].MessageID) {
				t.Errorf("Sent.MessageID %q, want %d", sent.MessageID, msgs[0].MessageID)
			}
			if c := fake.Calls("sendMessage")[0]; c.Params.Get("reply_to_message_id") != "" && c.Params.Get("allow_sending_without_reply") != "true" {
				t.Error("reply without allow_sending_without_reply")
			}
			tt.check(t, msgs[0])
		})
	}
}

func TestSendHTMLFallback(t *testing.T) {
	fake := telegramtest.New(t, testToken)
	fake.RejectHTMLContaining("BROKEN")
	a := newAdapter(t, fake, nil)
	text := "some **BROKEN** markup"
	if _, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "42"}, Text: text}); err != nil {
		t.Fatal(err)
	}
	if n := len(fake.Calls("sendMessage")); n != 2 {
		t.Fatalf("%d sendMessage calls, want 2 (HTML, then plain)", n)
	}
	m := fake.Sent()[0]
	if m.ParseMode != "" || m.Text != PlainText(text) {
		t.Errorf("fallback sent %+v, want plain %q without parse_mode", m, PlainText(text))
	}
}

func TestSendErrors(t *testing.T) {
	tests := []struct {
		name      string
		fault     *telegramtest.Fault
		revoke    bool
		client    *http.Client
		retryable bool
		after     time.Duration
		code      int
		is        error
		contains  string
	}{
		{name: "429", fault: ptr(telegramtest.TooManyRequests(7)), retryable: true, after: 7 * time.Second, code: 429},
		{name: "500", fault: ptr(telegramtest.ServerError()), retryable: true, code: 500},
		{name: "403 blocked", fault: ptr(telegramtest.APIError(403, "Forbidden: bot was blocked by the user")), code: 403, contains: "bot was blocked"},
		{name: "400 chat not found", fault: ptr(telegramtest.APIError(400, "Bad Request: chat not found")), code: 400, contains: "chat not found"},
		{name: "malformed", fault: ptr(telegramtest.Malformed()), is: ErrMalformedResponse},
		{name: "timeout", fault: ptr(telegramtest.Hang()), client: &http.Client{Timeout: 100 * time.Millisecond}, retryable: true},
		{name: "401", revoke: true, code: 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := telegramtest.New(t, testToken)
			if tt.fault != nil {
				fake.Fail("sendMessage", 1, *tt.fault)
			}
			if tt.revoke {
				fake.RevokeToken()
			}
			a := newAdapter(t, fake, func(o *Options) {
				if tt.client != nil {
					o.HTTPClient = tt.client
				}
			})
			_, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "42"}, Text: "hi"})
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), testToken) {
				t.Errorf("error shows the token: %v", err)
			}
			var re *channels.RetryableError
			if got := errors.As(err, &re); got != tt.retryable {
				t.Errorf("retryable = %v, want %v: %v", got, tt.retryable, err)
			}
			if re != nil && re.After != tt.after {
				t.Errorf("After = %s, want %s", re.After, tt.after)
			}
			var ae *APIError
			if tt.code != 0 && (!errors.As(err, &ae) || ae.Code != tt.code) {
				t.Errorf("error %v, want an APIError %d", err, tt.code)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("error %q does not say %q", err, tt.contains)
			}
			if len(fake.Sent()) != 0 {
				t.Error("a message was recorded as sent")
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func writeFile(t *testing.T, name string, size int) (string, []byte) {
	t.Helper()
	data := bytes.Repeat([]byte("x"), size)
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p, data
}

func TestSendAttachments(t *testing.T) {
	long := strings.Repeat("word ", 300) // 1500 units: too long for a caption
	tests := []struct {
		name    string
		file    string
		text    string
		reject  string
		methods []string // the sends in order
		caption bool
	}{
		{"document with caption", "report.pdf", "the report", "", []string{"sendDocument"}, true},
		{"photo", "chart.png", "a chart", "", []string{"sendPhoto"}, true},
		{"no text", "data.csv", "", "", []string{"sendDocument"}, false},
		{"long text after file", "report.pdf", long, "", []string{"sendDocument", "sendMessage"}, false},
		{"caption HTML fallback", "report.pdf", "BROKEN caption", "BROKEN", []string{"sendDocument"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := telegramtest.New(t, testToken)
			if tt.reject != "" {
				fake.RejectHTMLContaining(tt.reject)
			}
			a := newAdapter(t, fake, nil)
			path, data := writeFile(t, tt.file, 2048)
			sent, err := a.Send(context.Background(), channels.Outbound{
				To: channels.Target{ChatID: "42"}, Text: tt.text, ReplyToID: "3",
				Attachments: []channels.Attachment{{Path: path}},
			})
			if err != nil {
				t.Fatal(err)
			}
			msgs := fake.Sent()
			var methods []string
			for _, m := range msgs {
				methods = append(methods, m.Method)
			}
			if strings.Join(methods, ",") != strings.Join(tt.methods, ",") {
				t.Fatalf("sent %v, want %v", methods, tt.methods)
			}
			f := msgs[0]
			if f.FileName != tt.file || !bytes.Equal(f.FileBytes, data) {
				t.Errorf("uploaded %q (%d bytes), want %q (%d bytes)", f.FileName, len(f.FileBytes), tt.file, len(data))
			}
			if f.ReplyTo != 3 {
				t.Errorf("file not sent as a reply: %+v", f)
			}
			if tt.caption != (f.Text != "") {
				t.Errorf("caption %q, want caption %v", f.Text, tt.caption)
			}
			textMsg := msgs[len(msgs)-1]
			if sent.MessageID != itoa(textMsg.MessageID) {
				t.Errorf("Sent.MessageID %s, want the text's message %d", sent.MessageID, textMsg.MessageID)
			}
			if len(msgs) == 2 && (msgs[1].Text != FormatHTML(long) || msgs[1].ReplyTo != 0) {
				t.Errorf("text after the file: %+v", msgs[1])
			}
		})
	}
}

func TestSendAttachmentOverCap(t *testing.T) {
	fake := telegramtest.New(t, testToken)
	a := newAdapter(t, fake, func(o *Options) { o.MediaMaxMb = 1 })
	small, _ := writeFile(t, "small.txt", 10)
	big, _ := writeFile(t, "big.bin", 1<<20+1)
	_, err := a.Send(context.Background(), channels.Outbound{
		To: channels.Target{ChatID: "42"}, Text: "two files",
		Attachments: []channels.Attachment{{Path: small}, {Path: big}},
	})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "big.bin") {
		t.Fatalf("error %v, want ErrTooLarge naming big.bin", err)
	}
	if n := len(fake.Calls("")); n != 0 {
		t.Errorf("%d API calls for a refused message, want none", n)
	}
}

func TestActions(t *testing.T) {
	ctx := context.Background()
	fake := telegramtest.New(t, testToken)
	fake.RejectHTMLContaining("BROKEN")
	a := newAdapter(t, fake, nil)
	to := channels.Target{ChatID: "-1005", ThreadID: "1"}
	sent, err := a.Send(ctx, channels.Outbound{To: to, Text: "draft"})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name   string
		do     func() error
		method string
		params map[string]string
	}{
		{"edit", func() error { return a.Edit(ctx, to, sent.MessageID, "final *text*") }, "editMessageText",
			map[string]string{"message_id": sent.MessageID, "parse_mode": "HTML", "text": FormatHTML("final *text*")}},
		{"edit unchanged", func() error { return a.Edit(ctx, to, sent.MessageID, "final *text*") }, "editMessageText", nil},
		{"edit fallback", func() error { return a.Edit(ctx, to, sent.MessageID, "BROKEN now") }, "editMessageText",
			map[string]string{"parse_mode": "", "text": PlainText("BROKEN now")}},
		{"typing in General", func() error { return a.Typing(ctx, to) }, "sendChatAction",
			map[string]string{"action": "typing", "message_thread_id": "1"}},
		{"react", func() error { return a.React(ctx, to, sent.MessageID, "👍") }, "setMessageReaction",
			map[string]string{"reaction": `[{"emoji":"👍","type":"emoji"}]`}},
		{"unreact", func() error { return a.React(ctx, to, sent.MessageID, "") }, "setMessageReaction",
			map[string]string{"reaction": `[]`}},
		{"pin", func() error { return a.Pin(ctx, to, sent.MessageID) }, "pinChatMessage",
			map[string]string{"message_id": sent.MessageID, "disable_notification": "true"}},
		{"unpin", func() error { return a.Unpin(ctx, to, sent.MessageID) }, "unpinChatMessage",
			map[string]string{"message_id": sent.MessageID}},
		{"answer callback", func() error { return a.AnswerCallback(ctx, "cbq-1", "Approved") }, "answerCallbackQuery",
			map[string]string{"callback_query_id": "cbq-1", "text": "Approved"}},
		{"commands", func() error {
			return a.SetCommands(ctx, []channels.Command{{Name: "/New", Description: "Start over"}, {Name: "status"}})
		}, "setMyCommands", map[string]string{"commands": `[{"command":"new","description":"Start over"},{"command":"status","description":"status"}]`}},
		{"poll", func() error {
			_, err := a.Poll(ctx, to, channels.Poll{Question: "Lunch?", Options: []string{"Yes", "No"}, DurationSecs: 60})
			return err
		}, "sendPoll", map[string]string{"question": "Lunch?", "options": `[{"text":"Yes"},{"text":"No"}]`, "open_period": "60", "is_anonymous": "false"}},
		{"delete", func() error { return a.Delete(ctx, to, sent.MessageID) }, "deleteMessage",
			map[string]string{"message_id": sent.MessageID}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if err := st.do(); err != nil {
				t.Fatal(err)
			}
			calls := fake.Calls(st.method)
			last := calls[len(calls)-1]
			for k, v := range st.params {
				if got := last.Params.Get(k); got != v {
					t.Errorf("%s %s = %q, want %q", st.method, k, got, v)
				}
			}
		})
	}

	if err := a.Delete(ctx, to, sent.MessageID); err == nil {
		t.Error("deleting a deleted message succeeded")
	}
	info, err := a.ChatInfo(ctx, "-1005")
	if err != nil || info["type"] != "group" {
		t.Errorf("ChatInfo = %v, %v", info, err)
	}
	member, err := a.MemberInfo(ctx, "-1005", "42")
	if err != nil || member["status"] != "member" {
		t.Errorf("MemberInfo = %v, %v", member, err)
	}
	if _, err := a.Poll(ctx, to, channels.Poll{Question: "?", Options: []string{"only"}}); err == nil {
		t.Error("a one-option poll was accepted")
	}
}

func TestLimits(t *testing.T) {
	a := New(Options{Token: testToken, TextLimit: 9000, ChunkMode: "newline"})
	if a.TextLimit() != 4096 || a.ChunkMode() != "newline" {
		t.Errorf("limits %d %q", a.TextLimit(), a.ChunkMode())
	}
	if b := New(Options{Token: testToken}); b.TextLimit() != 4000 || b.ChunkMode() != "length" || b.WebhookPath() != "" {
		t.Errorf("defaults %d %q %q", b.TextLimit(), b.ChunkMode(), b.WebhookPath())
	}
}

// TestSendVoiceNote: a voice attachment is uploaded with sendVoice in the
// "voice" field, so Telegram shows a playable voice message, not a file.
func TestSendVoiceNote(t *testing.T) {
	fake := telegramtest.New(t, testToken)
	a := newAdapter(t, fake, nil)
	path, data := writeFile(t, "voice.ogg", 2048)
	if _, err := a.Send(context.Background(), channels.Outbound{
		To:          channels.Target{ChatID: "42"},
		Attachments: []channels.Attachment{{Path: path, MIME: "audio/ogg", Voice: true}},
	}); err != nil {
		t.Fatal(err)
	}
	calls := fake.Calls("sendVoice")
	if len(calls) != 1 {
		t.Fatalf("sent %+v, want one sendVoice", fake.Sent())
	}
	if f, ok := calls[0].Files["voice"]; !ok || !bytes.Equal(f.Bytes, data) || calls[0].Params.Get("chat_id") != "42" {
		t.Errorf("sendVoice call %+v", calls[0])
	}
}
