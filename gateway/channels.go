package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/telegram"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/message"
)

// wireChannels builds the channel manager over the agents service and the
// tool approvals. It is started once the listener is up, so webhooks can
// land.
func (s *System) wireChannels() {
	s.channels = channels.New(s.current().snap.Config, channels.Options{
		Store:      s.store,
		Log:        s.log.With("component", "channels"),
		Dispatcher: agentDispatcher{s.agents},
		Approver:   approvalResolver{s.approvals},
		Networks:   []channels.Network{telegramNetwork(s)},
		Workspace:  s.agents.Workspace,
		Mount:      s.webhooks.mount,
		Unmount:    s.webhooks.unmount,
		DefaultAgent: func(cfg *config.Config) string {
			return cfg.DefaultAgentID()
		},
		AgentMentionPatterns: func(cfg *config.Config, agentID string) []string {
			return cfg.Agents.Entries[agentID].GroupChat.MentionPatterns
		},
	})
	s.channels.Register(s.srv)
}

// agentDispatcher runs channel messages as agent turns.
type agentDispatcher struct{ svc *agents.Service }

func (d agentDispatcher) Dispatch(ctx context.Context, req channels.Dispatch) (channels.Reply, error) {
	run, _, err := d.svc.Start(ctx, agents.StartRequest{
		AgentID: req.AgentID, SessionKey: req.SessionKey, Message: req.Text, RunID: req.RunID,
		ExtraSystemPrompt: req.ExtraSystemPrompt,
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

// approvalResolver settles Tool Guard approvals from chat buttons.
type approvalResolver struct{ a *tools.Approvals }

func (r approvalResolver) ResolveApproval(ctx context.Context, id, decision, by string) error {
	if r.a == nil {
		return errors.New("approvals are not available")
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
					AccountID: id, Token: token, APIRoot: acct.ApiRoot, Proxy: acct.Proxy,
					WebhookURL: acct.WebhookUrl, WebhookSecret: acct.WebhookSecret.Value, WebhookPath: path,
					TextLimit: acct.TextChunkLimit, ChunkMode: acct.Streaming.ChunkMode, MediaMaxMb: acct.MediaMaxMb,
					Log: s.log.With("component", "channels", "channel", "telegram", "accountId", id),
				}
				h := sha256.Sum256([]byte(strings.Join([]string{token, opts.APIRoot, opts.Proxy, opts.WebhookURL, opts.WebhookSecret, opts.WebhookPath,
					fmt.Sprint(opts.TextLimit, opts.MediaMaxMb), opts.ChunkMode}, "\x00")))
				specs = append(specs, channels.AccountSpec{
					AccountID: id, Name: acct.Name, Default: isDefault, Enabled: acct.IsEnabled(),
					Policy: telegramPolicy(cfg, acct), Fingerprint: hex.EncodeToString(h[:]),
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

func telegramPolicy(cfg *config.Config, a config.TelegramAccount) channels.AccountPolicy {
	p := channels.AccountPolicy{
		DMPolicy: a.DmPolicy, AllowFrom: a.AllowFrom, GroupPolicy: a.GroupPolicy, GroupAllowFrom: a.GroupAllowFrom,
		MentionPatterns: a.MentionPatterns, TextLimit: a.TextChunkLimit, ChunkMode: a.Streaming.ChunkMode,
		ReplyToMode: a.ReplyToMode, ResponsePrefix: a.ResponsePrefix, Groups: map[string]channels.GroupPolicy{},
	}
	if p.GroupPolicy == "" {
		p.GroupPolicy = cfg.Channels.Defaults.GroupPolicy
	}
	if p.TextLimit == 0 {
		p.TextLimit = 4000
	}
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

func (c channelMessenger) Conversation(ctx context.Context, sessionKey string) (message.Conversation, bool, error) {
	if c.s.channels == nil || sessionKey == "" {
		return message.Conversation{}, false, nil
	}
	r, ok, err := c.s.channels.RouteOf(ctx, sessionKey)
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
		if _, err := f.s.channels.AskApproval(ctx, key, id, summary); err != nil {
			f.s.log.Warn("could not ask for approval in the chat", "sessionKey", key, "err", err)
		}
	}()
}
