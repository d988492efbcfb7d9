package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/discord"
	"github.com/openclaw-go/openclaw/channels/slack"
	"github.com/openclaw-go/openclaw/channels/telegram"
	"github.com/openclaw-go/openclaw/channels/whatsapp"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/message"
)

// wireChannels builds the channel manager over the agents service and the
// tool approvals. It is started once the listener is up, so webhooks can
// land.
func (s *System) wireChannels() {
	s.channels = channels.New(s.current().snap.Config, channels.Options{
		Store:           s.store,
		Log:             s.log.With("component", "channels"),
		Dispatcher:      agentDispatcher{svc: s.agents, owner: s.chatOwner},
		Approver:        approvalResolver{a: s.approvals, owner: s.chatOwner},
		Networks:        []channels.Network{telegramNetwork(s), discordNetwork(s), slackNetwork(s), whatsappNetwork(s)},
		Workspace:       s.agents.Workspace,
		BootstrapOwner:  s.bootstrapOwner,
		OwnerConfigured: func() bool { return len(s.current().snap.Config.Commands.OwnerAllowFrom) > 0 },
		OnStatus: func(channel, accountID string, st channels.Status) {
			// Operators see a channel connect or fail as it happens.
			s.log.Info("channel state", "channel", channel, "accountId", accountID, "state", st.State, "detail", st.Detail)
			go s.srv.Broadcast(protocol.EventHealth, json.RawMessage(s.admin.Health(true)))
		},
		OnPairing: func(r channels.PairingRequest, resolved string) {
			// The code stays out of the event: it is the stranger's
			// password, shown only to channels.pairing.list.
			p := map[string]any{"requestId": r.RequestID, "channel": r.Channel, "accountId": r.AccountID, "senderLabel": r.SenderLabel}
			event := protocol.EventChannelPairingRequested
			if resolved != "" {
				event, p["decision"] = protocol.EventChannelPairingResolved, resolved
			} else {
				p["expiresAtMs"] = r.ExpiresAt.UnixMilli()
			}
			s.srv.Broadcast(event, p)
		},
		Mount:   s.webhooks.mount,
		Unmount: s.webhooks.unmount,
		DefaultAgent: func(cfg *config.Config) string {
			return cfg.DefaultAgentID()
		},
		AgentMentionPatterns: func(cfg *config.Config, agentID string) []string {
			return cfg.Agents.Entries[agentID].GroupChat.MentionPatterns
		},
	})
	s.channels.Register(s.srv)
}

// chatOwner says whether a chat sender is the owner under the running
// config.
func (s *System) chatOwner(channel, senderID string) bool {
	return isChatOwner(s.current().snap.Config, channel, senderID)
}

// agentDispatcher runs channel messages as agent turns, with the owner's
// rights only for a sender in commands.ownerAllowFrom.
type agentDispatcher struct {
	svc   *agents.Service
	owner func(channel, senderID string) bool
}

func (d agentDispatcher) Dispatch(ctx context.Context, req channels.Dispatch) (channels.Reply, error) {
	run, _, err := d.svc.Start(ctx, agents.StartRequest{
		AgentID: req.AgentID, SessionKey: req.SessionKey, Message: req.Text, RunID: req.RunID,
		ExtraSystemPrompt: req.ExtraSystemPrompt, Owner: d.owner(req.Origin.Channel, req.SenderID),
		// A sender who passed the chat's gate may use the gateway's
		// commands; answering approvals is the owner's alone.
		Commands: &agents.CommandSender{ID: req.Origin.Channel + ":" + req.SenderID, CanApprove: d.owner(req.Origin.Channel, req.SenderID)},
	})
	if err != nil {
		return channels.Reply{}, err
	}
	select {
	case <-run.Done():
	case <-ctx.Done():
		return channels.Reply{}, ctx.Err()
	}
	res := run.Result()
	switch res.Status {
	case "ok":
		return channels.Reply{Text: res.Text}, nil
	case "aborted":
		if ctx.Err() != nil {
			return channels.Reply{}, ctx.Err()
		}
		return channels.Reply{}, nil
	}
	msg := res.Error
	if msg == "" {
		msg = "the agent run ended with status " + res.Status
	}
	return channels.Reply{}, errors.New(msg)
}

// approvalResolver settles Tool Guard approvals from chat buttons. Only
// the owner's press counts: the request is posted in the chat whose turn
// asked, so anyone else pressing Allow would be approving their own call.
type approvalResolver struct {
	a     *tools.Approvals
	owner func(channel, senderID string) bool
}

func (r approvalResolver) ResolveApproval(ctx context.Context, id, decision, by string) error {
	if r.a == nil {
		return errors.New("approvals are not available")
	}
	channel, sender, _ := strings.Cut(by, ":")
	if !r.owner(channel, sender) {
		return errors.New("only the owner can answer approvals here (commands.ownerAllowFrom)")
	}
	return r.a.Resolve(ctx, id, decision)
}

// telegramNetwork maps channels.telegram onto adapter settings.
func telegramNetwork(s *System) channels.Network {
	return channels.Network{
		Name: "telegram", Label: "Telegram",
		Accounts: func(cfg *config.Config) []channels.AccountSpec {
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
				opts := telegram.Options{
					AccountID: id, Token: token, APIRoot: acct.APIRoot, Proxy: acct.Proxy,
					WebhookURL: acct.WebhookURL, WebhookSecret: acct.WebhookSecret.Value, WebhookPath: path, Throttle: s.srv.WebhookThrottle(path),
					TextLimit: acct.TextChunkLimit, ChunkMode: acct.Streaming.ChunkMode, MediaMaxMb: acct.MediaMaxMb,
					Log: s.log.With("component", "channels", "channel", "telegram", "accountId", id),
				}
				specs = append(specs, channels.AccountSpec{
					AccountID: id, Name: acct.Name, Default: isDefault, Enabled: acct.ChannelCommon.IsEnabled(),
					Policy: telegramPolicy(cfg, acct), Fingerprint: fingerprint(token, opts.APIRoot, opts.Proxy, opts.WebhookURL, opts.WebhookSecret, opts.WebhookPath, opts.TextLimit, opts.MediaMaxMb, opts.ChunkMode),
					New: func() (channels.Adapter, error) {
						if tokErr != nil {
							return nil, fmt.Errorf("channels.telegram account %q: read tokenFile: %w", id, tokErr)
						}
						if token == "" {
							return nil, fmt.Errorf("channels.telegram account %q has no bot token: set botToken, tokenFile or TELEGRAM_BOT_TOKEN", id)
						}
						return telegram.New(opts), nil
					},
				})
			}
			return specs
		},
	}
}

// fingerprint identifies the settings an adapter is built from; a reload
// restarts the account only when it changes. Hashed, so no token is kept
// in the clear in one more place.
func fingerprint(parts ...any) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprint(h, p, "\x00")
	}
	return hex.EncodeToString(h.Sum(nil))
}

// discordNetwork maps channels.discord onto adapter settings. The API
// and gateway URLs can be moved with OPENCLAW_DISCORD_API_BASE and
// OPENCLAW_DISCORD_GATEWAY_URL (a proxy, or a test double).
func discordNetwork(s *System) channels.Network {
	return channels.Network{
		Name: "discord", Label: "Discord",
		Accounts: func(cfg *config.Config) []channels.AccountSpec {
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
					token = s.opts.Getenv("DISCORD_BOT_TOKEN")
				}
				opts := discord.Options{
					AccountID: id, Token: token, APIBase: s.opts.Getenv("OPENCLAW_DISCORD_API_BASE"),
					GatewayURL: s.opts.Getenv("OPENCLAW_DISCORD_GATEWAY_URL"),
					TextLimit:  acct.TextChunkLimit, MaxLinesPerMessage: acct.MaxLinesPerMessage, ChunkMode: acct.Streaming.ChunkMode,
					AllowBots: acct.AllowBots, MediaMaxMb: acct.MediaMaxMb,
					Log: s.log.With("component", "channels", "channel", "discord", "accountId", id),
				}
				specs = append(specs, channels.AccountSpec{
					AccountID: id, Name: acct.Name, Default: isDefault, Enabled: acct.IsEnabled(),
					Policy:      discordPolicy(cfg, acct),
					Fingerprint: fingerprint(token, opts.APIBase, opts.GatewayURL, opts.TextLimit, opts.MaxLinesPerMessage, opts.ChunkMode, opts.AllowBots, opts.MediaMaxMb),
					New: func() (channels.Adapter, error) {
						if token == "" {
							return nil, fmt.Errorf("channels.discord account %q has no bot token: set token or DISCORD_BOT_TOKEN", id)
						}
						return discord.New(opts), nil
					},
				})
			}
			return specs
		},
	}
}

// slackNetwork maps channels.slack onto adapter settings. The Web API
// base can be moved with OPENCLAW_SLACK_API_URL (a proxy, or a test
// double).
func slackNetwork(s *System) channels.Network {
	return channels.Network{
		Name: "slack", Label: "Slack",
		Accounts: func(cfg *config.Config) []channels.AccountSpec {
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
					bot = s.opts.Getenv("SLACK_BOT_TOKEN")
				}
				if isDefault && app == "" && acct.Mode != "http" {
					app = s.opts.Getenv("SLACK_APP_TOKEN")
				}
				path := acct.WebhookPath
				if path == "" {
					path = "/slack/events/" + id
				}
				slash := acct.SlashCommand.Name
				if !boolOr(acct.SlashCommand.Enabled, true) {
					slash = "-" // a name Slack never sends: the command is off
				}
				opts := slack.Options{
					AccountID: id, BotToken: bot, AppToken: app, SigningSecret: acct.SigningSecret.Value, Mode: acct.Mode,
					APIURL: s.opts.Getenv("OPENCLAW_SLACK_API_URL"), WebhookPath: path, Throttle: s.srv.WebhookThrottle(path), TextLimit: acct.TextChunkLimit,
					ChunkMode: acct.Streaming.ChunkMode, MediaMaxMb: acct.MediaMaxMb, SlashCommand: slash,
					Log: s.log.With("component", "channels", "channel", "slack", "accountId", id),
				}
				if opts.Mode == "" {
					opts.Mode = "socket"
				}
				specs = append(specs, channels.AccountSpec{
					AccountID: id, Name: acct.Name, Default: isDefault, Enabled: acct.IsEnabled(),
					Policy: slackPolicy(cfg, acct),
					Fingerprint: fingerprint(bot, app, opts.SigningSecret, opts.Mode, opts.APIURL, opts.WebhookPath, opts.TextLimit,
						opts.ChunkMode, opts.MediaMaxMb, opts.SlashCommand),
					New: func() (channels.Adapter, error) {
						if bot == "" {
							return nil, fmt.Errorf("channels.slack account %q has no botToken (or SLACK_BOT_TOKEN)", id)
						}
						if opts.Mode == "socket" && app == "" {
							return nil, fmt.Errorf("channels.slack account %q: Socket Mode needs appToken (or SLACK_APP_TOKEN); for HTTP Events set mode \"http\" and signingSecret", id)
						}
						return slack.New(opts), nil
					},
				})
			}
			return specs
		},
	}
}

// whatsappNetwork maps channels.whatsapp onto adapter settings. The
// linked device lives in the gateway's database; an account that was
// never linked reports "logged-out" until `openclaw channels login
// --channel whatsapp` links it.
func whatsappNetwork(s *System) channels.Network {
	return channels.Network{
		Name: "whatsapp", Label: "WhatsApp",
		Accounts: func(cfg *config.Config) []channels.AccountSpec {
			wc := cfg.Channels.Whatsapp
			if !wc.Configured() {
				return nil
			}
			var specs []channels.AccountSpec
			for _, id := range wc.AccountIDs() {
				acct, _ := wc.Account(id)
				opts := whatsapp.Options{
					AccountID: id, DB: s.store.DB, TextLimit: acct.TextChunkLimit, ChunkMode: acct.Streaming.ChunkMode,
					MediaMaxMb: acct.MediaMaxMb, SendReadReceipts: boolOr(acct.SendReadReceipts, true),
					Log: s.log.With("component", "channels", "channel", "whatsapp", "accountId", id),
				}
				specs = append(specs, channels.AccountSpec{
					AccountID: id, Default: id == wc.DefaultAccountID(), Enabled: acct.IsEnabled(),
					Policy:      whatsappPolicy(cfg, acct),
					Fingerprint: fingerprint(opts.TextLimit, opts.ChunkMode, opts.MediaMaxMb, opts.SendReadReceipts),
					New:         func() (channels.Adapter, error) { return whatsapp.New(opts), nil },
				})
			}
			return specs
		},
	}
}

// commonPolicy is the part of a channel account's policy every network
// shares.
func commonPolicy(cfg *config.Config, c config.ChannelCommon, textLimit int) channels.AccountPolicy {
	p := channels.AccountPolicy{
		DMPolicy: c.DMPolicy, AllowFrom: c.AllowFrom, GroupPolicy: c.GroupPolicy,
		MentionPatterns: c.MentionPatterns, TextLimit: c.TextChunkLimit, ChunkMode: c.Streaming.ChunkMode,
		ReplyToMode: c.ReplyToMode, ResponsePrefix: c.ResponsePrefix, Groups: map[string]channels.GroupPolicy{},
	}
	if p.GroupPolicy == "" {
		p.GroupPolicy = cfg.Channels.Defaults.GroupPolicy
	}
	if p.TextLimit == 0 {
		p.TextLimit = textLimit
	}
	return p
}

func telegramPolicy(cfg *config.Config, a config.TelegramAccount) channels.AccountPolicy {
	p := commonPolicy(cfg, a.ChannelCommon, 4000)
	p.GroupAllowFrom = a.GroupAllowFrom
	for id, g := range a.Groups {
		gp := channels.GroupPolicy{
			Enabled: boolOr(g.Enabled, true), RequireMention: boolOr(g.RequireMention, true),
			AllowFrom: g.AllowFrom, SystemPrompt: g.SystemPrompt, Topics: map[string]channels.GroupPolicy{},
		}
		for tid, t := range g.Topics {
			gp.Topics[tid] = channels.GroupPolicy{
				Enabled: boolOr(t.Enabled, true), RequireMention: boolOr(t.RequireMention, gp.RequireMention),
				AllowFrom: t.AllowFrom, SystemPrompt: strings.TrimSpace(gp.SystemPrompt + "\n" + t.SystemPrompt), AgentID: t.AgentID,
			}
		}
		p.Groups[id] = gp
	}
	return p
}

// discordPolicy maps guilds{<id>{channels{<id>}}} onto group entries: a
// server's entry covers its channels, a channel's own entry wins.
func discordPolicy(cfg *config.Config, a config.DiscordAccount) channels.AccountPolicy {
	p := commonPolicy(cfg, a.ChannelCommon, 2000)
	p.AllowBots = a.AllowBots
	if !boolOr(a.DM.Enabled, true) {
		p.DMPolicy = "disabled"
	}
	for gid, g := range a.Guilds {
		guild := channels.GroupPolicy{Enabled: true, RequireMention: boolOr(g.RequireMention, true), AllowFrom: g.Users}
		if all, ok := g.Channels["*"]; ok {
			guild = discordChannelPolicy(guild, all)
		}
		p.Groups[gid] = guild
		for cid, c := range g.Channels {
			if cid != "*" {
				p.Groups[cid] = discordChannelPolicy(guild, c)
			}
		}
	}
	return p
}

func discordChannelPolicy(guild channels.GroupPolicy, c config.DiscordGuildChannel) channels.GroupPolicy {
	gp := guild
	gp.Enabled = boolOr(c.Enabled, true)
	gp.RequireMention = boolOr(c.RequireMention, guild.RequireMention)
	if len(c.Users) > 0 {
		gp.AllowFrom = c.Users
	}
	gp.SystemPrompt = c.SystemPrompt
	return gp
}

func slackPolicy(cfg *config.Config, a config.SlackAccount) channels.AccountPolicy {
	p := commonPolicy(cfg, a.ChannelCommon, 4000)
	if p.ReplyToMode == "" {
		// A Slack reply-to is a thread: "first" would thread the first
		// chunk and leave the rest in the channel.
		p.ReplyToMode = "off"
	}
	p.AllowBots = a.AllowBots
	if !boolOr(a.DM.Enabled, true) {
		p.DMPolicy = "disabled"
	}
	mention := boolOr(a.RequireMention, true)
	for cid, c := range a.Channels {
		p.Groups[cid] = channels.GroupPolicy{
			Enabled: boolOr(c.Enabled, true), RequireMention: boolOr(c.RequireMention, mention),
			AllowFrom: c.Users, SystemPrompt: c.SystemPrompt,
		}
	}
	if p.GroupPolicy == "open" {
		if _, ok := p.Groups["*"]; !ok {
			p.Groups["*"] = channels.GroupPolicy{Enabled: true, RequireMention: mention}
		}
	}
	return p
}

func whatsappPolicy(cfg *config.Config, a config.WhatsappAccount) channels.AccountPolicy {
	p := commonPolicy(cfg, a.ChannelCommon, 4000)
	p.GroupAllowFrom = a.GroupAllowFrom
	for jid, g := range a.Groups {
		p.Groups[jid] = channels.GroupPolicy{Enabled: true, RequireMention: boolOr(g.RequireMention, true), SystemPrompt: g.SystemPrompt}
	}
	return p
}

func boolOr(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

// webhookRouter serves adapters' webhooks on the gateway port; adapters
// come and go with config reloads, which a ServeMux cannot follow.
type webhookRouter struct {
	mu    sync.RWMutex
	paths map[string]http.Handler
}

func (w *webhookRouter) mount(path string, h http.Handler) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.paths == nil {
		w.paths = map[string]http.Handler{}
	}
	w.paths[path] = h
}

func (w *webhookRouter) unmount(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.paths, path)
}

func (w *webhookRouter) lookup(path string) (http.Handler, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	h, ok := w.paths[path]
	return h, ok
}

// channelMessenger gives the message tools the channels. The manager is
// built after the tools, so it is looked up at call time.
type channelMessenger struct{ s *System }

func (c channelMessenger) Conversation(ctx context.Context, sessionKey, runID string) (message.Conversation, bool, error) {
	if c.s.channels == nil || sessionKey == "" {
		return message.Conversation{}, false, nil
	}
	r, ok, err := c.s.channels.RunRoute(ctx, sessionKey, runID)
	return message.Conversation{Channel: r.Channel, AccountID: r.AccountID, ChatID: r.ChatID, ThreadID: r.ThreadID}, ok, err
}

func (c channelMessenger) Act(ctx context.Context, to message.Conversation, action string, params map[string]any, key string) (any, error) {
	if c.s.channels == nil {
		return nil, errors.New("channels are not running")
	}
	ar, err := channels.ActionFromParams(to.Channel, to.AccountID, action, params)
	if err != nil {
		return nil, err
	}
	ar.To = channels.Target{ChatID: to.ChatID, ThreadID: to.ThreadID}
	ar.IdempotencyKey = key
	return c.s.channels.Action(ctx, ar)
}

func (c channelMessenger) SendFile(ctx context.Context, to message.Conversation, file, caption, key string) (any, error) {
	if c.s.channels == nil {
		return nil, errors.New("channels are not running")
	}
	return c.s.channels.Send(ctx, channels.SendRequest{
		Channel: to.Channel, AccountID: to.AccountID, To: channels.Target{ChatID: to.ChatID, ThreadID: to.ThreadID},
		Text: caption, Attachments: []channels.Attachment{{Path: file}}, IdempotencyKey: key,
	})
}

// approvalFanout sends approval events to operators on the bus and, for
// sessions that came from a chat, asks in that chat with buttons.
type approvalFanout struct{ s *System }

func (f approvalFanout) Broadcast(event string, payload any) {
	f.s.srv.Broadcast(event, payload)
	if event != tools.EventApprovalRequested || f.s.channels == nil {
		return
	}
	p, _ := payload.(map[string]any)
	req, _ := p["request"].(map[string]any)
	id, _ := p["id"].(string)
	key, _ := req["sessionKey"].(string)
	if id == "" || key == "" {
		return
	}
	summary := fmt.Sprintf("%v %v", req["tool"], req["args"])
	if reason, _ := req["reason"].(string); reason != "" {
		summary += "\n(" + reason + ")"
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if _, err := f.s.channels.AskApproval(ctx, key, f.runOf(ctx, id), id, summary); err != nil {
			f.s.log.Warn("could not ask for approval in the chat", "sessionKey", key, "err", err)
		}
	}()
}

// runOf is the run that asked for approval id ("" when unknown): the
// chat to ask is that run's, not the session's last.
func (f approvalFanout) runOf(ctx context.Context, id string) string {
	if f.s.approvals == nil {
		return ""
	}
	pending, err := f.s.approvals.List(ctx)
	if err != nil {
		f.s.log.Warn("could not look up the run of an approval", "id", id, "err", err)
		return ""
	}
	for _, p := range pending {
		if p.ID == id {
			return p.RunID
		}
	}
	return ""
}
