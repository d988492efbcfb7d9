package telegram

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// Network maps channels.telegram onto adapter settings: Telegram is
// "telegram" (or "tg" in targets and allowlists), receives by long polling
// unless a webhook is set, and its threads are forum topics.
func Network(h channels.Host) channels.Network {
	return channels.Network{
		Name: "telegram", Label: "Telegram", Aliases: []string{"tg"},
		TopicThreads: true, ReceiveMode: "polling", VoiceNotes: true, RoomEvents: true,
		Accounts: func(cfg *config.Config) []channels.AccountSpec { return accounts(h, cfg) },
	}
}

func accounts(h channels.Host, cfg *config.Config) []channels.AccountSpec {
	tg := cfg.Channels.Telegram
	if !tg.Configured() {
		return nil
	}
	var specs []channels.AccountSpec
	for _, id := range tg.AccountIDs() {
		acct, _ := tg.Account(id)
		isDefault := id == tg.DefaultAccountID()
		token, tokErr := acct.Token(isDefault)
		path := acct.WebhookPath
		if path == "" {
			path = "/telegram/webhook/" + id
		}
		opts := Options{
			AccountID: id, Token: token, APIRoot: acct.APIRoot, Proxy: acct.Proxy,
			WebhookURL: acct.WebhookURL, WebhookSecret: acct.WebhookSecret.Value, WebhookPath: path,
			TextLimit: acct.TextChunkLimit, ChunkMode: acct.Streaming.ChunkMode, MediaMaxMb: channels.MediaMaxMb(cfg, acct.MediaMaxMb),
			NoLinkPreview: !channels.BoolOr(acct.LinkPreview, true), Commands: customCommands(acct.CustomCommands),
			Log: h.AccountLog("telegram", id), Offsets: Offsets{DB: h.DB},
		}
		if h.Throttle != nil {
			opts.Throttle = h.Throttle(path)
		}
		specs = append(specs, channels.AccountSpec{Commands: acct.Commands,
			AccountID: id, Name: acct.Name, Default: isDefault, Enabled: acct.ChannelCommon.IsEnabled(),
			Policy: policy(cfg, acct), Fingerprint: channels.Fingerprint(token, opts.APIRoot, opts.Proxy, opts.WebhookURL, opts.WebhookSecret, opts.WebhookPath, opts.TextLimit, opts.MediaMaxMb, opts.ChunkMode, opts.NoLinkPreview, opts.Commands),
			New: func() (channels.Adapter, error) {
				if tokErr != nil {
					return nil, fmt.Errorf("channels.telegram account %q: read tokenFile: %w", id, tokErr)
				}
				if token == "" {
					return nil, fmt.Errorf("channels.telegram account %q has no bot token: set botToken, tokenFile or TELEGRAM_BOT_TOKEN", id)
				}
				return New(opts), nil
			},
		})
	}
	return specs
}

// policy maps an account's groups and their forum topics: a topic
// inherits its group's mention rule and adds to its system prompt.
func policy(cfg *config.Config, a config.TelegramAccount) channels.AccountPolicy {
	p := channels.CommonPolicy(cfg, a.ChannelCommon, a.Streaming, 4000)
	p.GroupAllowFrom = a.GroupAllowFrom
	p.ActionsOff = actionsOff(a.Actions)
	p.ErrorPolicy = a.ErrorPolicy
	for id, g := range a.Groups {
		gp := channels.GroupPolicy{
			Enabled: channels.BoolOr(g.Enabled, true), RequireMention: channels.BoolOr(g.RequireMention, true),
			AllowFrom: g.AllowFrom, SystemPrompt: g.SystemPrompt, Topics: map[string]channels.GroupPolicy{},
			ToolsAllow: g.Tools.Allow, ToolsDeny: g.Tools.Deny, ErrorPolicy: g.ErrorPolicy,
		}
		for tid, t := range g.Topics {
			gp.Topics[tid] = channels.GroupPolicy{
				Enabled: channels.BoolOr(t.Enabled, true), RequireMention: channels.BoolOr(t.RequireMention, gp.RequireMention),
				AllowFrom: t.AllowFrom, SystemPrompt: strings.TrimSpace(gp.SystemPrompt + "\n" + t.SystemPrompt), AgentID: t.AgentID,
				ToolsAllow: gp.ToolsAllow, ToolsDeny: gp.ToolsDeny, // a topic has no tools of its own
				ErrorPolicy: cmp.Or(t.ErrorPolicy, gp.ErrorPolicy),
			}
		}
		p.Groups[id] = gp
	}
	p.Direct = map[string]channels.GroupPolicy{}
	for id, d := range a.Direct {
		p.Direct[id] = channels.GroupPolicy{Enabled: true, SystemPrompt: d.SystemPrompt, ToolsAllow: d.Tools.Allow, ToolsDeny: d.Tools.Deny}
	}
	return p
}

// actionsOff maps channels.telegram.actions (forum-topic editing has no
// message action here). OpenClaw has no switch for kick, ban and
// timeout on Telegram: the message tool runs them for the owner only.
func actionsOff(a config.TelegramActions) map[string]string {
	const k = "channels.telegram.actions."
	return channels.ActionsOff(
		channels.ActionSwitch{Key: k + "sendMessage", On: a.SendMessage, Default: true, Actions: []string{"send", "thread-reply", "poll"}},
		channels.ActionSwitch{Key: k + "deleteMessage", On: a.DeleteMessage, Default: true, Actions: []string{"delete"}},
		channels.ActionSwitch{Key: k + "editMessage", On: a.EditMessage, Default: true, Actions: []string{"edit"}},
		channels.ActionSwitch{Key: k + "reactions", On: a.Reactions, Default: true, Actions: []string{"react", "reactions"}},
		channels.ActionSwitch{Key: k + "poll", On: a.Poll, Default: true, Actions: []string{"poll"}},
		channels.ActionSwitch{Key: k + "createForumTopic", On: a.CreateForumTopic, Default: true, Actions: []string{"thread-create"}},
		channels.ActionSwitch{Key: k + "sticker", On: &a.Sticker, Default: false, Actions: []string{"sticker"}},
	)
}

// customCommands are the menu entries channels.telegram.customCommands
// adds after the built-in ones.
func customCommands(cc []config.TelegramCustomCommand) []channels.Command {
	var out []channels.Command
	for _, c := range cc {
		out = append(out, channels.Command{Name: c.Command, Description: c.Description})
	}
	return out
}
