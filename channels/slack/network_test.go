package slack

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/openclaw-go/openclaw/channels"
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
		{"defaults", `{}`, nil},
		{"read only", `{messages: false, reactions: false}`, []string{"delete", "edit", "react", "reactions", "read", "send", "thread-list", "thread-reply"}},
		{"no emoji list", `{emojiList: false}`, []string{"emoji-list"}},
		{"no pins nor lookups", `{pins: false, memberInfo: false, channelInfo: false, search: false}`,
			[]string{"channel-info", "channel-list", "list-pins", "member-info", "pin", "search", "unpin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := spec(t, `{channels: {slack: {botToken: "xoxb-1", appToken: "xapp-1", actions: `+tt.actions+`}}}`)
			if got := slices.Sorted(maps.Keys(s.Policy.ActionsOff)); !slices.Equal(got, tt.off) {
				t.Errorf("actions off = %v, want %v", got, tt.off)
			}
		})
	}
}

// unfurl_links is sent false unless unfurlLinks is set; unfurl_media is
// sent only to turn it off (Slack's own default is on).
func TestUnfurl(t *testing.T) {
	tests := []struct {
		name, cfg    string
		links, media string
	}{
		{"defaults", ``, "false", ""},
		{"links on", `unfurlLinks: true`, "true", ""},
		{"media off", `unfurlMedia: false`, "false", "false"},
		{"media on", `unfurlMedia: true`, "false", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := spec(t, `{channels: {slack: {botToken: "xoxb-1", appToken: "xapp-1", `+tt.cfg+`}}}`)
			ad, err := s.New()
			if err != nil {
				t.Fatal(err)
			}
			o := ad.(*Adapter).opts
			fake := newFake(t)
			a := newAdapter(t, fake, func(n *Options) { n.UnfurlLinks, n.NoMediaUnfurl = o.UnfurlLinks, o.NoMediaUnfurl })
			if _, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "C1"}, Text: "https://go.dev"}); err != nil {
				t.Fatal(err)
			}
			calls := fake.Calls("chat.postMessage")
			if len(calls) != 1 {
				t.Fatalf("%d posts", len(calls))
			}
			if got := calls[0].Params.Get("unfurl_links"); got != tt.links {
				t.Errorf("unfurl_links = %q, want %q", got, tt.links)
			}
			if got := calls[0].Params.Get("unfurl_media"); got != tt.media {
				t.Errorf("unfurl_media = %q, want %q", got, tt.media)
			}
		})
	}
}

// TestImplicitMentionsConfig: implicitMentions.replyToBot defaults to on
// and an account's value overrides the channel's.
func TestImplicitMentionsConfig(t *testing.T) {
	for _, tc := range []struct {
		cfg  string
		want bool // NoReplyToBotMention
	}{
		{`{channels: {slack: {botToken: "xoxb-1", appToken: "xapp-1"}}}`, false},
		{`{channels: {slack: {botToken: "xoxb-1", appToken: "xapp-1", implicitMentions: {replyToBot: false}}}}`, true},
		{`{channels: {slack: {botToken: "xoxb-1", appToken: "xapp-1", implicitMentions: {replyToBot: true}}}}`, false},
	} {
		s := spec(t, tc.cfg)
		ad, err := s.New()
		if err != nil {
			t.Fatal(err)
		}
		if got := ad.(*Adapter).opts.NoReplyToBotMention; got != tc.want {
			t.Errorf("%s: NoReplyToBotMention %v, want %v", tc.cfg, got, tc.want)
		}
	}
	snap, err := config.Parse("openclaw.json", []byte(`{channels: {slack: {implicitMentions: {replyToBot: false},
		accounts: {on: {implicitMentions: {replyToBot: true}}, plain: {}}}}}`), config.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	on, _ := snap.Config.Channels.Slack.Account("on")
	plain, _ := snap.Config.Channels.Slack.Account("plain")
	if !channels.BoolOr(on.ImplicitMentions.ReplyToBot, true) || channels.BoolOr(plain.ImplicitMentions.ReplyToBot, true) {
		t.Errorf("account on %v, plain %v", on.ImplicitMentions.ReplyToBot, plain.ImplicitMentions.ReplyToBot)
	}
}

// TestIgnoreOtherMentionsConfig: channels.<id>.ignoreOtherMentions reaches
// that channel's gate entry, off by default; with the bot's id unknown a
// mention of someone else is not taken as addressed elsewhere.
func TestIgnoreOtherMentionsConfig(t *testing.T) {
	snap, err := config.Parse("openclaw.json", []byte(`{channels: {slack: {channels: {C1: {ignoreOtherMentions: true}, C2: {}}}}}`),
		config.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	p := policy(snap.Config, snap.Config.Channels.Slack.SlackAccount)
	if !p.Groups["C1"].IgnoreOtherMentions || p.Groups["C2"].IgnoreOtherMentions {
		t.Errorf("groups %+v", p.Groups)
	}
	if mentionsOtherUser("<@U3CAT> hi", "", "U2BOB") || !mentionsOtherUser("<@U3CAT> hi", "U0BOT", "U2BOB") ||
		mentionsOtherUser("<@U0BOT> <@U2BOB> hi", "U0BOT", "U2BOB") {
		t.Error("mentionsOtherUser")
	}
}
