package discord

import (
	"context"
	"slices"
	"testing"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/discord/discordtest"
	"github.com/openclaw-go/openclaw/gateway/config"
)

func TestApplyMentionAliases(t *testing.T) {
	aliases := map[string]string{"SupportLead": "123456789012345678", "ann": "111", "ann_lee": "222",
		"everyone": "333", "bad": "not-an-id"}
	for _, tc := range []struct{ in, want string }{
		{"ask @SupportLead.", "ask <@123456789012345678>."},
		{"ask @supportlead", "ask <@123456789012345678>"},
		{"@ann and @ann_lee", "<@111> and <@222>"},
		{"@annie stays", "@annie stays"},
		{"mail ann@ann.example", "mail ann@ann.example"},
		{"`@ann` in code", "`@ann` in code"},
		{"```\n@ann\n```\n@ann", "```\n@ann\n```\n<@111>"},
		{"@everyone @bad", "@\u200beveryone @bad"},
		{"raw <@999> typed", "raw <\u200b@999> typed"},
	} {
		if got := applyMentionAliases(FormatMarkdown(tc.in), aliases); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := aliasedUsers("<@111> <@111> <@222> <@999>", aliases); !slices.Equal(got, []string{"111", "222"}) {
		t.Errorf("pinged %v", got)
	}
}

// TestSendMentionAliases: an aliased handle reaches Discord as a mention
// that may ping that user alone; a raw id the agent writes pings no one.
func TestSendMentionAliases(t *testing.T) {
	fake := discordtest.New(t, testToken)
	a := newAdapter(t, fake, func(o *Options) { o.MentionAliases = map[string]string{"SupportLead": "123456789012345678"} })
	if _, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "c1"}, Text: "cc @SupportLead and <@999>"}); err != nil {
		t.Fatal(err)
	}
	ms := fake.Sent()
	if len(ms) != 1 || ms[0].Content != "cc <@123456789012345678> and <\u200b@999>" {
		t.Fatalf("sent %+v", ms)
	}
	if string(ms[0].AllowedMentions) != `{"parse":[],"users":["123456789012345678"],"replied_user":true}` {
		t.Errorf("allowed_mentions %s", ms[0].AllowedMentions)
	}
}

// TestMentionAliasesConfig: an account's aliases are added to the
// channel's.
func TestMentionAliasesConfig(t *testing.T) {
	snap, err := config.Parse("openclaw.json", []byte(`{channels: {discord: {token: "x",
		mentionAliases: {SupportLead: "123456789012345678", Shared: "1"},
		accounts: {ops: {token: "y", mentionAliases: {OpsLead: "234567890123456789", Shared: "2"}}}}}}`),
		config.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	dc := snap.Config.Channels.Discord
	if got := mentionAliases(dc, "default"); len(got) != 2 || got["Shared"] != "1" {
		t.Errorf("default %v", got)
	}
	if got := mentionAliases(dc, "ops"); len(got) != 3 || got["Shared"] != "2" || got["SupportLead"] == "" || got["OpsLead"] == "" {
		t.Errorf("ops %v", got)
	}
}
