package config

import (
	"fmt"
	"strings"
	"testing"
)

// TestOpenClawAcceptsTheseConfigs pins configs that OpenClaw's own
// `config validate` accepts: they load here too, with OpenClaw's meaning
// or a warning that says what is not in effect.
func TestOpenClawAcceptsTheseConfigs(t *testing.T) {
	for _, tc := range []struct {
		name, src, warn string
		// check returns what is wrong with the decoded config, or "".
		check func(c *Config) string
	}{
		{"acp binding", `{bindings: [{type: "acp", agentId: "main", match: {channel: "slack", peer: {kind: "channel", id: "C1"}}}]}`,
			`bindings[0].type: type "acp" is not in effect here`, nil},
		{"slack relay mode", `{channels: {slack: {mode: "relay", botToken: "xoxb-1"}}}`,
			`channels.slack.mode: mode "relay" is not in effect here`, nil},
		{"heartbeat owner without to", `{agents: {defaults: {heartbeat: {every: "30m", target: "owner"}}}, commands: {ownerAllowFrom: ["telegram:1"]}}`,
			"", func(c *Config) string {
				if got := c.HeartbeatFor("main").Target; got != "owner" {
					return fmt.Sprintf("heartbeat target %q", got)
				}
				return ""
			}},
		{"open dmPolicy without star", `{channels: {telegram: {botToken: "1:a", dmPolicy: "open", allowFrom: ["123"]}}}`,
			`channels.telegram.allowFrom: dmPolicy "open" without "*" in allowFrom drops every direct message`, nil},
		{"slack allowBots mentions", `{channels: {slack: {botToken: "xoxb-1", appToken: "xapp-1", allowBots: "mentions"}}}`, "",
			func(c *Config) string {
				if b := c.Channels.Slack.AllowBots; !b.Admits() || !b.NeedsMention() {
					return fmt.Sprintf("allowBots decoded as %q", b)
				}
				return ""
			}},
		{"discord allowBots mentions", `{channels: {discord: {token: "x", accounts: {two: {allowBots: "mentions"}}}}}`, "",
			func(c *Config) string {
				if b := c.Channels.Discord.Accounts["two"].AllowBots; b != BotsWhenMentions {
					return fmt.Sprintf("allowBots decoded as %q", b)
				}
				return ""
			}},
		{"allowBots true stays all", `{channels: {slack: {botToken: "xoxb-1", appToken: "xapp-1", allowBots: true}}}`, "",
			func(c *Config) string {
				if b := c.Channels.Slack.AllowBots; b != BotsAdmitted {
					return fmt.Sprintf("allowBots decoded as %q", b)
				}
				return ""
			}},
		{"slack mentionPatterns object", `{channels: {slack: {botToken: "xoxb-1", appToken: "xapp-1", mentionPatterns: {mode: "deny", allowIn: ["C1"], denyIn: ["C2"]}}}}`, "",
			func(c *Config) string {
				mp := c.Channels.Slack.MentionPatterns
				if mp.Patterns != nil || mp.Scope == nil || mp.Scope.Mode != "deny" || !mp.Scope.Applies("C1") || mp.Scope.Applies("C2") || mp.Scope.Applies("C3") {
					return fmt.Sprintf("mentionPatterns decoded as %+v / %+v", mp, mp.Scope)
				}
				return ""
			}},
		{"telegram mentionPatterns object", `{channels: {telegram: {botToken: "1:a", mentionPatterns: {mode: "allow", denyIn: [-1001]}}}}`, "",
			func(c *Config) string {
				s := c.Channels.Telegram.MentionPatterns.Scope
				if s == nil || s.Applies("-1001") || !s.Applies("-1002") {
					return fmt.Sprintf("mentionPatterns decoded as %+v", s)
				}
				return ""
			}},
		{"binding to an unconfigured main", `{agents: {entries: {codex: {}}}, bindings: [{agentId: "main", match: {channel: "telegram"}}]}`,
			`bindings[0].agentId: agent "main" is not configured; its chats go to the default agent (codex)`, nil},
		{"search provider we do not have", `{tools: {web: {search: {provider: "parallel"}}}}`,
			`tools.web.search.provider: provider "parallel" is not in effect here`, nil},
		{"channel mentionPatterns array stays ours", `{channels: {discord: {token: "x", mentionPatterns: ["\\bclaw\\b"]}}}`, "",
			func(c *Config) string {
				if mp := c.Channels.Discord.MentionPatterns; len(mp.Patterns) != 1 || mp.Scope != nil {
					return fmt.Sprintf("mentionPatterns decoded as %+v", mp)
				}
				return ""
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap, errs, warns := parseTest(t, tc.src, nil)
			if len(errs) > 0 {
				t.Fatalf("refused: %v", errs)
			}
			if tc.check != nil {
				if msg := tc.check(snap.Config); msg != "" {
					t.Error(msg)
				}
			}
			if tc.warn == "" {
				return
			}
			for _, w := range warns {
				if strings.Contains(w, tc.warn) {
					return
				}
			}
			t.Errorf("no warning %q in %v", tc.warn, warns)
		})
	}
}

// TestOpenClawRefusesTheseToo pins the shapes OpenClaw's validator refuses
// that the widened channel keys must still refuse.
func TestOpenClawRefusesTheseToo(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"allowBots other string", `{channels: {slack: {botToken: "xoxb-1", appToken: "xapp-1", allowBots: "yes"}}}`,
			`channels.slack.allowBots: expected true, false or "mentions"`},
		{"mentionPatterns mode", `{channels: {slack: {botToken: "xoxb-1", appToken: "xapp-1", mentionPatterns: {mode: "sometimes"}}}}`,
			`channels.slack.mentionPatterns.mode: expected "allow" or "deny"`},
		{"mentionPatterns unknown key", `{channels: {slack: {botToken: "xoxb-1", appToken: "xapp-1", mentionPatterns: {allowed: ["C1"]}}}}`,
			`channels.slack.mentionPatterns.allowed: unknown key`},
		{"search provider nobody has", `{tools: {web: {search: {provider: "altavista"}}}}`,
			`tools.web.search.provider: "altavista" is not allowed here`},
		{"agent mentionPatterns object", `{agents: {entries: {main: {groupChat: {mentionPatterns: {mode: "allow"}}}}}}`,
			`agents.entries.main.groupChat.mentionPatterns`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, _ := parseTest(t, tc.src, nil)
			for _, e := range errs {
				if strings.Contains(e, tc.want) {
					return
				}
			}
			t.Errorf("no error %q in %v", tc.want, errs)
		})
	}
}
