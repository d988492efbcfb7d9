package slack

import (
	"fmt"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// Network maps channels.slack onto adapter settings. The Web API base can
// be moved with OPENCLAW_SLACK_API_URL (a proxy, or a test double).
func Network(h channels.Host) channels.Network {
	return channels.Network{
		Name: "slack", Label: "Slack", RoomEvents: true,
		Accounts: func(cfg *config.Config) []channels.AccountSpec { return accounts(h, cfg) },
	}
}

func accounts(h channels.Host, cfg *config.Config) []channels.AccountSpec {
	sc := cfg.Channels.Slack
	if !sc.Configured() {
		return nil
	}
	var specs []channels.AccountSpec
	for _, id := range sc.AccountIDs() {
		acct, _ := sc.Account(id)
		isDefault := id == sc.DefaultAccountID()
		bot, app := acct.BotToken.Value, acct.AppToken.Value
		if isDefault && bot == "" {
			bot = h.Getenv("SLACK_BOT_TOKEN")
		}
		if isDefault && app == "" && acct.Mode != "http" {
			app = h.Getenv("SLACK_APP_TOKEN")
		}
		path := acct.WebhookPath
		if path == "" {
			path = "/slack/events/" + id
		}
		slash := acct.SlashCommand.Name
		if !channels.BoolOr(acct.SlashCommand.Enabled, true) {
			slash = "-" // a name Slack never sends: the command is off
		}
		opts := Options{
			AccountID: id, BotToken: bot, AppToken: app, SigningSecret: acct.SigningSecret.Value, Mode: acct.Mode,
			APIURL: h.Getenv("OPENCLAW_SLACK_API_URL"), WebhookPath: path, TextLimit: acct.TextChunkLimit,
			ChunkMode: acct.Streaming.ChunkMode, MediaMaxMb: channels.MediaMaxMb(cfg, acct.MediaMaxMb), SlashCommand: slash,
			UnfurlLinks: acct.UnfurlLinks, NoMediaUnfurl: !channels.BoolOr(acct.UnfurlMedia, true),
			NoReplyToBotMention: !channels.BoolOr(acct.ImplicitMentions.ReplyToBot, true),
			Log:                 h.AccountLog("slack", id),
		}
		if h.Throttle != nil {
			opts.Throttle = h.Throttle(path)
		}
		if opts.Mode == "" {
			opts.Mode = "socket"
		}
		specs = append(specs, channels.AccountSpec{Commands: acct.Commands,
			AccountID: id, Name: acct.Name, Default: isDefault, Enabled: acct.IsEnabled(),
			Policy: withBotLoop(policy(cfg, acct), sc.Accounts[id].BotLoopProtection, sc.BotLoopProtection, cfg.Channels.Defaults.BotLoopProtection),
			Fingerprint: channels.Fingerprint(bot, app, opts.SigningSecret, opts.Mode, opts.APIURL, opts.WebhookPath, opts.TextLimit,
				opts.ChunkMode, opts.MediaMaxMb, opts.SlashCommand, opts.UnfurlLinks, opts.NoMediaUnfurl, opts.NoReplyToBotMention),
			New: func() (channels.Adapter, error) {
				if bot == "" {
					return nil, fmt.Errorf("channels.slack account %q has no botToken (or SLACK_BOT_TOKEN)", id)
				}
				if opts.Mode == "socket" && app == "" {
					return nil, fmt.Errorf("channels.slack account %q: Socket Mode needs appToken (or SLACK_APP_TOKEN); for HTTP Events set mode \"http\" and signingSecret", id)
				}
				return New(opts), nil
			},
		})
	}
	return specs
}

func policy(cfg *config.Config, a config.SlackAccount) channels.AccountPolicy {
	p := channels.CommonPolicy(cfg, a.ChannelCommon, a.Streaming, 4000)
	if p.ReplyToMode == "" {
		// A Slack reply-to is a thread: "first" would thread the first
		// chunk and leave the rest in the channel.
		p.ReplyToMode = "off"
	}
	p.AllowBots, p.BotsNeedMention = a.AllowBots.Admits(), a.AllowBots.NeedsMention()
	p.ActionsOff = actionsOff(a.Actions)
	if !channels.BoolOr(a.DM.Enabled, true) {
		p.DMPolicy = "disabled"
	}
	mention := channels.BoolOr(a.RequireMention, true)
	for cid, c := range a.Channels {
		p.Groups[cid] = channels.GroupPolicy{
			Enabled: channels.BoolOr(c.Enabled, true), RequireMention: channels.BoolOr(c.RequireMention, mention),
			AllowFrom: c.Users, SystemPrompt: c.SystemPrompt, ToolsAllow: c.Tools.Allow, ToolsDeny: c.Tools.Deny,
			IgnoreOtherMentions: channels.BoolOr(c.IgnoreOtherMentions, false),
		}
	}
	if p.GroupPolicy == "open" {
		if _, ok := p.Groups["*"]; !ok {
			p.Groups["*"] = channels.GroupPolicy{Enabled: true, RequireMention: mention}
		}
	}
	return p
}

// actionsOff maps channels.slack.actions (permissions has no message
// action here). OpenClaw has no switch for kick on Slack: the message
// tool runs it for the owner only.
func actionsOff(a config.SlackActions) map[string]string {
	const k = "channels.slack.actions."
	return channels.ActionsOff(
		channels.ActionSwitch{Key: k + "reactions", On: a.Reactions, Default: true, Actions: []string{"react", "reactions"}},
		channels.ActionSwitch{Key: k + "messages", On: a.Messages, Default: true, Actions: []string{"send", "edit", "delete", "read", "thread-reply", "thread-list"}},
		channels.ActionSwitch{Key: k + "pins", On: a.Pins, Default: true, Actions: []string{"pin", "unpin", "list-pins"}},
		channels.ActionSwitch{Key: k + "memberInfo", On: a.MemberInfo, Default: true, Actions: []string{"member-info"}},
		channels.ActionSwitch{Key: k + "channelInfo", On: a.ChannelInfo, Default: true, Actions: []string{"channel-info", "channel-list"}},
		channels.ActionSwitch{Key: k + "search", On: a.Search, Default: true, Actions: []string{"search"}},
		channels.ActionSwitch{Key: k + "emojiList", On: a.EmojiList, Default: true, Actions: []string{"emoji-list"}},
	)
}

// withBotLoop sets p's bot loop protection from the account's own block,
// the channel's and channels.defaults', key by key.
func withBotLoop(p channels.AccountPolicy, layers ...config.BotLoopProtection) channels.AccountPolicy {
	p.BotLoop = channels.BotLoopFor(layers...)
	return p
}
