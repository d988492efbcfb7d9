package discord

import (
	"fmt"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// Network maps channels.discord onto adapter settings. The API and
// gateway URLs can be moved with OPENCLAW_DISCORD_API_BASE and
// OPENCLAW_DISCORD_GATEWAY_URL (a proxy, or a test double).
func Network(h channels.Host) channels.Network {
	return channels.Network{
		Name: "discord", Label: "Discord",
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
			Log: h.AccountLog("discord", id),
		}
		specs = append(specs, channels.AccountSpec{
			AccountID: id, Name: acct.Name, Default: isDefault, Enabled: acct.IsEnabled(),
			Policy:      policy(cfg, acct),
			Fingerprint: channels.Fingerprint(token, opts.APIBase, opts.GatewayURL, opts.TextLimit, opts.MaxLinesPerMessage, opts.ChunkMode, opts.AllowBots, opts.MediaMaxMb),
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

// policy maps guilds{<id>{channels{<id>}}} onto group entries: a server's
// entry covers its channels, a channel's own entry wins.
func policy(cfg *config.Config, a config.DiscordAccount) channels.AccountPolicy {
	p := channels.CommonPolicy(cfg, a.ChannelCommon, 2000)
	p.AllowBots, p.BotsNeedMention = a.AllowBots.Admits(), a.AllowBots.NeedsMention()
	if !channels.BoolOr(a.DM.Enabled, true) {
		p.DMPolicy = "disabled"
	}
	for gid, g := range a.Guilds {
		guild := channels.GroupPolicy{Enabled: true, RequireMention: channels.BoolOr(g.RequireMention, true), AllowFrom: g.Users}
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
	if len(c.Users) > 0 {
		gp.AllowFrom = c.Users
	}
	gp.SystemPrompt = c.SystemPrompt
	return gp
}
