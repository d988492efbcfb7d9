package gateway

import (
	"context"
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
		Networks:        s.channelNetworks(),
		Workspace:       s.agents.Workspace,
		BootstrapOwner:  s.bootstrapOwner,
		OwnerConfigured: func() bool { return len(s.current().snap.Config.Commands.OwnerAllowFrom) > 0 },
		OnStatus: func(channel, accountID string, st channels.Status) {
			// Operators see a channel connect or fail as it happens.
			s.log.Info("channel state", "channel", channel, "accountId", accountID, "state", st.State, "detail", st.Detail)
			go s.srv.Broadcast(protocol.EventHealth, json.RawMessage(s.health.get(true)))
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

// channelNetworks are the chat networks the gateway runs, in the order
// channels.status lists them: a new network is its package and one line
// here.
func (s *System) channelNetworks() []channels.Network {
	host := channels.Host{
		Log: s.log.With("component", "channels"), Getenv: s.opts.Getenv, DB: s.store.DB,
		Throttle: func(path string) channels.SecretThrottle { return s.srv.WebhookThrottle(path) },
	}
	var out []channels.Network
	for _, network := range []func(channels.Host) channels.Network{telegram.Network, discord.Network, slack.Network, whatsapp.Network} {
		out = append(out, network(host))
	}
	return out
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
	ar, err := c.s.channels.ActionFromParams(to.Channel, to.AccountID, action, params)
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
