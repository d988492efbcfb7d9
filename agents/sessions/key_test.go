package sessions

import (
	"errors"
	"strings"
	"testing"
)

// parseCases are the key forms Parse reads; FuzzParse starts from them.
var parseCases = []struct {
	name string
	in   string
	want Key // Raw defaults to the lower-cased, trimmed input
}{
	{"main default", "agent:main:main", Key{AgentID: "main", Kind: KindMain, MainKey: "main"}},
	{"main custom", "agent:work:home", Key{AgentID: "work", Kind: KindMain, MainKey: "home"}},
	{"per-peer", "agent:main:direct:+15550001", Key{AgentID: "main", Kind: KindDirect, PeerKind: "direct", PeerID: "+15550001"}},
	{"per-channel-peer", "agent:main:telegram:direct:12345", Key{AgentID: "main", Kind: KindDirect, Channel: "telegram", PeerKind: "direct", PeerID: "12345"}},
	{"per-account-channel-peer", "agent:main:telegram:work:direct:12345",
		Key{AgentID: "main", Kind: KindDirect, Channel: "telegram", AccountID: "work", PeerKind: "direct", PeerID: "12345"}},
	{"legacy dm per-peer", "agent:main:dm:alice", Key{AgentID: "main", Kind: KindDirect, PeerKind: "direct", PeerID: "alice", Legacy: true}},
	{"legacy dm per-channel-peer", "agent:main:whatsapp:dm:+4917", Key{AgentID: "main", Kind: KindDirect, Channel: "whatsapp", PeerKind: "direct", PeerID: "+4917", Legacy: true}},
	{"matrix peer with colon", "agent:main:matrix:direct:@bob:example.org",
		Key{AgentID: "main", Kind: KindDirect, Channel: "matrix", PeerKind: "direct", PeerID: "@bob:example.org"}},
	{"group", "agent:main:telegram:group:-1001234567890", Key{AgentID: "main", Kind: KindGroup, Channel: "telegram", PeerKind: "group", PeerID: "-1001234567890"}},
	{"room", "agent:main:discord:channel:123456", Key{AgentID: "main", Kind: KindChannel, Channel: "discord", PeerKind: "channel", PeerID: "123456"}},
	{"thread", "agent:main:discord:channel:123456:thread:987654",
		Key{AgentID: "main", Kind: KindThread, Channel: "discord", PeerKind: "channel", PeerID: "123456", ThreadID: "987654", Parent: "agent:main:discord:channel:123456"}},
	{"topic", "agent:main:telegram:group:-1001234567890:topic:42",
		Key{AgentID: "main", Kind: KindTopic, Channel: "telegram", PeerKind: "group", PeerID: "-1001234567890", TopicID: "42", Parent: "agent:main:telegram:group:-1001234567890"}},
	{"thread on main", "agent:main:main:thread:1700.01", Key{AgentID: "main", Kind: KindThread, MainKey: "main", ThreadID: "1700.01", Parent: "agent:main:main"}},
	{"thread on direct", "agent:main:slack:direct:u1:thread:t9",
		Key{AgentID: "main", Kind: KindThread, Channel: "slack", PeerKind: "direct", PeerID: "u1", ThreadID: "t9", Parent: "agent:main:slack:direct:u1"}},
	{"cron", "cron:nightly-report", Key{Kind: KindCron, ID: "nightly-report"}},
	{"agent cron", "agent:ops:cron:job1", Key{AgentID: "ops", Kind: KindCron, ID: "job1"}},
	{"hook", "hook:6f1c7a0e-1f1b-4b5e-9d7e-3c1f6f0a9b2c", Key{Kind: KindHook, ID: "6f1c7a0e-1f1b-4b5e-9d7e-3c1f6f0a9b2c"}},
	{"subagent", "agent:main:subagent:aaa", Key{AgentID: "main", Kind: KindSubagent, ID: "aaa", Depth: 1}},
	{"nested subagent", "agent:main:subagent:aaa:subagent:bbb",
		Key{AgentID: "main", Kind: KindSubagent, ID: "bbb", Depth: 2, Parent: "agent:main:subagent:aaa"}},
	{"global", "global", Key{Kind: KindGlobal}},
	{"unknown", "unknown", Key{Kind: KindUnknown}},
	{"model-run probe", "agent:main:explicit:model-run-1", Key{AgentID: "main", Kind: KindOther, ID: "explicit:model-run-1"}},
	{"legacy unprefixed", "telegram:group:5", Key{Kind: KindOther, ID: "telegram:group:5"}},
	{"upper case", "  Agent:Work:Telegram:Direct:ABC  ", Key{Raw: "agent:work:telegram:direct:abc", AgentID: "work", Kind: KindDirect, Channel: "telegram", PeerKind: "direct", PeerID: "abc"}},
	{"agent id with dash and underscore", "agent:_a-b:main", Key{AgentID: "_a-b", Kind: KindMain, MainKey: "main"}},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			want := tc.want
			if want.Raw == "" {
				want.Raw = strings.ToLower(strings.TrimSpace(tc.in))
			}
			if got != want {
				t.Errorf("Parse(%q)\n got %+v\nwant %+v", tc.in, got, want)
			}
			if s := got.String(); s != got.Raw {
				t.Errorf("String() = %q, want %q", s, got.Raw)
			}
		})
	}
}

var badKeys = []struct{ name, in, why string }{
	{"empty", "", "empty"},
	{"blank", "   ", "empty"},
	{"agent only", "agent:main", "want agent:<agentId>:<rest>"},
	{"empty agent", "agent::main", "empty part"},
	{"trailing colon", "agent:main:main:", "empty part"},
	{"bad agent id", "agent:a.b:main", "bad agent id"},
	{"agent id starts with dash", "agent:-a:main", "bad agent id"},
	{"agent id too long", "agent:" + strings.Repeat("a", 65) + ":main", "bad agent id"},
	{"inner space", "agent:main:telegram:direct:a b", "whitespace"},
	{"control char", "agent:main:\x01", "control"},
	{"invalid utf-8", "agent:main:\xff", "UTF-8"},
	{"too long", "agent:main:direct:" + strings.Repeat("x", MaxKeyLen), "longer than"},
	{"bare marker", "agent:main:direct", "missing id after direct"},
	{"group without id", "agent:main:telegram:group", "missing id after group"},
	{"account direct without peer", "agent:main:telegram:work:direct", "missing peer id"},
	{"cron without id", "cron", "missing cron id"},
	{"hook without id", "hook", "missing hook id"},
	{"subagent odd", "agent:main:subagent:a:subagent", "pairs"},
	{"subagent junk", "agent:main:subagent:a:x:b", "unexpected"},
}

func TestParseErrors(t *testing.T) {
	for _, tc := range badKeys {
		t.Run(tc.name, func(t *testing.T) {
			k, err := Parse(tc.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error", tc.in, k)
			}
			if !errors.Is(err, ErrInvalidKey) {
				t.Errorf("error %v does not wrap ErrInvalidKey", err)
			}
			if !strings.Contains(err.Error(), tc.why) {
				t.Errorf("error %q does not say %q", err, tc.why)
			}
		})
	}
}

func TestKindViews(t *testing.T) {
	for _, tc := range []struct{ key, row, tool string }{
		{"agent:main:main", "direct", "main"},
		{"agent:main:telegram:direct:1", "direct", "other"},
		{"agent:main:telegram:group:1", "group", "group"},
		{"agent:main:discord:channel:1:thread:2", "group", "group"},
		{"cron:x", "direct", "cron"},
		{"hook:x", "direct", "hook"},
		{"global", "global", "other"},
		{"unknown", "unknown", "other"},
	} {
		k, err := Parse(tc.key)
		if err != nil {
			t.Fatal(err)
		}
		if k.RowKind() != tc.row || k.ToolKind() != tc.tool {
			t.Errorf("%s: RowKind %q ToolKind %q, want %q %q", tc.key, k.RowKind(), k.ToolKind(), tc.row, tc.tool)
		}
	}
}
