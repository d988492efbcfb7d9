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
	if strings.Join(def.AllowFrom, ",") != "123,tg:456" || def.TextChunkLimit != 3000 || def.DmPolicy != "allowlist" {
		t.Errorf("default account %+v", def)
	}
	if tok, err := def.Token(true); err != nil || tok != "111:aaa" {
		t.Errorf("token %q %v", tok, err)
	}
	work, ok := tg.Account("work")
	if !ok || work.DmPolicy != "open" || work.BotToken.IsSet() || work.TokenFile != "/run/secrets/tg" || work.TextChunkLimit != 3000 {
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
