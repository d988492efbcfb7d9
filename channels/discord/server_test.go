package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/discord/discordtest"
)

// TestReadingAndServerActions runs each new action against the fake and
// checks the exact request Discord received and what the agent gets back.
func TestReadingAndServerActions(t *testing.T) {
	fake := discordtest.New(t, testToken)
	a := newAdapter(t, fake, nil)
	ctx := context.Background()
	fake.AddChannel("c1", map[string]any{"type": 0, "guild_id": "g1", "name": "general"})
	fake.AddChannel("c2", map[string]any{"type": 2, "guild_id": "g1", "name": "voice"})
	fake.AddChannel("dm1", map[string]any{"type": 1, "name": ""})
	fake.AddChannel("f1", map[string]any{"type": 15, "guild_id": "g1", "name": "ideas"})
	fake.AddEmoji("456", "party", false)
	fake.AddEmoji("123", "dance", true)
	fake.SetVoiceState("111", "c2")
	to := channels.Target{ChatID: "c1"}
	sent, err := a.Send(ctx, channels.Outbound{To: to, Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.React(ctx, to, sent.MessageID, "👍"); err != nil {
		t.Fatal(err)
	}
	if err := a.Pin(ctx, to, sent.MessageID); err != nil {
		t.Fatal(err)
	}
	until := time.Now().Add(10 * time.Minute).UTC().Truncate(time.Second)
	start := time.Date(2027, 1, 2, 18, 0, 0, 0, time.UTC)

	tests := []struct {
		name   string
		do     func() (any, error)
		route  string
		path   string   // the request's path below /api/v9
		body   []string // substrings of the request body and query, and its audit-log reason
		result []string // substrings of the result as JSON
	}{
		{"read", func() (any, error) { return a.Read(ctx, to, channels.ReadQuery{Limit: 5, Before: "999"}) },
			"messages", "/channels/c1/messages", nil, []string{`"content":"hello"`, `"emoji":"👍"`}},
		{"reactions with an emoji", func() (any, error) { return a.Reactions(ctx, to, sent.MessageID, "👍", 0) },
			"reactions", "/channels/c1/messages/" + sent.MessageID + "/reactions/%F0%9F%91%8D", nil, []string{`"count":1`, `"users":[{"id":"` + discordtest.BotID}},
		{"list-pins", func() (any, error) { return a.ListPins(ctx, to) },
			"pins", "/channels/c1/pins", nil, []string{`"pins":[{`, `"id":"` + sent.MessageID}},
		{"thread-create on its own", func() (any, error) {
			return a.CreateThread(ctx, to, channels.ThreadSpec{Name: "Plans", Text: "first", AutoArchiveMinutes: 100})
		}, "thread-create", "/channels/c1/threads", []string{`"name":"Plans"`, `"auto_archive_duration":1440`, `"type":11`}, []string{`"name":"Plans"`, `"parentId":"c1"`, `"messageId"`}},
		{"thread-create on a message", func() (any, error) {
			return a.CreateThread(ctx, to, channels.ThreadSpec{Name: "About hello", MessageID: sent.MessageID})
		}, "thread-create", "/channels/c1/messages/" + sent.MessageID + "/threads", []string{`"name":"About hello"`}, []string{`"threadId":"` + sent.MessageID}},
		{"thread-create in a forum posts its message with it", func() (any, error) {
			return a.CreateThread(ctx, channels.Target{ChatID: "f1"}, channels.ThreadSpec{Name: "Ideas", Text: "**first** idea"})
		}, "thread-create", "/channels/f1/threads", []string{`"name":"Ideas"`, `"message":{"content":"**first** idea"`}, []string{`"parentId":"f1"`}},
		{"thread-list", func() (any, error) { return a.ListThreads(ctx, to, 0) },
			"threads", "/guilds/g1/threads/active", nil, []string{`"name":"Plans"`, `"name":"About hello"`}},
		{"channel-list", func() (any, error) { return a.ListChannels(ctx, to) },
			"guild-channels", "/guilds/g1/channels", nil, []string{`"guildId":"g1"`, `"name":"general"`, `"name":"voice"`}},
		{"role-info", func() (any, error) { return a.RoleInfo(ctx, to) },
			"roles", "/guilds/g1/roles", nil, []string{`"name":"@everyone"`, `"name":"Mods"`}},
		{"role-add", func() (any, error) { return nil, a.AddRole(ctx, to, "111", "role-mod") },
			"role-add", "/guilds/g1/members/111/roles/role-mod", nil, nil},
		{"role-remove", func() (any, error) { return nil, a.RemoveRole(ctx, to, "111", "role-mod") },
			"role-remove", "/guilds/g1/members/111/roles/role-mod", nil, nil},
		{"timeout", func() (any, error) { return nil, a.Timeout(ctx, to, "111", until, "spam") },
			"member-edit", "/guilds/g1/members/111", []string{`"communication_disabled_until":"` + until.Format(time.RFC3339), "reason: spam"}, nil},
		{"timeout lifted", func() (any, error) { return nil, a.Timeout(ctx, to, "111", time.Time{}, "") },
			"member-edit", "/guilds/g1/members/111", []string{`"communication_disabled_until":null`}, nil},
		{"kick", func() (any, error) { return nil, a.Kick(ctx, to, "111", "rude") },
			"kick", "/guilds/g1/members/111", []string{"reason=rude"}, nil},
		{"ban", func() (any, error) { return nil, a.Ban(ctx, to, "111", "spam", 2) },
			"ban", "/guilds/g1/bans/111", []string{`delete_message_days=2`, `reason=spam`}, nil},
		{"permissions of a member", func() (any, error) { return a.Permissions(ctx, to, "111") },
			"member", "/guilds/g1/members/111", nil, []string{`"permissions":"3072"`, `"SEND_MESSAGES"`, `"VIEW_CHANNEL"`}},
		{"emoji-list", func() (any, error) { return a.ListEmojis(ctx, to, 0) },
			"emojis", "/guilds/g1/emojis", nil, []string{`[{"animated":true,"identifier":"dance:123","name":"dance"},{"identifier":"party:456","name":"party"}]`}},
		{"sticker", func() (any, error) { return a.SendSticker(ctx, to, []string{"777"}, "look") },
			"send", "/channels/c1/messages", []string{`"sticker_ids":["777"]`, `"content":"look"`}, []string{`"MessageID":"13`}},
		{"voice-status in voice", func() (any, error) { return a.VoiceStatus(ctx, to, "111") },
			"voice-state", "/guilds/g1/voice-states/111", nil, []string{`"inVoice":true`, `"channel_id":"c2"`}},
		{"voice-status not in voice", func() (any, error) { return a.VoiceStatus(ctx, to, "222") },
			"voice-state", "/guilds/g1/voice-states/222", nil, []string{`"inVoice":false`}},
		{"event-create", func() (any, error) {
			return a.CreateEvent(ctx, to, channels.EventSpec{Name: "Game night", Start: start, End: start.Add(2 * time.Hour), Location: "The pub"})
		}, "event-create", "/guilds/g1/scheduled-events", []string{`"name":"Game night"`, `"entity_type":3`, `"location":"The pub"`, `"scheduled_start_time":"2027-01-02T18:00:00Z"`, `"privacy_level":2`}, []string{`"name":"Game night"`}},
		{"event-list", func() (any, error) { return a.ListEvents(ctx, to) },
			"events", "/guilds/g1/scheduled-events", nil, []string{`"name":"Game night"`, `"location":"The pub"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(fake.Calls(tt.route))
			res, err := tt.do()
			if err != nil {
				t.Fatal(err)
			}
			calls := fake.Calls(tt.route)
			if len(calls) <= before {
				t.Fatalf("no %s call reached the fake", tt.route)
			}
			c := calls[before]
			if c.Path != tt.path {
				t.Errorf("path %s, want %s", c.Path, tt.path)
			}
			req := fmt.Sprintf("%s ? %s reason: %s", c.Body, c.Query, c.Reason)
			for _, want := range tt.body {
				if !strings.Contains(req, want) {
					t.Errorf("request %s lacks %s", req, want)
				}
			}
			got, _ := json.Marshal(res)
			for _, want := range tt.result {
				if !strings.Contains(string(got), want) {
					t.Errorf("result %s lacks %s", got, want)
				}
			}
		})
	}
	if c := fake.Calls("messages")[0]; c.Query != "before=999&limit=5" {
		t.Errorf("read query %s", c.Query)
	}
	var firsts []string
	for _, m := range fake.Sent() {
		firsts = append(firsts, m.Content)
	}
	if !slices.Contains(firsts, "first") || !slices.Contains(firsts, "**first** idea") {
		t.Errorf("threads' first messages: sent %q", firsts)
	}
}

// TestServerActionsRefused: what Discord cannot do, or what is asked
// wrongly, fails before any request.
func TestServerActionsRefused(t *testing.T) {
	fake := discordtest.New(t, testToken)
	a := newAdapter(t, fake, nil)
	ctx := context.Background()
	fake.AddChannel("dm1", map[string]any{"type": 1})
	fake.AddChannel("c1", map[string]any{"type": 0, "guild_id": "g1"})
	dm, to := channels.Target{ChatID: "dm1"}, channels.Target{ChatID: "c1"}
	tests := []struct {
		name        string
		err         error
		unsupported bool
		route       string // must not have been called
	}{
		{"kick in a DM", a.Kick(ctx, dm, "111", ""), true, "kick"},
		{"roles of a DM", func() error { _, err := a.RoleInfo(ctx, dm); return err }(), true, "roles"},
		{"timeout in the past", a.Timeout(ctx, to, "111", time.Now().Add(-time.Minute), ""), false, "member-edit"},
		{"timeout over 28 days", a.Timeout(ctx, to, "111", time.Now().Add(29*24*time.Hour), ""), false, "member-edit"},
		{"voice event without a channel", func() error {
			_, err := a.CreateEvent(ctx, to, channels.EventSpec{Name: "x", Start: time.Now().Add(time.Hour), Type: "voice"})
			return err
		}(), false, "event-create"},
		{"four stickers", func() error { _, err := a.SendSticker(ctx, to, []string{"1", "2", "3", "4"}, ""); return err }(), false, "send"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err == nil {
				t.Fatal("no error")
			}
			if errors.Is(tt.err, channels.ErrUnsupported) != tt.unsupported {
				t.Errorf("err %v: unsupported %v, want %v", tt.err, !tt.unsupported, tt.unsupported)
			}
			if n := len(fake.Calls(tt.route)); n != 0 {
				t.Errorf("%d %s calls reached the fake", n, tt.route)
			}
		})
	}
}

// A thread id is a channel id on Discord: a session bound to c1 names
// another server's channel as its "thread" to read it. The adapter asks
// Discord what the thread's parent is and refuses before reading; a real
// thread of c1 reads.
func TestThreadMustBelongToTheChat(t *testing.T) {
	fake := discordtest.New(t, testToken)
	a := newAdapter(t, fake, nil)
	ctx := context.Background()
	fake.AddChannel("c1", map[string]any{"type": 0, "guild_id": "g1"})
	fake.AddChannel("secret", map[string]any{"type": 0, "guild_id": "g2"})
	fake.AddChannel("t1", map[string]any{"type": 11, "guild_id": "g1", "parent_id": "c1"})
	stolen := channels.Target{ChatID: "c1", ThreadID: "secret"}
	for name, do := range map[string]func() error{
		"read":        func() error { _, err := a.Read(ctx, stolen, channels.ReadQuery{}); return err },
		"list-pins":   func() error { _, err := a.ListPins(ctx, stolen); return err },
		"reactions":   func() error { _, err := a.Reactions(ctx, stolen, "m1", "", 0); return err },
		"permissions": func() error { _, err := a.Permissions(ctx, stolen, "111"); return err },
		"sticker":     func() error { _, err := a.SendSticker(ctx, stolen, []string{"1"}, ""); return err },
	} {
		if err := do(); err == nil || !strings.Contains(err.Error(), "is not a thread of channel c1") {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, route := range []string{"messages", "pins", "message", "member", "send"} {
		if n := len(fake.Calls(route)); n != 0 {
			t.Errorf("%d %s calls reached the other channel", n, route)
		}
	}
	if _, err := a.Read(ctx, channels.Target{ChatID: "c1", ThreadID: "t1"}, channels.ReadQuery{}); err != nil {
		t.Fatal(err)
	}
	if c := fake.Calls("messages"); len(c) != 1 || c[0].Path != "/channels/t1/messages" {
		t.Errorf("thread read %+v", c)
	}
}

// emoji-upload sends the image as a data URI; what Discord would refuse
// (a bad name, not an image, over 256 KB) fails before any request.
func TestUploadEmoji(t *testing.T) {
	fake := discordtest.New(t, testToken)
	a := newAdapter(t, fake, nil)
	ctx := context.Background()
	fake.AddChannel("c1", map[string]any{"type": 0, "guild_id": "g1"})
	dir := t.TempDir()
	png := filepath.Join(dir, "party.png")
	os.WriteFile(png, append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...), 0o600)
	txt := filepath.Join(dir, "notes.txt")
	os.WriteFile(txt, []byte("hello there"), 0o600)
	big := filepath.Join(dir, "big.png")
	os.WriteFile(big, append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 300<<10)...), 0o600)
	to := channels.Target{ChatID: "c1"}

	res, err := a.UploadEmoji(ctx, to, "party_time", png)
	if err != nil {
		t.Fatal(err)
	}
	c := fake.Calls("emoji-create")
	if len(c) != 1 || c[0].Path != "/guilds/g1/emojis" || !strings.Contains(string(c[0].Body), `"image":"data:image/png;base64,iVBORw0KGgo`) ||
		!strings.Contains(string(c[0].Body), `"name":"party_time"`) {
		t.Errorf("emoji-create %+v", c)
	}
	if got, _ := json.Marshal(res); !strings.Contains(string(got), `"identifier":"party_time:`) {
		t.Errorf("result %s", got)
	}
	for _, tt := range []struct{ name, emoji, path, err string }{
		{"bad name", "no spaces", png, "2-32 letters"},
		{"not an image", "notes", txt, "is not a PNG"},
		{"too big", "big", big, "over 256 KB"},
	} {
		if _, err := a.UploadEmoji(ctx, to, tt.emoji, tt.path); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.err)
		}
	}
	if n := len(fake.Calls("emoji-create")); n != 1 {
		t.Errorf("%d emoji-create calls, want 1", n)
	}
}

// sticker-upload posts Discord's multipart form: the fields and the file.
func TestUploadSticker(t *testing.T) {
	fake := discordtest.New(t, testToken)
	a := newAdapter(t, fake, nil)
	ctx := context.Background()
	fake.AddChannel("c1", map[string]any{"type": 0, "guild_id": "g1"})
	png := filepath.Join(t.TempDir(), "wave.png")
	img := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...)
	os.WriteFile(png, img, 0o600)
	res, err := a.UploadSticker(ctx, channels.Target{ChatID: "c1"}, channels.StickerSpec{Name: "wave", Description: "hello", Tags: "wave"}, png)
	if err != nil {
		t.Fatal(err)
	}
	if c := fake.Calls("sticker-create"); len(c) != 1 || c[0].Path != "/guilds/g1/stickers" {
		t.Errorf("calls %+v", c)
	}
	if st := fake.Stickers(); len(st) != 1 || st[0].Name != "wave.png" || string(st[0].Bytes) != string(img) {
		t.Errorf("stickers %+v", st)
	}
	if got, _ := json.Marshal(res); !strings.Contains(string(got), `"name":"wave"`) || !strings.Contains(string(got), `"stickerId":"`) {
		t.Errorf("result %s", got)
	}
	txt := filepath.Join(t.TempDir(), "a.txt")
	os.WriteFile(txt, []byte("plain words"), 0o600)
	if _, err := a.UploadSticker(ctx, channels.Target{ChatID: "c1"}, channels.StickerSpec{Name: "words", Tags: "x"}, txt); err == nil || !strings.Contains(err.Error(), "is not a PNG") {
		t.Errorf("text sticker: %v", err)
	}
	if n := len(fake.Calls("sticker-create")); n != 1 {
		t.Errorf("%d sticker-create calls", n)
	}
}
