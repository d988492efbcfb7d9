package discord

import (
	"cmp"
	"fmt"
	"maps"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// Network maps channels.discord onto adapter settings. The API and
// gateway URLs can be moved with OPENCLAW_DISCORD_API_BASE and
// OPENCLAW_DISCORD_GATEWAY_URL (a proxy, or a test double).
func Network(h channels.Host) channels.Network {
	return channels.Network{
		Name: "discord", Label: "Discord", VoiceNotes: true, RoomEvents: true,
		Accounts: func(cfg *config.Config) []channels.AccountSpec { return accounts(h, cfg) },
	}
}

func accounts(h channels.Host, cfg *config.Config) []channels.AccountSpec {
	dc := cfg.Channels.Discord
	if !dc.Configured() {
		return nil
	}
	var specs []channels.AccountSpec
	for _, id := range dc.AccountIDs() {
		acct, _ := dc.Account(id)
		isDefault := id == dc.DefaultAccountID()
		token := acct.Token.Value
		if token == "" && isDefault {
			token = h.Getenv("DISCORD_BOT_TOKEN")
		}
		opts := Options{
			AccountID: id, Token: token, APIBase: h.Getenv("OPENCLAW_DISCORD_API_BASE"),
			GatewayURL: h.Getenv("OPENCLAW_DISCORD_GATEWAY_URL"),
			TextLimit:  acct.TextChunkLimit, MaxLinesPerMessage: acct.MaxLinesPerMessage, ChunkMode: acct.Streaming.ChunkMode,
			AllowBots: acct.AllowBots.Admits(), MediaMaxMb: channels.MediaMaxMb(cfg, acct.MediaMaxMb),
			SuppressEmbeds: channels.BoolOr(acct.SuppressEmbeds, true), Presence: presence(acct),
			Proxy: acct.Proxy, MentionAliases: mentionAliases(dc, id),
			Log: h.AccountLog("discord", id),
		}
		specs = append(specs, channels.AccountSpec{Commands: acct.Commands,
			AccountID: id, Name: acct.Name, Default: isDefault, Enabled: acct.IsEnabled(),
			Policy:      withBotLoop(policy(cfg, acct), dc.Accounts[id].BotLoopProtection, dc.BotLoopProtection, cfg.Channels.Defaults.BotLoopProtection),
			Fingerprint: channels.Fingerprint(token, opts.APIBase, opts.GatewayURL, opts.TextLimit, opts.MaxLinesPerMessage, opts.ChunkMode, opts.AllowBots, opts.MediaMaxMb, opts.SuppressEmbeds, opts.Presence, opts.Proxy, opts.MentionAliases),
			New: func() (channels.Adapter, error) {
				if token == "" {
					return nil, fmt.Errorf("channels.discord account %q has no bot token: set token or DISCORD_BOT_TOKEN", id)
				}
				return New(opts), nil
			},
		})
	}
	return specs
}

// mentionAliases is the channel's mentionAliases with a named account's
// own entries added (an account's entry wins for the same handle).
func mentionAliases(dc config.DiscordChannel, id string) map[string]string {
	m := maps.Clone(dc.MentionAliases)
	if a, named := dc.Accounts[id]; named && len(a.MentionAliases) > 0 {
		if m == nil {
			m = map[string]string{}
		}
		maps.Copy(m, a.MentionAliases)
	}
	return m
}

// policy maps guilds{<id>{channels{<id>}}} onto group entries: a server's
// entry covers its channels, a channel's own entry wins.
func policy(cfg *config.Config, a config.DiscordAccount) channels.AccountPolicy {
	p := channels.CommonPolicy(cfg, a.ChannelCommon, a.Streaming, 2000)
	p.AllowBots, p.BotsNeedMention = a.AllowBots.Admits(), a.AllowBots.NeedsMention()
	p.ActionsOff = actionsOff(a.Actions)
	if !channels.BoolOr(a.DM.Enabled, true) {
		p.DMPolicy = "disabled"
	}
	for gid, g := range a.Guilds {
		guild := channels.GroupPolicy{Enabled: true, RequireMention: channels.BoolOr(g.RequireMention, true), AllowFrom: g.Users,
			ToolsAllow: g.Tools.Allow, ToolsDeny: g.Tools.Deny, IgnoreOtherMentions: channels.BoolOr(g.IgnoreOtherMentions, false)}
		if all, ok := g.Channels["*"]; ok {
			guild = channelPolicy(guild, all)
		}
		p.Groups[gid] = guild
		for cid, c := range g.Channels {
			if cid != "*" {
				p.Groups[cid] = channelPolicy(guild, c)
			}
		}
	}
	return p
}

func channelPolicy(guild channels.GroupPolicy, c config.DiscordGuildChannel) channels.GroupPolicy {
	gp := guild
	gp.Enabled = channels.BoolOr(c.Enabled, true)
	gp.RequireMention = channels.BoolOr(c.RequireMention, guild.RequireMention)
	gp.IgnoreOtherMentions = channels.BoolOr(c.IgnoreOtherMentions, guild.IgnoreOtherMentions)
	if len(c.Users) > 0 {
		gp.AllowFrom = c.Users
	}
	gp.SystemPrompt = c.SystemPrompt
	if len(c.Tools.Allow)+len(c.Tools.Deny) > 0 {
		gp.ToolsAllow, gp.ToolsDeny = c.Tools.Allow, c.Tools.Deny
	}
	return gp
}

// actionsOff maps channels.discord.actions (presence has no message
// action here). emoji-list, like react, is under reactions.
func actionsOff(a config.DiscordActions) map[string]string {
	const k = "channels.discord.actions."
	return channels.ActionsOff(
		channels.ActionSwitch{Key: k + "reactions", On: a.Reactions, Default: true, Actions: []string{"react", "reactions", "emoji-list"}},
		channels.ActionSwitch{Key: k + "polls", On: a.Polls, Default: true, Actions: []string{"poll"}},
		channels.ActionSwitch{Key: k + "messages", On: a.Messages, Default: true, Actions: []string{"send", "edit", "delete", "read"}},
		channels.ActionSwitch{Key: k + "threads", On: a.Threads, Default: true, Actions: []string{"thread-create", "thread-list", "thread-reply"}},
		channels.ActionSwitch{Key: k + "pins", On: a.Pins, Default: true, Actions: []string{"pin", "unpin", "list-pins"}},
		channels.ActionSwitch{Key: k + "search", On: a.Search, Default: true, Actions: []string{"search"}},
		channels.ActionSwitch{Key: k + "memberInfo", On: a.MemberInfo, Default: true, Actions: []string{"member-info"}},
		channels.ActionSwitch{Key: k + "channelInfo", On: a.ChannelInfo, Default: true, Actions: []string{"channel-info", "channel-list"}},
		channels.ActionSwitch{Key: k + "roleInfo", On: a.RoleInfo, Default: true, Actions: []string{"role-info"}},
		channels.ActionSwitch{Key: k + "channels", On: a.Channels, Default: true, Actions: []string{"channel-list"}},
		channels.ActionSwitch{Key: k + "voiceStatus", On: a.VoiceStatus, Default: true, Actions: []string{"voice-status"}},
		channels.ActionSwitch{Key: k + "events", On: a.Events, Default: true, Actions: []string{"event-list", "event-create"}},
		channels.ActionSwitch{Key: k + "stickers", On: a.Stickers, Default: true, Actions: []string{"sticker"}},
		channels.ActionSwitch{Key: k + "emojiUploads", On: a.EmojiUploads, Default: true, Actions: []string{"emoji-upload"}},
		channels.ActionSwitch{Key: k + "stickerUploads", On: a.StickerUploads, Default: true, Actions: []string{"sticker-upload"}},
		channels.ActionSwitch{Key: k + "permissions", On: a.Permissions, Default: true, Actions: []string{"permissions"}},
		// OpenClaw keeps these off until the operator turns them on.
		channels.ActionSwitch{Key: k + "roles", On: &a.Roles, Default: false, Actions: []string{"role-add", "role-remove"}},
		channels.ActionSwitch{Key: k + "moderation", On: &a.Moderation, Default: false, Actions: []string{"timeout", "kick", "ban"}},
	)
}

// withBotLoop sets p's bot loop protection from the account's own block,
// the channel's and channels.defaults', key by key.
func withBotLoop(p channels.AccountPolicy, layers ...config.BotLoopProtection) channels.AccountPolicy {
	p.BotLoop = channels.BotLoopFor(layers...)
	return p
}

// presence is IDENTIFY's presence from status and activity, nil when
// neither is set. An activity without a type is a custom status, whose
// text Discord shows as the state.
func presence(a config.DiscordAccount) map[string]any {
	if a.Status == "" && a.Activity == "" {
		return nil
	}
	p := map[string]any{"since": nil, "afk": false, "status": cmp.Or(a.Status, "online"), "activities": []any{}}
	if a.Activity != "" {
		kind := 4
		if a.ActivityType.Set {
			kind = a.ActivityType.N
		}
		act := map[string]any{"type": kind, "name": a.Activity}
		switch kind {
		case 4:
			act["name"], act["state"] = "Custom Status", a.Activity
		case 1:
			act["url"] = a.ActivityURL
		}
		p["activities"] = []any{act}
	}
	return p
}
