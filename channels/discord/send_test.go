package discord

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/discord/discordtest"
)

func containsToken(s string) bool { return strings.Contains(s, testToken) }

func TestSend(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "report.txt")
	if err := os.WriteFile(file, []byte("hello file"), 0o600); err != nil {
		t.Fatal(err)
	}
	long := strings.TrimSuffix(strings.Repeat("line\n", 20), "\n")
	tests := []struct {
		name  string
		msg   channels.Outbound
		n     int
		check func(t *testing.T, ms []discordtest.Message)
	}{
		{"plain", channels.Outbound{To: channels.Target{ChatID: "c1"}, Text: "# Title\nhi @everyone"}, 1,
			func(t *testing.T, ms []discordtest.Message) {
				if ms[0].Content != "**Title**\nhi @\u200beveryone" || ms[0].ChannelID != "c1" {
					t.Errorf("sent %+v", ms[0])
				}
				if string(ms[0].AllowedMentions) != `{"parse":[],"replied_user":true}` {
					t.Errorf("allowed_mentions %s", ms[0].AllowedMentions)
				}
			}},
		{"reply in thread, silent", channels.Outbound{To: channels.Target{ChatID: "c1", ThreadID: "t1"}, Text: "x", ReplyToID: "m5", Silent: true}, 1,
			func(t *testing.T, ms []discordtest.Message) {
				if ms[0].ChannelID != "t1" || ms[0].ReplyTo != "m5" || ms[0].Flags != 1<<12 {
					t.Errorf("sent %+v", ms[0])
				}
			}},
		{"buttons", channels.Outbound{To: channels.Target{ChatID: "c1"}, Text: "Allow?",
			Buttons: [][]channels.Button{{{Text: "Allow", Data: "approve:1:allow"}, {Text: "Deny", Data: "approve:1:deny"}}}}, 1,
			func(t *testing.T, ms []discordtest.Message) {
				var rows []struct {
					Type       int `json:"type"`
					Components []struct {
						Label    string `json:"label"`
						CustomID string `json:"custom_id"`
						Type     int    `json:"type"`
					} `json:"components"`
				}
				if err := json.Unmarshal(ms[0].Components, &rows); err != nil || len(rows) != 1 || rows[0].Type != 1 ||
					len(rows[0].Components) != 2 || rows[0].Components[1].CustomID != "approve:1:deny" || rows[0].Components[0].Type != 2 {
					t.Errorf("components %s (%v)", ms[0].Components, err)
				}
			}},
		{"split by lines", channels.Outbound{To: channels.Target{ChatID: "c1"}, Text: long, ReplyToID: "m1",
			Buttons: [][]channels.Button{{{Text: "b", Data: "d"}}}}, 2,
			func(t *testing.T, ms []discordtest.Message) {
				if strings.Count(ms[0].Content, "\n")+1 != 17 || strings.Count(ms[1].Content, "\n")+1 != 3 {
					t.Errorf("parts of %d and %d lines, want 17 and 3", strings.Count(ms[0].Content, "\n")+1, strings.Count(ms[1].Content, "\n")+1)
				}
				if ms[0].ReplyTo != "m1" || ms[1].ReplyTo != "" || len(ms[0].Components) > 4 || len(ms[1].Components) < 5 {
					t.Errorf("reply/buttons placed wrong: %+v", ms)
				}
			}},
		{"attachment", channels.Outbound{To: channels.Target{ChatID: "c1"}, Text: "see file", Attachments: []channels.Attachment{{Path: file}}}, 1,
			func(t *testing.T, ms []discordtest.Message) {
				if len(ms[0].Files) != 1 || ms[0].Files[0].Name != "report.txt" || string(ms[0].Files[0].Bytes) != "hello file" || ms[0].Content != "see file" {
					t.Errorf("sent %+v", ms[0])
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := discordtest.New(t, testToken)
			a := newAdapter(t, fake, nil)
			sent, err := a.Send(context.Background(), tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			ms := fake.Sent()
			if len(ms) != tt.n {
				t.Fatalf("%d messages sent, want %d: %+v", len(ms), tt.n, ms)
			}
			if sent.MessageID != ms[0].ID {
				t.Errorf("Sent.MessageID %q, want %q", sent.MessageID, ms[0].ID)
			}
			tt.check(t, ms)
		})
	}
}

func TestSendRefusesLargeAttachment(t *testing.T) {
	fake := discordtest.New(t, testToken)
	a := newAdapter(t, fake, func(o *Options) { o.MediaMaxMb = 1 })
	big := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(big, make([]byte, 1<<20+1), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "c"}, Text: "x", Attachments: []channels.Attachment{{Path: big}}})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if n := len(fake.Calls("send")); n != 0 {
		t.Errorf("%d sends, want none", n)
	}
}

func TestSendErrors(t *testing.T) {
	tests := []struct {
		name      string
		fault     *discordtest.Fault
		revoke    bool
		retryable bool
		after     time.Duration
		status    int
		is        error
		contains  string
	}{
		{name: "429", fault: ptr(discordtest.TooManyRequests(1.5)), retryable: true, after: 1500 * time.Millisecond, status: 429},
		{name: "500", fault: ptr(discordtest.ServerError()), retryable: true, status: 500},
		{name: "403", fault: ptr(discordtest.APIError(403, 50013, "Missing Permissions")), status: 403, contains: "Missing Permissions"},
		{name: "malformed", fault: ptr(discordtest.Malformed()), is: ErrMalformedResponse},
		{name: "401", revoke: true, status: 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := discordtest.New(t, testToken)
			if tt.fault != nil {
				fake.Fail("send", 1, *tt.fault)
			}
			if tt.revoke {
				fake.RevokeToken()
			}
			a := newAdapter(t, fake, nil)
			_, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "c"}, Text: "hi"})
			if err == nil {
				t.Fatal("no error")
			}
			if containsToken(err.Error()) {
				t.Errorf("error leaks the token: %v", err)
			}
			var re *channels.RetryableError
			if got := errors.As(err, &re); got != tt.retryable {
				t.Fatalf("retryable = %v, want %v (%v)", got, tt.retryable, err)
			}
			if tt.retryable && re.After != tt.after {
				t.Errorf("After = %s, want %s", re.After, tt.after)
			}
			var ae *APIError
			if tt.status != 0 && (!errors.As(err, &ae) || ae.Status != tt.status) {
				t.Errorf("err = %v, want APIError %d", err, tt.status)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("err = %v, want %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("err = %v, want it to contain %q", err, tt.contains)
			}
		})
	}
	t.Run("network", func(t *testing.T) {
		a := New(Options{Token: testToken, APIBase: "http://127.0.0.1:1/", CallTimeout: time.Second,
			HTTPClient: &http.Client{Transport: &http.Transport{}}})
		defer SetAPIBase(DefaultAPIBase)
		_, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "c"}, Text: "hi"})
		var re *channels.RetryableError
		if !errors.As(err, &re) {
			t.Fatalf("err = %v, want RetryableError", err)
		}
	})
}

func TestActions(t *testing.T) {
	fake := discordtest.New(t, testToken)
	a := newAdapter(t, fake, nil)
	ctx := context.Background()
	to := channels.Target{ChatID: "c1"}
	steps := []struct {
		route string
		do    func() error
	}{
		{"edit", func() error { return a.Edit(ctx, to, "m1", "**new** text") }},
		{"delete", func() error { return a.Delete(ctx, to, "m1") }},
		{"react", func() error { return a.React(ctx, to, "m1", "👍") }},
		{"typing", func() error { return a.Typing(ctx, channels.Target{ChatID: "c1", ThreadID: "t1"}) }},
		{"pin", func() error { return a.Pin(ctx, to, "m1") }},
		{"unpin", func() error { return a.Unpin(ctx, to, "m1") }},
		{"send", func() error {
			_, err := a.Poll(ctx, to, channels.Poll{Question: "Lunch?", Options: []string{"yes", "no"}, DurationSecs: 7200})
			return err
		}},
		{"commands", func() error { return a.SetCommands(ctx, channels.NativeCommands) }},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.route, err)
		}
		if len(fake.Calls(s.route)) == 0 {
			t.Errorf("%s: no call reached the fake", s.route)
		}
	}
	if e := fake.Edits(); len(e) != 1 || e[0].Content != "**new** text" || e[0].ID != "m1" {
		t.Errorf("edits %+v", e)
	}
	if c := fake.Calls("react")[0]; !strings.Contains(c.Path, "%F0%9F%91%8D") {
		t.Errorf("reaction path %s", c.Path)
	}
	if c := fake.Calls("typing")[0]; c.Path != "/channels/t1/typing" {
		t.Errorf("typing path %s, want the thread", c.Path)
	}
	if p := fake.Sent()[0].Poll; !strings.Contains(string(p), `"duration":2`) || !strings.Contains(string(p), `"Lunch?"`) {
		t.Errorf("poll %s", p)
	}
	var cmds []struct {
		Name    string
		Options []struct {
			Name string
			Type int
		}
	}
	_ = json.Unmarshal(fake.Commands(), &cmds)
	if len(cmds) != 4 || cmds[0].Name != "new" || cmds[1].Name != "reset" || cmds[2].Name != "status" || cmds[3].Name != "voice" ||
		len(cmds[3].Options) != 1 || cmds[3].Options[0].Name != "args" || cmds[3].Options[0].Type != 3 {
		t.Errorf("commands %s", fake.Commands())
	}
	if err := a.React(ctx, to, "m1", ""); !errors.Is(err, channels.ErrUnsupported) {
		t.Errorf("React \"\" = %v, want ErrUnsupported", err)
	}
	if _, err := a.Poll(ctx, to, channels.Poll{Question: "q", Options: []string{"a"}, Anonymous: true}); !errors.Is(err, channels.ErrUnsupported) {
		t.Errorf("anonymous poll = %v, want ErrUnsupported", err)
	}

	fake.AddChannel("c1", map[string]any{"type": 0, "guild_id": "g1", "name": "general"})
	info, err := a.ChatInfo(ctx, "c1")
	if err != nil || info["name"] != "general" {
		t.Errorf("ChatInfo = %v, %v", info, err)
	}
	member, err := a.MemberInfo(ctx, "c1", "111")
	if err != nil || member["user"] == nil || len(fake.Calls("member")) != 1 {
		t.Errorf("MemberInfo = %v, %v", member, err)
	}

	url := fake.AddAttachment("a.txt", []byte("0123456789"))
	body, err := a.FetchMedia(ctx, channels.Media{FileID: url}, 100)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(body)
	body.Close()
	if string(b) != "0123456789" {
		t.Errorf("fetched %q", b)
	}
	body, err = a.FetchMedia(ctx, channels.Media{FileID: url}, 5)
	if err == nil {
		_, err = io.ReadAll(body)
		body.Close()
	}
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the cap: %v, want ErrTooLarge", err)
	}
	if _, err := a.FetchMedia(ctx, channels.Media{FileID: "https://evil.test/x"}, 5); err == nil {
		t.Error("fetched from a host that is not Discord's")
	}
}
