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
	ch := c.Channels
	if ch.Telegram.Configured() {
		d.checkTelegram("channels.telegram", ch.Telegram.TelegramAccount)
		for id, a := range ch.Telegram.Accounts {
			d.checkTelegram("channels.telegram.accounts."+id, a)
		}
	}
	if ch.Discord.Configured() {
		d.checkCommon("channels.discord", ch.Discord.ChannelCommon)
		d.checkStreaming("channels.discord", ch.Discord.Streaming)
		d.checkPresence("channels.discord", ch.Discord.DiscordAccount)
		for id, a := range ch.Discord.Accounts {
			d.checkCommon("channels.discord.accounts."+id, a.ChannelCommon)
			d.checkStreaming("channels.discord.accounts."+id, a.Streaming)
			d.checkPresence("channels.discord.accounts."+id, a)
		}
	}
	if ch.Slack.Configured() {
		d.checkSlack("channels.slack", ch.Slack.SlackAccount)
		for id, a := range ch.Slack.Accounts {
			d.checkSlack("channels.slack.accounts."+id, a)
		}
	}
	if ch.Whatsapp.Configured() {
		d.checkCommon("channels.whatsapp", ch.Whatsapp.ChannelCommon)
		for id, a := range ch.Whatsapp.Accounts {
			d.checkCommon("channels.whatsapp.accounts."+id, a.ChannelCommon)
		}
	}
	for id, e := range c.Agents.Entries {
		d.checkPatterns("agents.entries."+id+".groupChat.mentionPatterns", e.GroupChat.MentionPatterns)
	}
	agents := c.AgentIDs()
	for i, b := range c.Bindings {
		p := indexPath("bindings", i)
		if b.Type == "acp" {
			// The router takes only route bindings (channels.ResolveAgent).
			n, path := d.where(p+".type", p)
			d.warnAtPath(n, path, `type "acp" is not in effect here: ACP conversation bindings are not implemented, so this binding routes nothing`)
		}
		if b.AgentID == "" {
			n, path := d.where(p+".agentId", p)
			d.errorAtPath(n, path, "a binding needs agentId")
		} else if len(c.Agents.Entries) > 0 && !slices.Contains(agents, strings.ToLower(b.AgentID)) {
			n, path := d.where(p+".agentId", p)
			if strings.EqualFold(b.AgentID, "main") {
				// OpenClaw's validator lets "main" through unconfigured.
				d.warnAtPath(n, path, "agent %q is not configured; its chats go to the default agent (%s)", b.AgentID, c.DefaultAgentID())
			} else {
				d.errorAtPath(n, path, "agent %q is not configured; configured agents are %s", b.AgentID, strings.Join(agents, ", "))
			}
		}
		if b.Match.Channel == "" {
			n, path := d.where(p+".match.channel", p+".match", p)
			d.errorAtPath(n, path, "a binding needs match.channel")
		}
	}
}

// checkCommon checks the keys every channel has.
func (d *decoder) checkCommon(p string, c ChannelCommon) {
	switch c.DMPolicy {
	case "open":
		if !slices.Contains(c.AllowFrom, "*") {
			n, path := d.where(p+".allowFrom", p+".dmPolicy", p)
			// OpenClaw accepts this and drops every DM; so do we (channels
			// gate), but say so, since it is rarely what was meant.
			d.warnAtPath(n, path, `dmPolicy "open" without "*" in allowFrom drops every direct message; add "*" to allowFrom, or use "pairing" or "allowlist"`)
		}
	case "allowlist":
		if len(c.AllowFrom) == 0 {
			n, path := d.where(p+".dmPolicy", p)
			d.warnAtPath(n, path, `dmPolicy "allowlist" with an empty allowFrom refuses every direct message`)
		}
	}
	d.checkPatterns(p+".mentionPatterns", c.MentionPatterns.Patterns)
}

func (d *decoder) checkTelegram(p string, a TelegramAccount) {
	d.checkStreaming(p, a.Streaming)
	d.checkCommon(p, a.ChannelCommon)
	for i, id := range a.AllowFrom {
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
	if a.WebhookURL != "" && !a.WebhookSecret.IsSet() && a.WebhookSecret.Ref == nil {
		n, path := d.where(p+".webhookSecret", p+".webhookUrl", p)
		d.errorAtPath(n, path, "webhook mode needs webhookSecret, so the gateway can tell Telegram's calls from anyone else's")
	}
}

// checkPresence refuses a Discord activity the Gateway would refuse: a
// type outside 0-5, a stream URL on anything but a streaming activity.
func (d *decoder) checkPresence(p string, a DiscordAccount) {
	t := a.ActivityType
	if t.Set && t.N > 5 {
		n, path := d.where(p+".activityType", p)
		d.errorAtPath(n, path, "activityType is 0 to 5 (playing, streaming, listening, watching, custom, competing), got %d", t.N)
	}
	if a.ActivityURL != "" && (!t.Set || t.N != 1) {
		n, path := d.where(p+".activityUrl", p)
		d.errorAtPath(n, path, "activityUrl is for a streaming activity: set activityType 1")
	}
	if t.Set && t.N == 1 && a.ActivityURL == "" && a.Activity != "" {
		n, path := d.where(p+".activityType", p)
		d.errorAtPath(n, path, "a streaming activity (activityType 1) needs activityUrl")
	}
}

// checkStreaming warns about the stream modes that are accepted but do
// nothing here.
func (d *decoder) checkStreaming(p string, s PreviewStreaming) {
	if s.Mode == "block" || s.Mode == "progress" {
		n, path := d.where(p+".streaming.mode", p)
		d.warnAtPath(n, path, `streaming.mode %q is not in effect here: block replies and tool-progress messages are not implemented, so replies are sent when done; "partial" previews the reply in one edited message`, s.Mode)
	}
}

func (d *decoder) checkSlack(p string, a SlackAccount) {
	d.checkCommon(p, a.ChannelCommon)
	d.checkStreaming(p, a.Streaming)
	if a.Mode == "relay" {
		n, path := d.where(p+".mode", p)
		d.warnAtPath(n, path, `mode "relay" is not in effect here: the relay transport (a router forwarding Slack events) is not implemented, so this account receives no events; use "socket" or "http"`)
	}
	if a.Mode == "http" && !a.SigningSecret.IsSet() && a.SigningSecret.Ref == nil {
		n, path := d.where(p+".signingSecret", p+".mode", p)
		d.errorAtPath(n, path, `mode "http" needs signingSecret: every event is verified with it before it is read`)
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
