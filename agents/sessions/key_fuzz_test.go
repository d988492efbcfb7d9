package sessions

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, that its errors wrap
// ErrInvalidKey, and that a parsed key is canonical: String gives Raw back
// and parsing Raw again gives the same fields.
func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.in)
	}
	for _, tc := range badKeys {
		f.Add(tc.in)
	}
	for _, tc := range peerKeyCases {
		f.Add(tc.want)
	}
	f.Fuzz(func(t *testing.T, in string) {
		k, err := Parse(in)
		if err != nil {
			if !errors.Is(err, ErrInvalidKey) {
				t.Fatalf("Parse(%q) error %v does not wrap ErrInvalidKey", in, err)
			}
			return
		}
		if s := k.String(); s != k.Raw {
			t.Fatalf("Parse(%q).String() = %q, Raw %q", in, s, k.Raw)
		}
		again, err := Parse(k.Raw)
		if err != nil {
			t.Fatalf("Parse(%q) ok but its Raw %q fails: %v", in, k.Raw, err)
		}
		if again != k {
			t.Fatalf("Parse(%q) not stable:\n first %+v\nsecond %+v", in, k, again)
		}
	})
}

// FuzzPeerKey checks that every key PeerKey builds parses back to the
// fields it was built from. Keys the format cannot tell apart are skipped:
// a channel or account named like a marker, or a peer id with a thread or
// topic part.
func FuzzPeerKey(f *testing.F) {
	for _, tc := range peerKeyCases {
		p := tc.p
		f.Add(p.AgentID, p.MainKey, p.Channel, p.AccountID, p.PeerID, p.ThreadID, p.TopicID,
			uint8(slices.Index(peerKinds, p.PeerKind)), uint8(slices.Index(dmScopes, p.DMScope)), p.GroupScope == GroupScopeMain)
	}
	f.Fuzz(func(t *testing.T, agent, mainKey, channel, account, peer, thread, topic string, kind, scope uint8, groupMain bool) {
		p := PeerParams{AgentID: agent, MainKey: mainKey, Channel: channel, AccountID: account, PeerID: peer,
			ThreadID: thread, TopicID: topic, PeerKind: peerKinds[int(kind)%len(peerKinds)],
			DMScope: dmScopes[int(scope)%len(dmScopes)]}
		if groupMain {
			p.GroupScope = GroupScopeMain
		}
		key := PeerKey(p)
		if len(key) > MaxKeyLen {
			return
		}
		ch, acct, id := token(channel, "unknown"), token(account, "default"), ident(peer, "")
		if markers[ch] || markers[acct] || slices.ContainsFunc(strings.Split(id, ":"), func(s string) bool { return markers[s] }) {
			return
		}
		k, err := Parse(key)
		if err != nil {
			t.Fatalf("PeerKey(%+v) = %q does not parse: %v", p, key, err)
		}
		if k.Raw != key {
			t.Fatalf("PeerKey(%+v) = %q is not canonical (%q)", p, key, k.Raw)
		}
		want := Key{Raw: key, AgentID: NormalizeAgentID(agent)}
		switch {
		case p.PeerKind == PeerDirect && id != "" && p.DMScope != DMScopeMain:
			want.Kind, want.PeerKind, want.PeerID = KindDirect, PeerDirect, id
			if p.DMScope != DMScopePerPeer {
				want.Channel = ch
			}
			if p.DMScope == DMScopePerAccountChannelPeer {
				want.AccountID = acct
			}
		case p.PeerKind == PeerGroup && !groupMain:
			want.Kind, want.Channel, want.PeerKind, want.PeerID = KindGroup, ch, PeerGroup, ident(peer, "unknown")
		case p.PeerKind == PeerChannel:
			want.Kind, want.Channel, want.PeerKind, want.PeerID = KindChannel, ch, PeerChannel, ident(peer, "unknown")
		default:
			want.Kind, want.MainKey = KindMain, strings.TrimPrefix(MainKey(agent, mainKey), "agent:"+want.AgentID+":")
		}
		base := want.String()
		if tp := token(topic, ""); tp != "" {
			want.Kind, want.TopicID, want.Parent = KindTopic, tp, base
			base += ":topic:" + tp
		}
		if th := token(thread, ""); th != "" {
			want.Kind, want.ThreadID, want.Parent = KindThread, th, base
		}
		if k != want {
			t.Fatalf("PeerKey(%+v) = %q parses as\n %+v\nwant %+v", p, key, k, want)
		}
	})
}

var (
	peerKinds = []string{PeerDirect, PeerGroup, PeerChannel}
	dmScopes  = []string{DMScopeMain, DMScopePerPeer, DMScopePerChannelPeer, DMScopePerAccountChannelPeer}
)
