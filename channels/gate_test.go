package channels

import "testing"

func TestGate(t *testing.T) {
	dm := func(sender string) Inbound {
		return Inbound{Channel: "telegram", Kind: EventMessage, Chat: Chat{ID: sender, Kind: Direct}, Sender: Sender{ID: sender}}
	}
	group := func(chat, sender string) Inbound {
		return Inbound{Channel: "telegram", Kind: EventMessage, Chat: Chat{ID: chat, Kind: Group}, Sender: Sender{ID: sender}}
	}
	mentionedAlways := func(GroupPolicy) bool { return true }
	never := func(GroupPolicy) bool { return false }
	tests := []struct {
		name      string
		policy    AccountPolicy
		in        Inbound
		paired    bool
		mentioned func(GroupPolicy) bool
		want      Verdict
	}{
		{"pairing is the default for strangers", AccountPolicy{}, dm("1"), false, nil, Pair},
		{"paired sender passes", AccountPolicy{}, dm("1"), true, nil, Allow},
		{"allowFrom passes under pairing", AccountPolicy{AllowFrom: []string{"1"}}, dm("1"), false, nil, Allow},
		{"prefixed ids match", AccountPolicy{DMPolicy: "allowlist", AllowFrom: []string{"tg:1"}}, dm("1"), false, nil, Allow},
		{"other channel's prefix does not", AccountPolicy{DMPolicy: "allowlist", AllowFrom: []string{"discord:1"}}, dm("1"), false, nil, Drop},
		{"allowlist refuses strangers", AccountPolicy{DMPolicy: "allowlist", AllowFrom: []string{"2"}}, dm("1"), false, nil, Drop},
		{"allowlist ignores pairing approvals", AccountPolicy{DMPolicy: "allowlist"}, dm("1"), true, nil, Drop},
		{"open needs a star", AccountPolicy{DMPolicy: "open"}, dm("1"), false, nil, Drop},
		{"open with a star", AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}}, dm("1"), false, nil, Allow},
		{"disabled drops everyone", AccountPolicy{DMPolicy: "disabled", AllowFrom: []string{"1"}}, dm("1"), false, nil, Drop},
		{"bots are dropped", AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}}, Inbound{Kind: EventMessage, Chat: Chat{ID: "1", Kind: Direct}, Sender: Sender{ID: "1", IsBot: true}}, false, nil, Drop},
		{"no sender id is dropped", AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}}, Inbound{Kind: EventMessage, Chat: Chat{ID: "1", Kind: Direct}}, false, nil, Drop},
		{"an unpaired edit is dropped, not paired", AccountPolicy{}, Inbound{Kind: EventEdit, Chat: Chat{ID: "1", Kind: Direct}, Sender: Sender{ID: "1"}}, false, nil, Drop},
		{"names never match", AccountPolicy{DMPolicy: "allowlist", AllowFrom: []string{"alice"}}, Inbound{Kind: EventMessage, Chat: Chat{ID: "1", Kind: Direct}, Sender: Sender{ID: "1", Username: "alice"}}, false, nil, Drop},
		{"unlisted group is dropped by default", AccountPolicy{}, group("-5", "1"), false, mentionedAlways, Drop},
		{"listed group, mentioned", AccountPolicy{Groups: map[string]GroupPolicy{"-5": {Enabled: true, RequireMention: true}}}, group("-5", "1"), false, mentionedAlways, Allow},
		{"listed group, not mentioned", AccountPolicy{Groups: map[string]GroupPolicy{"-5": {Enabled: true, RequireMention: true}}}, group("-5", "1"), false, never, Drop},
		{"mention not required", AccountPolicy{Groups: map[string]GroupPolicy{"*": {Enabled: true}}}, group("-5", "1"), false, never, Allow},
		{"ignoreOtherMentions drops a message to someone else", AccountPolicy{Groups: map[string]GroupPolicy{"*": {Enabled: true, IgnoreOtherMentions: true}}},
			Inbound{Kind: EventMessage, Chat: Chat{ID: "-5", Kind: Group}, Sender: Sender{ID: "1"}, MentionsOthers: true}, false, mentionedAlways, Drop},
		{"ignoreOtherMentions: a native mention of the bot wins", AccountPolicy{Groups: map[string]GroupPolicy{"*": {Enabled: true, IgnoreOtherMentions: true}}},
			Inbound{Kind: EventMessage, Chat: Chat{ID: "-5", Kind: Group}, Sender: Sender{ID: "1"}, MentionsOthers: true, Mentioned: true}, false, mentionedAlways, Allow},
		{"ignoreOtherMentions passes a message to no one", AccountPolicy{Groups: map[string]GroupPolicy{"*": {Enabled: true, IgnoreOtherMentions: true}}},
			group("-5", "1"), false, never, Allow},
		{"without ignoreOtherMentions a message to someone else passes", AccountPolicy{Groups: map[string]GroupPolicy{"*": {Enabled: true}}},
			Inbound{Kind: EventMessage, Chat: Chat{ID: "-5", Kind: Group}, Sender: Sender{ID: "1"}, MentionsOthers: true}, false, never, Allow},
		{"disabled group", AccountPolicy{Groups: map[string]GroupPolicy{"-5": {Enabled: false}}}, group("-5", "1"), false, mentionedAlways, Drop},
		{"open group policy", AccountPolicy{GroupPolicy: "open"}, group("-9", "1"), false, mentionedAlways, Allow},
		{"groups disabled", AccountPolicy{GroupPolicy: "disabled", Groups: map[string]GroupPolicy{"*": {Enabled: true}}}, group("-5", "1"), false, mentionedAlways, Drop},
		{"group sender allowlist", AccountPolicy{GroupAllowFrom: []string{"2"}, Groups: map[string]GroupPolicy{"*": {Enabled: true}}}, group("-5", "1"), false, mentionedAlways, Drop},
		{"group falls back to allowFrom", AccountPolicy{AllowFrom: []string{"1"}, Groups: map[string]GroupPolicy{"*": {Enabled: true}}}, group("-5", "1"), false, mentionedAlways, Allow},
		{"pairing approval never opens a group", AccountPolicy{AllowFrom: []string{"2"}, Groups: map[string]GroupPolicy{"*": {Enabled: true}}}, group("-5", "1"), true, mentionedAlways, Drop},
		{"per-group allowFrom wins", AccountPolicy{GroupAllowFrom: []string{"2"}, Groups: map[string]GroupPolicy{"-5": {Enabled: true, AllowFrom: []string{"1"}}}}, group("-5", "1"), false, mentionedAlways, Allow},
		{"topic disabled", AccountPolicy{Groups: map[string]GroupPolicy{"-5": {Enabled: true, Topics: map[string]GroupPolicy{"7": {Enabled: false}}}}},
			Inbound{Channel: "telegram", Kind: EventMessage, Chat: Chat{ID: "-5", Kind: Group, ThreadID: "7"}, Sender: Sender{ID: "1"}}, false, mentionedAlways, Drop},
		{"reactions in allowed groups pass the gate", AccountPolicy{Groups: map[string]GroupPolicy{"*": {Enabled: true, RequireMention: true}}},
			Inbound{Kind: EventReaction, Chat: Chat{ID: "-5", Kind: Group}, Sender: Sender{ID: "1"}}, false, never, Allow},
		{"reactions from strangers in groups are dropped", AccountPolicy{GroupAllowFrom: []string{"2"}, Groups: map[string]GroupPolicy{"*": {Enabled: true}}},
			Inbound{Kind: EventReaction, Chat: Chat{ID: "-5", Kind: Group}, Sender: Sender{ID: "1"}}, false, never, Drop},
		{"a listed server's channel", AccountPolicy{Groups: map[string]GroupPolicy{"g1": {Enabled: true}}},
			Inbound{Kind: EventMessage, GuildID: "g1", Chat: Chat{ID: "c9", Kind: Group}, Sender: Sender{ID: "1"}}, false, never, Allow},
		{"allowBots mentions: a bot that mentions us passes", AccountPolicy{AllowBots: true, BotsNeedMention: true, Groups: map[string]GroupPolicy{"*": {Enabled: true}}},
			Inbound{Kind: EventMessage, Chat: Chat{ID: "-5", Kind: Group}, Sender: Sender{ID: "b1", IsBot: true}}, false, mentionedAlways, Allow},
		{"allowBots mentions: a bot that does not is dropped, mention or not required", AccountPolicy{AllowBots: true, BotsNeedMention: true, Groups: map[string]GroupPolicy{"*": {Enabled: true}}},
			Inbound{Kind: EventMessage, Chat: Chat{ID: "-5", Kind: Group}, Sender: Sender{ID: "b1", IsBot: true}}, false, never, Drop},
		{"allowBots mentions: a bot's reaction is dropped", AccountPolicy{AllowBots: true, BotsNeedMention: true, Groups: map[string]GroupPolicy{"*": {Enabled: true}}},
			Inbound{Kind: EventReaction, Chat: Chat{ID: "-5", Kind: Group}, Sender: Sender{ID: "b1", IsBot: true}}, false, mentionedAlways, Drop},
		{"allowBots mentions: people are not mention-gated by it", AccountPolicy{AllowBots: true, BotsNeedMention: true, Groups: map[string]GroupPolicy{"*": {Enabled: true}}},
			group("-5", "1"), false, never, Allow},
		{"allowBots mentions: a bot's DM follows dmPolicy", AccountPolicy{AllowBots: true, BotsNeedMention: true, DMPolicy: "allowlist", AllowFrom: []string{"b1"}},
			Inbound{Kind: EventMessage, Chat: Chat{ID: "b1", Kind: Direct}, Sender: Sender{ID: "b1", IsBot: true}}, false, never, Allow},
		{"allowBots true: a bot passes unmentioned", AccountPolicy{AllowBots: true, Groups: map[string]GroupPolicy{"*": {Enabled: true}}},
			Inbound{Kind: EventMessage, Chat: Chat{ID: "-5", Kind: Group}, Sender: Sender{ID: "b1", IsBot: true}}, false, never, Allow},
		{"a channel entry beats its server's", AccountPolicy{Groups: map[string]GroupPolicy{"g1": {Enabled: true}, "c9": {Enabled: false}}},
			Inbound{Kind: EventMessage, GuildID: "g1", Chat: Chat{ID: "c9", Kind: Group}, Sender: Sender{ID: "1"}}, false, never, Drop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Gate{Policy: tt.policy, Aliases: []string{"tg"}}.Check(tt.in, tt.paired, tt.mentioned)
			if got.Verdict != tt.want {
				t.Errorf("verdict %v (%s), want %v", got.Verdict, got.Reason, tt.want)
			}
		})
	}
}

func TestMentionMatcher(t *testing.T) {
	m := MentionMatcher([]string{`\bclaw\b`, `(`})
	for text, want := range map[string]bool{"hey Claw, help": true, "clawed": false, "": false} {
		if got := m(text); got != want {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
}
