package sessions

import (
	"strings"
	"testing"
)

func TestMainKey(t *testing.T) {
	for _, tc := range []struct{ agent, main, want string }{
		{"", "", "agent:main:main"},
		{"main", "main", "agent:main:main"},
		{"Work", "Home", "agent:work:home"},
		{"ops team", "", "agent:ops-team:main"},
		{"main", "direct", "agent:main:main"}, // a marker cannot be a main key
		{"main", "a:b", "agent:main:a-b"},
	} {
		if got := MainKey(tc.agent, tc.main); got != tc.want {
			t.Errorf("MainKey(%q, %q) = %q, want %q", tc.agent, tc.main, got, tc.want)
		}
	}
}

var testLinks = map[string][]string{"alice": {"telegram:111", "discord:222"}, "bob": {"333"}}

// peerKeyCases are PeerKey's table; FuzzPeerKey starts from them.
var peerKeyCases = []struct {
	name string
	p    PeerParams
	want string
}{
	{"dm main scope", PeerParams{Channel: "telegram", PeerID: "111"}, "agent:main:main"},
	{"dm main scope custom main key", PeerParams{AgentID: "work", MainKey: "desk", DMScope: DMScopeMain, PeerID: "1"}, "agent:work:desk"},
	{"per-peer", PeerParams{DMScope: DMScopePerPeer, Channel: "telegram", PeerID: "ABC"}, "agent:main:direct:abc"},
	{"per-channel-peer", PeerParams{DMScope: DMScopePerChannelPeer, Channel: "Telegram", PeerID: "123"}, "agent:main:telegram:direct:123"},
	{"per-account-channel-peer", PeerParams{DMScope: DMScopePerAccountChannelPeer, Channel: "telegram", AccountID: "Work", PeerID: "123"},
		"agent:main:telegram:work:direct:123"},
	{"per-account default account", PeerParams{DMScope: DMScopePerAccountChannelPeer, Channel: "telegram", PeerID: "123"},
		"agent:main:telegram:default:direct:123"},
	{"old dm peer kind", PeerParams{DMScope: DMScopePerPeer, PeerKind: "dm", PeerID: "x"}, "agent:main:direct:x"},
	{"empty peer falls back to main", PeerParams{DMScope: DMScopePerPeer, Channel: "telegram"}, "agent:main:main"},
	{"identity link scoped", PeerParams{DMScope: DMScopePerPeer, Channel: "telegram", PeerID: "111", IdentityLinks: testLinks}, "agent:main:direct:alice"},
	{"identity link other channel", PeerParams{DMScope: DMScopePerChannelPeer, Channel: "discord", PeerID: "222", IdentityLinks: testLinks},
		"agent:main:discord:direct:alice"},
	{"identity link bare id", PeerParams{DMScope: DMScopePerPeer, Channel: "signal", PeerID: "333", IdentityLinks: testLinks}, "agent:main:direct:bob"},
	{"identity link wrong channel", PeerParams{DMScope: DMScopePerPeer, Channel: "discord", PeerID: "111", IdentityLinks: testLinks}, "agent:main:direct:111"},
	// A stranger may not reach a linked person's session by choosing an
	// id: spelled as another network's linked id, or as the canonical name.
	{"stranger spelling a linked id", PeerParams{DMScope: DMScopePerPeer, Channel: "irc", PeerID: "telegram:111", IdentityLinks: testLinks}, "agent:main:direct:telegram:111"},
	{"stranger named like the canonical name", PeerParams{DMScope: DMScopePerPeer, Channel: "irc", PeerID: "alice", IdentityLinks: testLinks}, "agent:main:direct:irc:alice"},
	{"stranger named like the canonical name, per channel", PeerParams{DMScope: DMScopePerChannelPeer, Channel: "telegram", PeerID: "Alice", IdentityLinks: testLinks}, "agent:main:telegram:direct:telegram:alice"},
	{"bare matrix id links", PeerParams{DMScope: DMScopePerPeer, Channel: "matrix", PeerID: "@carol:example.org", IdentityLinks: map[string][]string{"carol": {"@carol:example.org"}}}, "agent:main:direct:carol"},
	{"identity link ignored in main scope", PeerParams{Channel: "telegram", PeerID: "111", IdentityLinks: testLinks}, "agent:main:main"},
	{"group", PeerParams{Channel: "telegram", PeerKind: "group", PeerID: "-100123"}, "agent:main:telegram:group:-100123"},
	{"group main scope", PeerParams{Channel: "telegram", PeerKind: "group", PeerID: "-100123", GroupScope: GroupScopeMain}, "agent:main:main"},
	{"group topic", PeerParams{Channel: "telegram", PeerKind: "group", PeerID: "-100123", TopicID: "42"}, "agent:main:telegram:group:-100123:topic:42"},
	{"room", PeerParams{AgentID: "Ops", Channel: "slack", PeerKind: "channel", PeerID: "C0ABC"}, "agent:ops:slack:channel:c0abc"},
	{"room thread", PeerParams{Channel: "discord", PeerKind: "channel", PeerID: "123456", ThreadID: "987654"},
		"agent:main:discord:channel:123456:thread:987654"},
	{"dm thread on main", PeerParams{Channel: "slack", PeerID: "u1", ThreadID: "17.5"}, "agent:main:main:thread:17.5"},
	{"matrix room keeps colons", PeerParams{Channel: "matrix", PeerKind: "channel", PeerID: "!Room:Example.org"},
		"agent:main:matrix:channel:!room:example.org"},
	{"spaces and empty parts", PeerParams{Channel: "my chan", PeerKind: "group", PeerID: " a::b "}, "agent:main:my-chan:group:a:b"},
	{"group without id", PeerParams{Channel: "telegram", PeerKind: "group"}, "agent:main:telegram:group:unknown"},
}

func TestPeerKey(t *testing.T) {
	for _, tc := range peerKeyCases {
		t.Run(tc.name, func(t *testing.T) {
			got := PeerKey(tc.p)
			if got != tc.want {
				t.Fatalf("PeerKey = %q, want %q", got, tc.want)
			}
			if _, err := Parse(got); err != nil {
				t.Fatalf("built key does not parse: %v", err)
			}
		})
	}
}

func TestSubagentKey(t *testing.T) {
	k1 := SubagentKey("agent:work:main")
	p1, err := Parse(k1)
	if err != nil || p1.Kind != KindSubagent || p1.AgentID != "work" || p1.Depth != 1 || p1.Parent != "" {
		t.Fatalf("SubagentKey(main) = %q: %+v, %v", k1, p1, err)
	}
	k2 := SubagentKey(k1)
	p2, err := Parse(k2)
	if err != nil || p2.Depth != 2 || p2.Parent != k1 || !strings.HasPrefix(k2, k1+":subagent:") {
		t.Fatalf("SubagentKey(%q) = %q: %+v, %v", k1, k2, p2, err)
	}
	if k := SubagentKey("cron:job"); !strings.HasPrefix(k, "agent:main:subagent:") {
		t.Errorf("SubagentKey(cron) = %q, want the main agent", k)
	}
	if SubagentKey("agent:main:main") == SubagentKey("agent:main:main") {
		t.Error("SubagentKey repeats itself")
	}
	if k := SubagentKeyFor("coder", k1); !strings.HasPrefix(k, "agent:coder:subagent:") || strings.Count(k, ":subagent:") != 1 {
		t.Errorf("SubagentKeyFor(other agent) = %q, want a new chain", k)
	}
	if k := SubagentKeyFor("work", k1); !strings.HasPrefix(k, k1+":subagent:") {
		t.Errorf("SubagentKeyFor(same agent) = %q, want nested under %q", k, k1)
	}
	if k := CronKey("Nightly Job"); k != "cron:nightly-job" {
		t.Errorf("CronKey = %q", k)
	}
	if k, err := Parse(HookKey()); err != nil || k.Kind != KindHook {
		t.Errorf("HookKey parses as %+v, %v", k, err)
	}
}

func TestNormalizeAgentID(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "main"},
		{"Main", "main"},
		{"my agent!", "my-agent"},
		{"--x", "x"},
		{"ünï", "n"},
		{strings.Repeat("a", 70), strings.Repeat("a", 64)},
		{"!!!", "main"},
	} {
		got := NormalizeAgentID(tc.in)
		if got != tc.want {
			t.Errorf("NormalizeAgentID(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if !ValidAgentID(got) {
			t.Errorf("NormalizeAgentID(%q) = %q is not valid", tc.in, got)
		}
	}
}
