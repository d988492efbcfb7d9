package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/slack/slacktest"
)

func TestSend(t *testing.T) {
	fake := newFake(t)
	a := newAdapter(t, fake, nil) // Send works without Start
	ctx := context.Background()
	tests := []struct {
		name       string
		msg        channels.Outbound
		wantThread string
		wantText   string
		buttons    bool
	}{
		{"plain", channels.Outbound{To: channels.Target{ChatID: "C1"}, Text: "**hi** <b>"},
			"", "*hi* &lt;b&gt;", false},
		{"in a thread", channels.Outbound{To: channels.Target{ChatID: "C1", ThreadID: "1700000001.000100"}, Text: "in thread"},
			"1700000001.000100", "in thread", false},
		{"reply threads under the message", channels.Outbound{To: channels.Target{ChatID: "C1"}, ReplyToID: "1700000002.000100", Text: "reply"},
			"1700000002.000100", "reply", false},
		{"thread wins over reply", channels.Outbound{To: channels.Target{ChatID: "C1", ThreadID: "1700000003.000100"}, ReplyToID: "1700000004.000100", Text: "both"},
			"1700000003.000100", "both", false},
		{"buttons", channels.Outbound{To: channels.Target{ChatID: "D1"}, Text: "Allow `rm -rf /tmp/x`?",
			Buttons: [][]channels.Button{{{Text: "Allow once", Data: "approve:9:allow-once"}, {Text: "Deny", Data: "approve:9:deny"}}}},
			"", "Allow `rm -rf /tmp/x`?", true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sent, err := a.Send(ctx, tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			msgs := fake.WaitMessages(i+1, waitFor)
			m := msgs[i]
			if sent.MessageID != m.TS || m.Channel != tt.msg.To.ChatID || m.ThreadTS != tt.wantThread || m.Text != tt.wantText {
				t.Errorf("posted %+v (sent %+v)", m, sent)
			}
			if (m.Blocks != "") != tt.buttons {
				t.Fatalf("blocks %q, want buttons %v", m.Blocks, tt.buttons)
			}
			if tt.buttons {
				checkButtonBlocks(t, m.Blocks, tt.wantText, tt.msg.Buttons)
			}
		})
	}
}

func checkButtonBlocks(t *testing.T, raw, text string, rows [][]channels.Button) {
	t.Helper()
	var blocks []struct {
		Type string `json:"type"`
		Text *struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"text"`
		Elements []struct {
			Type     string `json:"type"`
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
			Text     struct {
				Text string `json:"text"`
			} `json:"text"`
		} `json:"elements"`
	}
	if err := json.Unmarshal([]byte(raw), &blocks); err != nil {
		t.Fatalf("blocks: %v", err)
	}
	if len(blocks) != 1+len(rows) || blocks[0].Type != "section" || blocks[0].Text == nil ||
		blocks[0].Text.Type != "mrkdwn" || blocks[0].Text.Text != text {
		t.Fatalf("blocks %s", raw)
	}
	ids := map[string]bool{}
	for r, row := range rows {
		b := blocks[1+r]
		if b.Type != "actions" || len(b.Elements) != len(row) {
			t.Fatalf("row %d: %s", r, raw)
		}
		for i, e := range b.Elements {
			if e.Type != "button" || e.Value != row[i].Data || e.Text.Text != row[i].Text || ids[e.ActionID] {
				t.Errorf("button %d/%d: %+v", r, i, e)
			}
			ids[e.ActionID] = true
		}
	}
}

// TestButtonRoundTrip: a button the adapter sent, pressed, comes back
// with its Data as CallbackData.
func TestButtonRoundTrip(t *testing.T) {
	fake := newFake(t)
	sink := &recSink{}
	a := newAdapter(t, fake, nil)
	start(t, a, sink)
	fake.WaitConnections(1, waitFor)
	sent, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "D1"}, Text: "ok?",
		Buttons: [][]channels.Button{{{Text: "Yes", Data: "approve:1:allow"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var blocks []struct {
		Elements []struct {
			Value string `json:"value"`
		} `json:"elements"`
	}
	_ = json.Unmarshal([]byte(fake.Messages()[0].Blocks), &blocks)
	value := blocks[1].Elements[0].Value
	env := fake.Push("interactive", fake.ActionPayload(slacktest.Action{User: "U1", Channel: "D1", MessageTS: sent.MessageID, Value: value, ResponseURL: fake.ResponseURL()}))
	fake.WaitAcked(waitFor, env)
	got := sink.Stored()
	if len(got) != 1 || got[0].Kind != channels.EventCallback || got[0].CallbackData != "approve:1:allow" || got[0].MessageID != sent.MessageID {
		t.Fatalf("stored %+v", got)
	}
	if err := a.AnswerCallback(context.Background(), got[0].CallbackID, "Recorded: allow"); err != nil {
		t.Fatal(err)
	}
	rs := fake.Responses()
	if len(rs) != 1 || rs[0].Body["text"] != "Recorded: allow" || rs[0].Body["response_type"] != "ephemeral" {
		t.Errorf("responses %+v", rs)
	}
}

func TestSendErrors(t *testing.T) {
	tests := []struct {
		name      string
		fault     slacktest.Fault
		retryable bool
		after     time.Duration
		code      string
		malformed bool
	}{
		{"429 with Retry-After", slacktest.TooManyRequests(7), true, 7 * time.Second, "ratelimited", false},
		{"500", slacktest.ServerError(), true, 0, "http_500", false},
		{"channel_not_found", slacktest.SlackError("channel_not_found"), false, 0, "channel_not_found", false},
		{"internal_error", slacktest.SlackError("internal_error"), true, 0, "internal_error", false},
		{"malformed", slacktest.Malformed(), false, 0, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			fake.Fail("chat.postMessage", 1, tt.fault)
			a := newAdapter(t, fake, nil)
			_, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "C1"}, Text: "x"})
			if err == nil {
				t.Fatal("no error")
			}
			var re *channels.RetryableError
			if got := errors.As(err, &re); got != tt.retryable {
				t.Fatalf("retryable = %v, want %v (%v)", got, tt.retryable, err)
			}
			if re != nil && re.After != tt.after {
				t.Errorf("After = %s, want %s", re.After, tt.after)
			}
			var ae *APIError
			if tt.code != "" && (!errors.As(err, &ae) || ae.Code != tt.code || ae.Method != "chat.postMessage") {
				t.Errorf("err %v, want APIError %s", err, tt.code)
			}
			if tt.malformed && !errors.Is(err, ErrMalformedResponse) {
				t.Errorf("err %v, want ErrMalformedResponse", err)
			}
			// The next call goes through.
			if _, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "C1"}, Text: "x"}); err != nil {
				t.Errorf("after the fault: %v", err)
			}
		})
	}
	t.Run("network error", func(t *testing.T) {
		a := New(Options{BotToken: testBotToken, APIURL: "http://127.0.0.1:1/api/"})
		_, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "C1"}, Text: "x"})
		var re *channels.RetryableError
		if !errors.As(err, &re) {
			t.Errorf("network error not retryable: %v", err)
		}
	})
	t.Run("refused locally", func(t *testing.T) {
		a := newAdapter(t, newFake(t), nil)
		for _, msg := range []channels.Outbound{
			{Text: "no chat"},
			{To: channels.Target{ChatID: "C1"}, Text: "  "},
			{To: channels.Target{ChatID: "C1"}, Text: "x", Buttons: [][]channels.Button{{{Text: "b", Data: strings.Repeat("d", 2001)}}}},
		} {
			if _, err := a.Send(context.Background(), msg); err == nil {
				t.Errorf("Send(%+v) succeeded", msg)
			}
		}
	})
}

func TestSendAttachments(t *testing.T) {
	fake := newFake(t)
	a := newAdapter(t, fake, func(o *Options) { o.MediaMaxMb = 1 })
	dir := t.TempDir()
	small := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(small, []byte("hello file"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.bin")
	if err := os.WriteFile(big, bytes.Repeat([]byte{1}, 1<<20+1), 0o644); err != nil {
		t.Fatal(err)
	}
	sent, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "C1", ThreadID: "1700000001.000100"},
		Text: "see file", Attachments: []channels.Attachment{{Path: small, Name: "report.txt"}}})
	if err != nil {
		t.Fatal(err)
	}
	ups := fake.Uploads()
	if len(ups) != 1 || ups[0].Name != "report.txt" || string(ups[0].Bytes) != "hello file" ||
		ups[0].Channel != "C1" || ups[0].ThreadTS != "1700000001.000100" {
		t.Fatalf("uploads %+v", ups)
	}
	if sent.MessageID == "" || len(fake.Messages()) != 1 {
		t.Errorf("text message: sent %+v, messages %+v", sent, fake.Messages())
	}

	_, err = a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "C1"}, Text: "too big",
		Attachments: []channels.Attachment{{Path: big}}})
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("over MediaMaxMb: %v, want ErrTooLarge", err)
	}
	if len(fake.Messages()) != 1 {
		t.Error("a message with an oversized attachment was partly sent")
	}
	// A file alone.
	if _, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "D1"},
		Attachments: []channels.Attachment{{Path: small}}}); err != nil {
		t.Fatal(err)
	}
	if ups := fake.Uploads(); len(ups) != 2 || ups[1].Name != "notes.txt" || ups[1].Channel != "D1" {
		t.Errorf("uploads %+v", ups)
	}
	// The upload step rate-limited.
	fake.Fail("files.getUploadURLExternal", 1, slacktest.TooManyRequests(3))
	_, err = a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "D1"}, Attachments: []channels.Attachment{{Path: small}}})
	var re *channels.RetryableError
	if !errors.As(err, &re) || re.After != 3*time.Second {
		t.Errorf("rate-limited upload: %v", err)
	}
}

func TestActions(t *testing.T) {
	fake := newFake(t)
	a := newAdapter(t, fake, nil)
	ctx := context.Background()
	to := channels.Target{ChatID: "C1"}
	sent, err := a.Send(ctx, channels.Outbound{To: to, Text: "first"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Edit(ctx, to, sent.MessageID, "**second**"); err != nil {
		t.Fatal(err)
	}
	if m := fake.Messages()[0]; m.Text != "*second*" {
		t.Errorf("edited text %q", m.Text)
	}
	if err := a.React(ctx, to, sent.MessageID, ":white_check_mark:"); err != nil {
		t.Fatal(err)
	}
	if c := fake.Calls("reactions.add"); len(c) != 1 || c[0].Params.Get("name") != "white_check_mark" ||
		c[0].Params.Get("timestamp") != sent.MessageID || c[0].Params.Get("channel") != "C1" {
		t.Errorf("reactions.add %+v", c)
	}
	fake.Fail("reactions.add", 1, slacktest.SlackError("already_reacted"))
	if err := a.React(ctx, to, sent.MessageID, "eyes"); err != nil {
		t.Errorf("already reacted: %v", err)
	}
	if err := a.Pin(ctx, to, sent.MessageID); err != nil {
		t.Fatal(err)
	}
	if err := a.Unpin(ctx, to, sent.MessageID); err != nil {
		t.Fatal(err)
	}
	if len(fake.Calls("pins.add")) != 1 || len(fake.Calls("pins.remove")) != 1 {
		t.Error("pins not called")
	}
	if err := a.Delete(ctx, to, sent.MessageID); err != nil {
		t.Fatal(err)
	}
	if !fake.Messages()[0].Deleted {
		t.Error("message not deleted")
	}
	var ae *APIError
	if err := a.Edit(ctx, to, sent.MessageID, "gone"); !errors.As(err, &ae) || ae.Code != "message_not_found" {
		t.Errorf("edit of a deleted message: %v", err)
	}
	if err := a.Typing(ctx, to); !errors.Is(err, channels.ErrUnsupported) {
		t.Errorf("Typing = %v, want ErrUnsupported", err)
	}
	info, err := a.ChatInfo(ctx, "C1")
	if err != nil || info["id"] != "C1" || info["name"] != "general" {
		t.Errorf("ChatInfo = %v, %v", info, err)
	}
	if _, err := a.ChatInfo(ctx, "CMISSING"); !errors.As(err, &ae) || ae.Code != "channel_not_found" {
		t.Errorf("ChatInfo missing: %v", err)
	}
	member, err := a.MemberInfo(ctx, "C1", "U7")
	if err != nil || member["id"] != "U7" {
		t.Errorf("MemberInfo = %v, %v", member, err)
	}
}

func TestAnswerCallback(t *testing.T) {
	fake := newFake(t)
	a := newAdapter(t, fake, nil)
	ctx := context.Background()
	tests := []struct {
		name, id, text string
		posted         bool
		wantErr        bool
	}{
		{"no text", fake.ResponseURL(), "", false, false},
		{"trigger id only", "123.456.abc", "ok", false, false},
		{"response url", fake.ResponseURL(), "Recorded", true, false},
		{"foreign host", "https://evil.example/hook", "x", false, true},
		{"plain http slack", "http://hooks.slack.com/x", "x", false, true},
	}
	n := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := a.AnswerCallback(ctx, tt.id, tt.text)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			if tt.posted {
				n++
			}
			if got := len(fake.Responses()); got != n {
				t.Errorf("%d responses, want %d", got, n)
			}
		})
	}
}

func TestFetchMedia(t *testing.T) {
	fake := newFake(t)
	a := newAdapter(t, fake, nil)
	ctx := context.Background()
	u := fake.AddFile("a.txt", []byte("0123456789"))
	rc, err := a.FetchMedia(ctx, channels.Media{FileID: u, Name: "a.txt"}, 100)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(b) != "0123456789" {
		t.Errorf("read %q, %v", b, err)
	}
	rc, err = a.FetchMedia(ctx, channels.Media{FileID: u, Name: "a.txt"}, 5)
	if err == nil {
		_, err = io.ReadAll(rc)
		rc.Close()
	}
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the cap: %v, want ErrTooLarge", err)
	}
	if _, err := a.FetchMedia(ctx, channels.Media{FileID: "https://evil.example/f", Name: "x"}, 100); err == nil {
		t.Error("the token was offered to a foreign host")
	}
	if _, err := a.FetchMedia(ctx, channels.Media{FileID: u, Size: 1000}, 100); !errors.Is(err, ErrTooLarge) {
		t.Errorf("declared size over the cap: %v", err)
	}
}
