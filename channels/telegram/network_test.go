package telegram

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// parseConfig loads src as an openclaw.json.
func parseConfig(t *testing.T, src string) *config.Config {
	t.Helper()
	snap, err := config.Parse("openclaw.json", []byte(src), config.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return snap.Config
}

// spec is the one account of cfg's Telegram block.
func spec(t *testing.T, cfg *config.Config) channels.AccountSpec {
	t.Helper()
	specs := Network(channels.Host{}).Accounts(cfg)
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
		{"defaults: sticker is off", `{}`, []string{"sticker"}},
		{"sticker on", `{sticker: true}`, nil},
		{"no deletes", `{sticker: true, deleteMessage: false}`, []string{"delete"}},
		// sendMessage false takes polls with it, as OpenClaw documents.
		{"no sends", `{sticker: true, sendMessage: false, poll: true}`, []string{"poll", "send", "thread-reply"}},
		{"no reactions nor polls", `{sticker: true, reactions: false, poll: false}`, []string{"poll", "react", "reactions"}},
		{"no edits nor topics", `{sticker: true, editMessage: false, createForumTopic: false}`, []string{"edit", "thread-create"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := parseConfig(t, `{channels: {telegram: {botToken: "1:x", actions: `+tt.actions+`}}}`)
			got := slices.Sorted(maps.Keys(spec(t, cfg).Policy.ActionsOff))
			if !slices.Equal(got, tt.off) {
				t.Errorf("actions off = %v, want %v", got, tt.off)
			}
		})
	}
}

func TestCustomCommandsAndLinkPreview(t *testing.T) {
	cfg := parseConfig(t, `{channels: {telegram: {botToken: "1:x", linkPreview: false, customCommands: [
		{command: "Backup", description: "Git backup"},
		{command: "/generate", description: "Create an image"},
		{command: "bad-name", description: "refused by Telegram"},
		{command: "new", description: "taken by the built-in"},
		{command: "empty", description: " "},
	]}}}`)
	s := spec(t, cfg)
	ad, err := s.New()
	if err != nil {
		t.Fatal(err)
	}
	fake := telegramtest.New(t, testToken)
	a := newAdapter(t, fake, func(o *Options) {
		o.NoLinkPreview, o.Commands = ad.(*Adapter).opts.NoLinkPreview, ad.(*Adapter).opts.Commands
	})
	if err := a.SetCommands(context.Background(), channels.NativeCommands); err != nil {
		t.Fatal(err)
	}
	calls := fake.Calls("setMyCommands")
	want := `[{"command":"new","description":"Start a new session"},{"command":"reset","description":"Reset this session"},` +
		`{"command":"backup","description":"Git backup"},{"command":"generate","description":"Create an image"}]`
	if len(calls) != 1 || calls[0].Params.Get("commands") != want {
		t.Fatalf("setMyCommands = %+v\nwant %s", calls, want)
	}

	sent, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "42"}, Text: "see https://go.dev"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Edit(context.Background(), channels.Target{ChatID: "42"}, sent.MessageID, "see https://go.dev/doc"); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"sendMessage", "editMessageText"} {
		c := fake.Calls(m)
		if len(c) == 0 || c[0].Params.Get("link_preview_options") != `{"is_disabled":true}` {
			t.Errorf("%s sent without link previews off: %+v", m, c)
		}
	}

	// By default previews stay as Telegram shows them.
	plain := newAdapter(t, fake, nil)
	if _, err := plain.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "42"}, Text: "x"}); err != nil {
		t.Fatal(err)
	}
	if c := fake.Calls("sendMessage"); c[len(c)-1].Params.Has("link_preview_options") {
		t.Errorf("default send turned link previews off")
	}
}

// A group's tools block reaches its topics; direct entries keep their own.
func TestChatToolsMapping(t *testing.T) {
	cfg := parseConfig(t, `{channels: {telegram: {botToken: "1:x",
		groups: {"-100": {tools: {deny: ["exec"]}, topics: {"7": {systemPrompt: "t"}}}},
		direct: {"42": {systemPrompt: "hello", tools: {allow: ["read"], deny: ["write"]}}},
	}}}`)
	p := spec(t, cfg).Policy
	if g := p.Groups["-100"]; !slices.Equal(g.ToolsDeny, []string{"exec"}) || !slices.Equal(g.Topics["7"].ToolsDeny, []string{"exec"}) {
		t.Errorf("group %+v", g)
	}
	if d := p.Direct["42"]; d.SystemPrompt != "hello" || !slices.Equal(d.ToolsAllow, []string{"read"}) || !slices.Equal(d.ToolsDeny, []string{"write"}) {
		t.Errorf("direct %+v", d)
	}
}
