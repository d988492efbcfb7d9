package channels

import (
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
)

func TestGateAccessGroups(t *testing.T) {
	groups := map[string]config.AccessGroup{
		"operators": {Type: "message.senders", Members: map[string][]string{
			"*": {"777"}, "telegram": {"111", "tg:222"}, "discord": {"333"},
		}},
		"nested":     {Type: "message.senders", Members: map[string][]string{"telegram": {"accessGroup:operators"}}},
		"starry":     {Type: "message.senders", Members: map[string][]string{"telegram": {"*"}}},
		"audience":   {Type: "discord.channelAudience", GuildID: "1", ChannelID: "2"},
		"byUsername": {Type: "message.senders", Members: map[string][]string{"telegram": {"alice"}}},
	}
	dm := func(sender string) Inbound {
		return Inbound{Channel: "telegram", Kind: EventMessage, Chat: Chat{ID: sender, Kind: Direct}, Sender: Sender{ID: sender}}
	}
	allow := func(entries ...string) AccountPolicy { return AccountPolicy{DMPolicy: "allowlist", AllowFrom: entries} }
	tests := []struct {
		name   string
		policy AccountPolicy
		in     Inbound
		want   Verdict
	}{
		{"member under the channel's key", allow("accessGroup:operators"), dm("111"), Allow},
		{"member with the channel's alias prefix", allow("accessGroup:operators"), dm("222"), Allow},
		{"member under *", allow("accessGroup:operators"), dm("777"), Allow},
		{"another channel's members do not count", allow("accessGroup:operators"), dm("333"), Drop},
		{"stranger", allow("accessGroup:operators"), dm("999"), Drop},
		{"group mixed with a direct id", allow("accessGroup:operators", "999"), dm("999"), Allow},
		{"the reference is case-insensitive", allow("AccessGroup:operators"), dm("111"), Allow},
		{"a missing group lets nobody in", allow("accessGroup:ghosts"), dm("111"), Drop},
		{"groups do not nest", allow("accessGroup:nested"), dm("111"), Drop},
		{"a * member is not everyone", allow("accessGroup:starry"), dm("999"), Drop},
		{"an unresolved Discord audience lets nobody in", allow("accessGroup:audience"),
			Inbound{Channel: "discord", Kind: EventMessage, Chat: Chat{ID: "5", Kind: Direct}, Sender: Sender{ID: "333"}}, Drop},
		// The attack: a stranger takes a member's display name or username.
		{"a stranger with a member's name", allow("accessGroup:byUsername"),
			Inbound{Channel: "telegram", Kind: EventMessage, Chat: Chat{ID: "9", Kind: Direct}, Sender: Sender{ID: "9", Username: "alice", Name: "alice"}}, Drop},
		{"open still needs *", AccountPolicy{DMPolicy: "open", AllowFrom: []string{"accessGroup:operators"}}, dm("999"), Drop},
		{"pairing lets members through", AccountPolicy{AllowFrom: []string{"accessGroup:operators"}}, dm("111"), Allow},
		{"group senders", AccountPolicy{GroupAllowFrom: []string{"accessGroup:operators"}, Groups: map[string]GroupPolicy{"*": {Enabled: true}}},
			Inbound{Channel: "telegram", Kind: EventMessage, Chat: Chat{ID: "-5", Kind: Group}, Sender: Sender{ID: "111"}}, Allow},
		{"group stranger", AccountPolicy{GroupAllowFrom: []string{"accessGroup:operators"}, Groups: map[string]GroupPolicy{"*": {Enabled: true}}},
			Inbound{Channel: "telegram", Kind: EventMessage, Chat: Chat{ID: "-5", Kind: Group}, Sender: Sender{ID: "999"}}, Drop},
		{"a group's own allowFrom", AccountPolicy{Groups: map[string]GroupPolicy{"-5": {Enabled: true, AllowFrom: []string{"accessGroup:operators"}}}},
			Inbound{Channel: "telegram", Kind: EventMessage, Chat: Chat{ID: "-5", Kind: Group}, Sender: Sender{ID: "999"}}, Drop},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := Gate{Policy: tc.policy, Aliases: []string{"tg"}, AccessGroups: groups}
			if got := g.Check(tc.in, false, nil); got.Verdict != tc.want {
				t.Fatalf("verdict %v (%s), want %v", got.Verdict, got.Reason, tc.want)
			}
		})
	}
}
