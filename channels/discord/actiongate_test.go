package discord

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/discord/discordtest"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// manager runs a on a channels.Manager with the policy cfg's discord
// block makes.
func manager(t *testing.T, fake *discordtest.Server, cfg string) *channels.Manager {
	t.Helper()
	st := storetest.Open(t, channels.Migrations())
	policy := spec(t, cfg).Policy
	a := newAdapter(t, fake, nil)
	net := channels.Network{Name: "discord", Label: "Discord", Accounts: func(*config.Config) []channels.AccountSpec {
		return []channels.AccountSpec{{AccountID: "default", Default: true, Enabled: true, Fingerprint: "g", Policy: policy,
			New: func() (channels.Adapter, error) { return a, nil }}}
	}}
	m := channels.New(&config.Config{}, channels.Options{Store: st, Dispatcher: instantAgent{}, Networks: []channels.Network{net},
		DefaultAgent: func(*config.Config) string { return "main" }, TypingInterval: time.Hour})
	m.Start(context.Background())
	t.Cleanup(func() { m.Close(context.Background()) })
	fake.WaitLive(1, 0, waitFor)
	return m
}

// A prompt-injected model asks to ban, time out or promote someone with
// the default config: OpenClaw's moderation and roles switches are off,
// so nothing reaches Discord, not even the channel lookup; turned on,
// the same requests go through.
func TestModerationOffByDefault(t *testing.T) {
	ctx := context.Background()
	params := []map[string]any{
		{"action": "ban", "userId": "111", "reason": "spam", "deleteDays": float64(1)},
		{"action": "kick", "userId": "111"},
		{"action": "timeout", "userId": "111", "durationMinutes": float64(10)},
		{"action": "role-add", "userId": "111", "roleId": "role-mod"},
		{"action": "role-remove", "userId": "111", "roleId": "role-mod"},
	}
	act := func(m *channels.Manager, p map[string]any) error {
		ar, err := m.ActionFromParams("discord", "", p["action"].(string), p)
		if err != nil {
			return err
		}
		ar.To = channels.Target{ChatID: "c1"}
		_, err = m.Action(ctx, ar)
		return err
	}

	fake := discordtest.New(t, testToken)
	fake.AddChannel("c1", map[string]any{"type": 0, "guild_id": "g1"})
	m := manager(t, fake, `{channels: {discord: {token: "x"}}}`)
	before := len(fake.Calls(""))
	for _, p := range params {
		err := act(m, p)
		if err == nil || !strings.Contains(err.Error(), "is turned off") {
			t.Errorf("%s: err %v, want turned off", p["action"], err)
		}
	}
	if calls := fake.Calls(""); len(calls) != before {
		t.Errorf("switched-off actions reached Discord: %+v", calls[before:])
	}

	fake = discordtest.New(t, testToken)
	fake.AddChannel("c1", map[string]any{"type": 0, "guild_id": "g1"})
	m = manager(t, fake, `{channels: {discord: {token: "x", actions: {moderation: true, roles: true}}}}`)
	for _, p := range params {
		if err := act(m, p); err != nil {
			t.Errorf("%s: %v", p["action"], err)
		}
	}
	for _, route := range []string{"ban", "kick", "member-edit", "role-add", "role-remove"} {
		if len(fake.Calls(route)) != 1 {
			t.Errorf("%s: %d calls", route, len(fake.Calls(route)))
		}
	}
	if q := fake.Calls("ban")[0].Query; q != "delete_message_days=1&reason=spam" {
		t.Errorf("ban query %q", q)
	}
	// search is a network limit, not a switch: Discord bots cannot search.
	_, err := m.Action(ctx, channels.ActionRequest{Channel: "discord", Action: "search", To: channels.Target{ChatID: "c1"}, Query: "x"})
	if !errors.Is(err, channels.ErrUnsupported) || !strings.Contains(err.Error(), "Discord cannot search") {
		t.Errorf("search: %v", err)
	}
}

// A prompt-injected model in channel c1 names another server's channel
// as the thread to post or delete in: the manager asks Discord whose
// thread it is and refuses before the message goes out.
func TestActionThreadOfAnotherChannelRefused(t *testing.T) {
	ctx := context.Background()
	fake := discordtest.New(t, testToken)
	fake.AddChannel("c1", map[string]any{"type": 0, "guild_id": "g1"})
	fake.AddChannel("secret", map[string]any{"type": 0, "guild_id": "g2"})
	fake.AddChannel("t1", map[string]any{"type": 11, "guild_id": "g1", "parent_id": "c1"})
	m := manager(t, fake, `{channels: {discord: {token: "x"}}}`)
	for _, action := range []string{"send", "thread-reply", "delete", "react", "read"} {
		_, err := m.Action(ctx, channels.ActionRequest{Channel: "discord", Action: action, To: channels.Target{ChatID: "c1", ThreadID: "secret"},
			Text: "leak", MessageID: "5", Emoji: "👍", IdempotencyKey: "k-" + action})
		if err == nil || !strings.Contains(err.Error(), "is not a thread of channel c1") {
			t.Errorf("%s: %v", action, err)
		}
	}
	for _, route := range []string{"send", "delete", "react", "messages"} {
		if n := len(fake.Calls(route)); n != 0 {
			t.Errorf("%d %s calls reached the other channel", n, route)
		}
	}
	if _, err := m.Action(ctx, channels.ActionRequest{Channel: "discord", Action: "thread-reply", To: channels.Target{ChatID: "c1", ThreadID: "t1"},
		Text: "in the thread", IdempotencyKey: "k-ok"}); err != nil {
		t.Fatal(err)
	}
	if s := fake.Sent(); len(s) != 1 || s[0].ChannelID != "t1" {
		t.Errorf("sent %+v", s)
	}
}
