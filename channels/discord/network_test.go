package discord

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/discord/discordtest"
	"github.com/openclaw-go/openclaw/gateway/config"
)

func spec(t *testing.T, src string) channels.AccountSpec {
	t.Helper()
	snap, err := config.Parse("openclaw.json", []byte(src), config.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	specs := Network(channels.Host{Getenv: func(string) string { return "" }}).Accounts(snap.Config)
	if len(specs) != 1 {
		t.Fatalf("%d accounts", len(specs))
	}
	return specs[0]
}

func TestActionsMapping(t *testing.T) {
	tests := []struct {
		name, actions string
		off           []string
	}{
		{"defaults: roles and moderation are off", `{}`, []string{"ban", "kick", "role-add", "role-remove", "timeout"}},
		{"roles and moderation on", `{roles: true, moderation: true}`, nil},
		{"no messages", `{messages: false, roles: true, moderation: true}`, []string{"delete", "edit", "read", "send"}},
		{"no reactions, pins nor polls", `{reactions: false, pins: false, polls: false, roles: true, moderation: true}`, []string{"emoji-list", "list-pins", "pin", "poll", "react", "reactions", "unpin"}},
		{"no lookups", `{memberInfo: false, channelInfo: false, search: false, threads: false, roles: true, moderation: true}`,
			[]string{"channel-info", "channel-list", "member-info", "search", "thread-create", "thread-list", "thread-reply"}},
		{"no server actions", `{roleInfo: false, channels: false, voiceStatus: false, events: false, stickers: false, emojiUploads: false, stickerUploads: false, permissions: false}`,
			[]string{"ban", "channel-list", "emoji-upload", "event-create", "event-list", "kick", "permissions", "role-add", "role-info", "role-remove", "sticker", "sticker-upload", "timeout", "voice-status"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := spec(t, `{channels: {discord: {token: "x", actions: `+tt.actions+`}}}`)
			if got := slices.Sorted(maps.Keys(s.Policy.ActionsOff)); !slices.Equal(got, tt.off) {
				t.Errorf("actions off = %v, want %v", got, tt.off)
			}
		})
	}
}

// suppressEmbeds is on unless the config turns it off, and it rides on
// the message flags beside a silent send's.
func TestSuppressEmbeds(t *testing.T) {
	const suppress, silent = 1 << 2, 1 << 12
	tests := []struct {
		name, cfg string
		silent    bool
		flags     int
	}{
		{"default", `{token: "x"}`, false, suppress},
		{"default and silent", `{token: "x"}`, true, suppress | silent},
		{"off", `{token: "x", suppressEmbeds: false}`, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := spec(t, `{channels: {discord: `+tt.cfg+`}}`)
			ad, err := s.New()
			if err != nil {
				t.Fatal(err)
			}
			fake := discordtest.New(t, testToken)
			a := newAdapter(t, fake, func(o *Options) { o.SuppressEmbeds = ad.(*Adapter).opts.SuppressEmbeds })
			if _, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "c1"}, Text: "https://go.dev", Silent: tt.silent}); err != nil {
				t.Fatal(err)
			}
			if ms := fake.WaitSent(1, 5*time.Second); ms[0].Flags != tt.flags {
				t.Errorf("flags = %b, want %b", ms[0].Flags, tt.flags)
			}
		})
	}
}

// botLoopProtection layers the account's block over the channel's over
// channels.defaults', key by key.
func TestBotLoopProtectionLayers(t *testing.T) {
	snap, err := config.Parse("openclaw.json", []byte(`{channels: {
		defaults: {botLoopProtection: {maxEventsPerWindow: 20, windowSeconds: 30}},
		discord: {token: "x", botLoopProtection: {maxEventsPerWindow: 8},
			accounts: {secondary: {token: "y", botLoopProtection: {maxEventsPerWindow: 5, cooldownSeconds: 90}}}}}}`),
		config.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]channels.BotLoop{}
	for _, s := range Network(channels.Host{Getenv: func(string) string { return "" }}).Accounts(snap.Config) {
		got[s.AccountID] = s.Policy.BotLoop
	}
	want := map[string]channels.BotLoop{
		"default":   {Max: 8, Window: 30 * time.Second, Cooldown: time.Minute},
		"secondary": {Max: 5, Window: 30 * time.Second, Cooldown: 90 * time.Second},
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %+v, want %+v", id, got[id], w)
		}
	}
}

// TestIgnoreOtherMentionsLayers: a server's ignoreOtherMentions covers
// its channels; a channel's own value wins; it is off by default.
func TestIgnoreOtherMentionsLayers(t *testing.T) {
	snap, err := config.Parse("openclaw.json", []byte(`{channels: {discord: {token: "x", guilds: {
		g1: {ignoreOtherMentions: true, channels: {c1: {}, c2: {ignoreOtherMentions: false}}},
		g2: {channels: {c3: {ignoreOtherMentions: true}}}}}}}`),
		config.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	p := policy(snap.Config, snap.Config.Channels.Discord.DiscordAccount)
	for id, want := range map[string]bool{"g1": true, "c1": true, "c2": false, "g2": false, "c3": true} {
		if got := p.Groups[id].IgnoreOtherMentions; got != want {
			t.Errorf("%s: ignoreOtherMentions %v, want %v", id, got, want)
		}
	}
}

// status and activity reach Discord in IDENTIFY's presence.
func TestPresenceInIdentify(t *testing.T) {
	tests := []struct {
		name, cfg, want string
	}{
		{"none", `{token: "` + testToken + `"}`, ``},
		{"status only", `{token: "` + testToken + `", status: "idle"}`, `{"activities":[],"afk":false,"since":null,"status":"idle"}`},
		{"custom status", `{token: "` + testToken + `", activity: "Focus time"}`,
			`{"activities":[{"name":"Custom Status","state":"Focus time","type":4}],"afk":false,"since":null,"status":"online"}`},
		{"streaming", `{token: "` + testToken + `", status: "dnd", activity: "Live coding", activityType: 1, activityUrl: "https://twitch.tv/openclaw"}`,
			`{"activities":[{"name":"Live coding","type":1,"url":"https://twitch.tv/openclaw"}],"afk":false,"since":null,"status":"dnd"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := spec(t, `{channels: {discord: `+tt.cfg+`}}`)
			ad, err := s.New()
			if err != nil {
				t.Fatal(err)
			}
			fake := discordtest.New(t, testToken)
			a := newAdapter(t, fake, func(o *Options) { o.Presence = ad.(*Adapter).opts.Presence })
			start(t, a, &recSink{})
			fake.WaitLive(1, 0, 5*time.Second)
			if got := string(fake.IdentifyPresence()); got != tt.want {
				t.Errorf("presence %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestPresenceConfigErrors(t *testing.T) {
	for _, src := range []string{
		`{channels: {discord: {token: "x", activity: "a", activityType: 6}}}`,
		`{channels: {discord: {token: "x", activity: "a", activityUrl: "https://twitch.tv/x"}}}`,
		`{channels: {discord: {token: "x", activity: "a", activityType: 1}}}`,
	} {
		if _, err := config.Parse("openclaw.json", []byte(src), config.LoadOptions{Getenv: func(string) string { return "" }}); err == nil {
			t.Errorf("%s loaded", src)
		}
	}
}
