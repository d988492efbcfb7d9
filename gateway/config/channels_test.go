package config

import (
	"strings"
	"testing"
)

func TestTelegramChannelConfig(t *testing.T) {
	src := `{
  channels: {
    telegram: {
      botToken: "111:aaa",
      allowFrom: [123, "tg:456"],
      dmPolicy: "allowlist",
      textChunkLimit: 3000,
      groups: { "-100": { requireMention: false } },
      accounts: {
        work: { tokenFile: "/run/secrets/tg", dmPolicy: "open", allowFrom: ["*"] },
      },
    },
  },
  bindings: [{ agentId: "main", match: { channel: "telegram", peer: { kind: "dm", id: "123" } } }],
}`
	snap, err := Parse("openclaw.json", []byte(src), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tg := snap.Config.Channels.Telegram
	if !tg.Configured() {
		t.Fatal("block present but not configured")
	}
	if got := strings.Join(tg.AccountIDs(), ","); got != "default,work" {
		t.Errorf("accounts %q", got)
	}
	def, _ := tg.Account("default")
	if strings.Join(def.AllowFrom, ",") != "123,tg:456" || def.TextChunkLimit != 3000 || def.DMPolicy != "allowlist" {
		t.Errorf("default account %+v", def)
	}
	if tok, err := def.Token(true); err != nil || tok != "111:aaa" {
		t.Errorf("token %q %v", tok, err)
	}
	work, ok := tg.Account("work")
	if !ok || work.DMPolicy != "open" || work.BotToken.IsSet() || work.TokenFile != "/run/secrets/tg" || work.TextChunkLimit != 3000 {
		t.Errorf("work account %+v: must override, inherit limits and never inherit the default bot's token", work)
	}
	if _, ok := tg.Account("nope"); ok {
		t.Error("unknown account resolved")
	}
	if len(snap.Config.Bindings) != 1 || snap.Config.Bindings[0].Match.Peer.ID != "123" {
		t.Errorf("bindings %+v", snap.Config.Bindings)
	}

	empty, err := Parse("openclaw.json", []byte(`{}`), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if empty.Config.Channels.Telegram.Configured() {
		t.Error("no block but configured")
	}
	if _, err := Parse("openclaw.json", []byte(`{channels: {telegram: {allowFrom: [1.5, true]}}}`), LoadOptions{}); err == nil ||
		!strings.Contains(err.Error(), "channels.telegram.allowFrom[0]: expected a whole-number id") || !strings.Contains(err.Error(), "allowFrom[1]") {
		t.Errorf("bad ids: %v", err)
	}
}

func TestChannelValidation(t *testing.T) {
	tests := []struct {
		name, src, err, warn string
	}{
		{"open without a star", `{channels: {telegram: {dmPolicy: "open", allowFrom: [1]}}}`, "", `channels.telegram.allowFrom: dmPolicy "open" without "*" in allowFrom drops every direct message`},
		{"open with a star", `{channels: {telegram: {dmPolicy: "open", allowFrom: ["*"]}}}`, "", ""},
		{"empty allowlist", `{channels: {telegram: {dmPolicy: "allowlist"}}}`, "", `refuses every direct message`},
		{"usernames never match", `{channels: {telegram: {allowFrom: ["@ann", "tg:123"]}}}`, "", `"@ann" is not a numeric Telegram user id`},
		{"bad mention pattern", `{channels: {telegram: {mentionPatterns: ["("]}}}`, `channels.telegram.mentionPatterns[0]: not a valid regular expression`, ""},
		{"bad agent pattern", `{agents: {entries: {main: {groupChat: {mentionPatterns: ["[a"]}}}}}`, `agents.entries.main.groupChat.mentionPatterns[0]: not a valid regular expression`, ""},
		{"webhook without a secret", `{channels: {telegram: {webhookUrl: "https://x.example/tg"}}}`, `webhook mode needs webhookSecret`, ""},
		{"account checked too", `{channels: {telegram: {accounts: {b: {dmPolicy: "open"}}}}}`, "", `channels.telegram.accounts.b`},
		{"binding to an unknown agent", `{agents: {entries: {main: {}}}, bindings: [{agentId: "ghost", match: {channel: "telegram"}}]}`, `agent "ghost" is not configured`, ""},
		{"binding without a channel", `{bindings: [{agentId: "main", match: {}}]}`, `a binding needs match.channel`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap, err := Parse("openclaw.json", []byte(tt.src), LoadOptions{})
			if tt.err == "" && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
			if tt.warn != "" {
				var all []string
				for _, w := range snap.Warnings {
					all = append(all, w.String())
				}
				if !strings.Contains(strings.Join(all, "\n"), tt.warn) {
					t.Errorf("warnings %q, want %q", all, tt.warn)
				}
			}
		})
	}
}

// TestChannelHistoryLimit: historyLimit is read on each network's root
// and accounts; an account's own value (0 included) wins, an account
// without one inherits the root's, and a negative limit is refused.
func TestChannelHistoryLimit(t *testing.T) {
	src := `{
  channels: {
    telegram: { historyLimit: 5, accounts: { off: { historyLimit: 0 }, plain: {} } },
    discord: { historyLimit: 7, accounts: { big: { historyLimit: 100 } } },
    slack: { historyLimit: 0 },
    whatsapp: { accounts: { one: { historyLimit: 3 } } },
  },
}`
	snap, err := Parse("openclaw.json", []byte(src), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ch := snap.Config.Channels
	tgOff, _ := ch.Telegram.Account("off")
	tgPlain, _ := ch.Telegram.Account("plain")
	tgDef, _ := ch.Telegram.Account("default")
	dcBig, _ := ch.Discord.Account("big")
	dcDef, _ := ch.Discord.Account("default")
	slDef, _ := ch.Slack.Account("default")
	waOne, _ := ch.Whatsapp.Account("one")
	waDef, _ := ch.Whatsapp.Account("default")
	for _, tc := range []struct {
		name string
		got  OptInt
		want OptInt
	}{
		{"telegram default", tgDef.HistoryLimit, OptInt{V: 5, Set: true}},
		{"telegram account 0", tgOff.HistoryLimit, OptInt{V: 0, Set: true}},
		{"telegram account inherits", tgPlain.HistoryLimit, OptInt{V: 5, Set: true}},
		{"discord default", dcDef.HistoryLimit, OptInt{V: 7, Set: true}},
		{"discord account", dcBig.HistoryLimit, OptInt{V: 100, Set: true}},
		{"slack 0", slDef.HistoryLimit, OptInt{V: 0, Set: true}},
		{"whatsapp account", waOne.HistoryLimit, OptInt{V: 3, Set: true}},
		{"whatsapp unset", waDef.HistoryLimit, OptInt{}},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: historyLimit %+v, want %+v", tc.name, tc.got, tc.want)
		}
	}
	if _, err := Parse("openclaw.json", []byte(`{channels: {discord: {historyLimit: -1}}}`), LoadOptions{}); err == nil ||
		!strings.Contains(err.Error(), "channels.discord.historyLimit") {
		t.Errorf("negative historyLimit: %v", err)
	}
}
