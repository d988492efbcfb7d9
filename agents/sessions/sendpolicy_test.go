package sessions

import "testing"

func TestSendPolicyDecide(t *testing.T) {
	denyDiscordGroups := SendPolicy{Rules: []SendRule{{Action: "deny", Channel: "discord", ChatType: "group"}}, Default: "allow"}
	for _, tc := range []struct {
		name string
		p    SendPolicy
		t    SendTarget
		want string
	}{
		{"no policy allows", SendPolicy{}, SendTarget{Key: "agent:main:discord:group:1"}, SendAllow},
		{"deny rule from the key", denyDiscordGroups, SendTarget{Key: "agent:main:discord:group:1"}, SendDeny},
		{"deny rule, case and spaces", denyDiscordGroups, SendTarget{Key: " AGENT:main:Discord:group:1 "}, SendDeny},
		{"deny rule spares DMs", denyDiscordGroups, SendTarget{Key: "agent:main:discord:direct:1"}, SendAllow},
		{"deny rule spares telegram", denyDiscordGroups, SendTarget{Key: "agent:main:telegram:group:1"}, SendAllow},
		{"channel from the origin", denyDiscordGroups, SendTarget{Key: "agent:main:main", Channel: "discord", ChatType: "group"}, SendDeny},
		{"main key has no chat type of its own", denyDiscordGroups, SendTarget{Key: "agent:main:main", Channel: "discord"}, SendAllow},
		{"thread inherits its group", denyDiscordGroups, SendTarget{Key: "agent:main:discord:group:1:thread:9"}, SendDeny},
		{"the session's own allow wins", denyDiscordGroups, SendTarget{Key: "agent:main:discord:group:1", Override: "allow"}, SendAllow},
		{"the session's own deny wins", SendPolicy{}, SendTarget{Key: "agent:main:main", Override: "deny"}, SendDeny},
		{"default deny", SendPolicy{Default: "deny"}, SendTarget{Key: "agent:main:main"}, SendDeny},
		{"allow rule beats default deny", SendPolicy{Default: "deny", Rules: []SendRule{{Action: "allow", ChatType: "dm"}}},
			SendTarget{Key: "agent:main:telegram:direct:5"}, SendAllow},
		{"a later deny beats an earlier allow", SendPolicy{Rules: []SendRule{{Action: "allow", Channel: "slack"}, {Action: "deny", ChatType: "channel"}}},
			SendTarget{Key: "agent:main:slack:channel:c1"}, SendDeny},
		{"action defaults to allow", SendPolicy{Default: "deny", Rules: []SendRule{{KeyPrefix: "cron:"}}}, SendTarget{Key: "agent:main:cron:job"}, SendAllow},
		{"keyPrefix without the agent part", SendPolicy{Rules: []SendRule{{Action: "deny", KeyPrefix: "discord:"}}}, SendTarget{Key: "agent:ops:discord:channel:1"}, SendDeny},
		{"keyPrefix with the agent part", SendPolicy{Rules: []SendRule{{Action: "deny", KeyPrefix: "agent:ops:"}}}, SendTarget{Key: "agent:ops:main"}, SendDeny},
		{"rawKeyPrefix needs the whole key", SendPolicy{Rules: []SendRule{{Action: "deny", RawKeyPrefix: "discord:"}}}, SendTarget{Key: "agent:ops:discord:channel:1"}, SendAllow},
		{"every match field must match", SendPolicy{Rules: []SendRule{{Action: "deny", Channel: "discord", KeyPrefix: "agent:ops:"}}}, SendTarget{Key: "agent:main:discord:channel:1"}, SendAllow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.Decide(tc.t); got != tc.want {
				t.Errorf("Decide(%+v) = %s, want %s", tc.t, got, tc.want)
			}
		})
	}
}
