package whatsapp

import (
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// Network maps channels.whatsapp onto adapter settings. The linked device
// lives in the gateway's database; an account that was never linked
// reports "logged-out" until `openclaw channels login --channel whatsapp`
// links it, which makes WhatsApp the network web.login.* link by default.
func Network(h channels.Host) channels.Network {
	return channels.Network{
		Name: "whatsapp", Label: "WhatsApp", DeviceLogin: true, AckWhenConfigured: true, VoiceNotes: true,
		Accounts: func(cfg *config.Config) []channels.AccountSpec { return accounts(h, cfg) },
	}
}

func accounts(h channels.Host, cfg *config.Config) []channels.AccountSpec {
	wc := cfg.Channels.Whatsapp
	if !wc.Configured() {
		return nil
	}
	var specs []channels.AccountSpec
	for _, id := range wc.AccountIDs() {
		acct, _ := wc.Account(id)
		opts := Options{
			AccountID: id, DB: h.DB, TextLimit: acct.TextChunkLimit, ChunkMode: acct.Streaming.ChunkMode,
			MediaMaxMb: channels.MediaMaxMb(cfg, acct.MediaMaxMb), SendReadReceipts: channels.BoolOr(acct.SendReadReceipts, true),
			Log: h.AccountLog("whatsapp", id),
		}
		specs = append(specs, channels.AccountSpec{
			AccountID: id, Default: id == wc.DefaultAccountID(), Enabled: acct.IsEnabled(),
			Policy:      policy(cfg, acct, wc.Actions),
			Fingerprint: channels.Fingerprint(opts.TextLimit, opts.ChunkMode, opts.MediaMaxMb, opts.SendReadReceipts),
			New:         func() (channels.Adapter, error) { return New(opts), nil },
		})
	}
	return specs
}

func policy(cfg *config.Config, a config.WhatsappAccount, actions config.WhatsappActions) channels.AccountPolicy {
	p := channels.CommonPolicy(cfg, a.ChannelCommon, config.PreviewStreaming{ChunkMode: a.Streaming.ChunkMode}, 4000)
	p.GroupAllowFrom = a.GroupAllowFrom
	const k = "channels.whatsapp.actions."
	p.ActionsOff = channels.ActionsOff(
		channels.ActionSwitch{Key: k + "sendMessage", On: actions.SendMessage, Default: true, Actions: []string{"send"}},
		channels.ActionSwitch{Key: k + "reactions", On: actions.Reactions, Default: true, Actions: []string{"react"}},
		channels.ActionSwitch{Key: k + "polls", On: actions.Polls, Default: true, Actions: []string{"poll"}},
	)
	for jid, g := range a.Groups {
		p.Groups[jid] = channels.GroupPolicy{Enabled: true, RequireMention: channels.BoolOr(g.RequireMention, true), SystemPrompt: g.SystemPrompt,
			ToolsAllow: g.Tools.Allow, ToolsDeny: g.Tools.Deny}
	}
	p.Direct = map[string]channels.GroupPolicy{}
	for num, d := range a.Direct {
		p.Direct[num] = channels.GroupPolicy{Enabled: true, SystemPrompt: d.SystemPrompt}
	}
	return p
}
