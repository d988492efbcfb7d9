package config

import (
	"regexp"
	"slices"
	"strings"
)

// validateChannels checks channel settings whose meaning spans keys:
// policies that cannot admit anyone, patterns that do not compile,
// webhooks without a secret, bindings to nowhere.
func (d *decoder) validateChannels(c *Config) {
	tg := c.Channels.Telegram
	if tg.Configured() {
		d.checkTelegramAccount("channels.telegram", tg.DmPolicy, tg.AllowFrom, tg.MentionPatterns, tg.WebhookUrl, tg.WebhookSecret)
		for id, a := range tg.Accounts {
			p := "channels.telegram.accounts." + id
			d.checkTelegramAccount(p, a.DmPolicy, a.AllowFrom, a.MentionPatterns, a.WebhookUrl, a.WebhookSecret)
		}
	}
	for id, e := range c.Agents.Entries {
		d.checkPatterns("agents.entries."+id+".groupChat.mentionPatterns", e.GroupChat.MentionPatterns)
	}
	agents := c.AgentIDs()
	for i, b := range c.Bindings {
		p := indexPath("bindings", i)
		if b.AgentID == "" {
			n, path := d.where(p+".agentId", p)
			d.errorAtPath(n, path, "a binding needs agentId")
		} else if len(c.Agents.Entries) > 0 && !slices.Contains(agents, strings.ToLower(b.AgentID)) {
			n, path := d.where(p+".agentId", p)
			d.errorAtPath(n, path, "agent %q is not configured; configured agents are %s", b.AgentID, strings.Join(agents, ", "))
		}
		if b.Match.Channel == "" {
			n, path := d.where(p+".match.channel", p+".match", p)
			d.errorAtPath(n, path, "a binding needs match.channel")
		}
	}
}

func (d *decoder) checkTelegramAccount(p, dmPolicy string, allowFrom []string, patterns []string, webhookURL string, secret SecretInput) {
	switch dmPolicy {
	case "open":
		if !slices.Contains(allowFrom, "*") {
			n, path := d.where(p+".allowFrom", p+".dmPolicy", p)
			d.errorAtPath(n, path, `dmPolicy "open" needs allowFrom to include "*" (say who may write, or use "pairing")`)
		}
	case "allowlist":
		if len(allowFrom) == 0 {
			n, path := d.where(p+".dmPolicy", p)
			d.warnAtPath(n, path, `dmPolicy "allowlist" with an empty allowFrom refuses every direct message`)
		}
	}
	for i, id := range allowFrom {
		bare := id
		if j := strings.LastIndexByte(id, ':'); j >= 0 {
			bare = id[j+1:]
		}
		if bare != "*" && strings.TrimLeft(bare, "-0123456789") != "" {
			path := indexPath(p+".allowFrom", i)
			n, _ := d.where(path, p+".allowFrom")
			d.warnAtPath(n, path, "%q is not a numeric Telegram user id; names never match (ids are stable, usernames are not)", id)
		}
	}
	d.checkPatterns(p+".mentionPatterns", patterns)
	if webhookURL != "" && !secret.IsSet() && secret.Ref == nil {
		n, path := d.where(p+".webhookSecret", p+".webhookUrl", p)
		d.errorAtPath(n, path, "webhook mode needs webhookSecret, so the gateway can tell Telegram's calls from anyone else's")
	}
}

func (d *decoder) checkPatterns(p string, patterns []string) {
	for i, pat := range patterns {
		if _, err := regexp.Compile("(?i)" + pat); err != nil {
			path := indexPath(p, i)
			n, _ := d.where(path, p)
			d.errorAtPath(n, path, "not a valid regular expression: %v", err)
		}
	}
}
