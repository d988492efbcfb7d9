package channels

import (
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
)

func TestResolveAgent(t *testing.T) {
	b := func(agent string, m config.BindingMatch) config.Binding {
		return config.Binding{AgentID: agent, Match: m}
	}
	peer := func(kind, id string) config.BindingPeer { return config.BindingPeer{Kind: kind, ID: id} }
	bindings := []config.Binding{
		b("channel", config.BindingMatch{Channel: "telegram", AccountID: "*"}),
		b("account", config.BindingMatch{Channel: "telegram", AccountID: "work"}),
		b("wild", config.BindingMatch{Channel: "telegram", AccountID: "*", Peer: peer("group", "*")}),
		b("parent", config.BindingMatch{Channel: "telegram", AccountID: "*", Peer: peer("group", "-100")}),
		b("topic", config.BindingMatch{Channel: "telegram", AccountID: "*", Peer: peer("group", "-100:topic:7")}),
		b("alice", config.BindingMatch{Channel: "telegram", Peer: peer("dm", "42")}),
		b("other", config.BindingMatch{Channel: "discord", AccountID: "*"}),
	}
	tests := []struct {
		name string
		in   RouteInput
		want string
	}{
		{"exact dm peer (old kind dm) on the default account", RouteInput{Channel: "telegram", AccountID: "default", DefaultAccountID: "default", ChatKind: Direct, ChatID: "42"}, "alice"},
		{"omitted accountId means the default account only", RouteInput{Channel: "telegram", AccountID: "work", DefaultAccountID: "default", ChatKind: Direct, ChatID: "42"}, "account"},
		{"topic beats parent", RouteInput{Channel: "telegram", AccountID: "default", DefaultAccountID: "default", ChatKind: Group, ChatID: "-100", ThreadID: "7"}, "topic"},
		{"parent peer for another topic", RouteInput{Channel: "telegram", AccountID: "default", DefaultAccountID: "default", ChatKind: Group, ChatID: "-100", ThreadID: "8"}, "parent"},
		{"peer wildcard", RouteInput{Channel: "telegram", AccountID: "default", DefaultAccountID: "default", ChatKind: Group, ChatID: "-200"}, "wild"},
		{"account beats channel", RouteInput{Channel: "telegram", AccountID: "work", DefaultAccountID: "default", ChatKind: Direct, ChatID: "9"}, "account"},
		{"channel catch-all", RouteInput{Channel: "telegram", AccountID: "default", DefaultAccountID: "default", ChatKind: Direct, ChatID: "9"}, "channel"},
		{"no match", RouteInput{Channel: "slack", AccountID: "default", DefaultAccountID: "default", ChatKind: Direct, ChatID: "9"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ResolveAgent(bindings, tt.in)
			if got.AgentID != tt.want || ok != (tt.want != "") {
				t.Errorf("got %q (%v), want %q", got.AgentID, ok, tt.want)
			}
		})
	}
}

func TestSessionKey(t *testing.T) {
	cfg := &config.Config{}
	cfg.Session.DMScope = "per-channel-peer"
	in := Inbound{Channel: "telegram", AccountID: "default", Chat: Chat{ID: "42", Kind: Direct}, Sender: Sender{ID: "42"}}
	if got := SessionKey(cfg, "main", config.Binding{}, in, true); got != "agent:main:telegram:direct:42" {
		t.Errorf("dm key %q", got)
	}
	if got := SessionKey(cfg, "main", config.Binding{Session: config.BindingSession{DMScope: "main"}}, in, true); got != "agent:main:main" {
		t.Errorf("binding override %q", got)
	}
	g := Inbound{Channel: "telegram", AccountID: "default", Chat: Chat{ID: "-100", Kind: Group, ThreadID: "7"}, Sender: Sender{ID: "42"}}
	if got := SessionKey(cfg, "ops", config.Binding{}, g, true); got != "agent:ops:telegram:group:-100:topic:7" {
		t.Errorf("topic key %q", got)
	}
	g.Channel = "slack"
	if got := SessionKey(cfg, "ops", config.Binding{}, g, false); got != "agent:ops:slack:group:-100:thread:7" {
		t.Errorf("thread key %q", got)
	}
}

// targetManager knows the networks' names as the gateway registers them.
var targetManager = &Manager{opts: Options{Networks: []Network{
	{Name: "telegram", Aliases: []string{"tg"}}, {Name: "discord"}, {Name: "slack"}, {Name: "whatsapp"},
}}}

func TestParseTarget(t *testing.T) {
	tests := []struct {
		in, channel, chat, thread string
		bad                       bool
	}{
		{in: "123", chat: "123"},
		{in: "telegram:123", channel: "telegram", chat: "123"},
		{in: "tg:-100:topic:7", channel: "telegram", chat: "-100", thread: "7"},
		{in: "telegram:user:42", channel: "telegram", chat: "42"},
		{in: "channel:C1:thread:9", chat: "C1", thread: "9"},
		{in: "TG:5", channel: "telegram", chat: "5"},
		{in: "slack:channel:C1", channel: "slack", chat: "C1"},
		{in: "signal:+15550001", channel: "signal", chat: "+15550001"},
		{in: "irc:#go", chat: "irc:#go"},
		{in: "  ", bad: true},
		{in: "tg::topic:7", bad: true},
	}
	for _, tt := range tests {
		ch, tgt, err := targetManager.ParseTarget(tt.in)
		if (err != nil) != tt.bad {
			t.Errorf("%q: err %v", tt.in, err)
			continue
		}
		if !tt.bad && (ch != tt.channel || tgt.ChatID != tt.chat || tgt.ThreadID != tt.thread) {
			t.Errorf("%q: got %q %+v", tt.in, ch, tgt)
		}
	}
}

// TestParseTargetNewNetwork: a network the core never heard of is named
// in targets by its registration alone.
func TestParseTargetNewNetwork(t *testing.T) {
	m := &Manager{opts: Options{Networks: []Network{{Name: "matrix", Aliases: []string{"mx"}}}}}
	for _, in := range []string{"matrix:room:42", "MX:42"} {
		if ch, tgt, err := m.ParseTarget(in); err != nil || ch != "matrix" || tgt.ChatID != "42" {
			t.Errorf("%q: %q %+v %v", in, ch, tgt, err)
		}
	}
	if ch, tgt, _ := m.ParseTarget("tg:42"); ch != "" || tgt.ChatID != "tg:42" {
		t.Errorf("tg without a Telegram network: %q %+v", ch, tgt)
	}
}

// FuzzParseTarget: targets come from models and operators; parsing never
// panics and a parsed target always names a chat.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"123", "tg:-100:topic:7", "telegram:user:42", "channel:C1:thread:9", "::", "tg:", ":topic:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, tgt, err := targetManager.ParseTarget(s)
		if err == nil && tgt.ChatID == "" {
			t.Fatalf("%q parsed to an empty chat", s)
		}
	})
}
