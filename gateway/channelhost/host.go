// Package channelhost is the gateway's wing for the chat channels: it
// builds the channel manager over the networks the gateway runs, runs
// channel messages as agent turns, settles Tool Guard approvals from chat
// buttons, serves the adapters' webhooks, gives the message tools the
// channels, and fans approval events out to the bus and to the chat that
// asked. It is built from Options, never from the gateway's root.
package channelhost

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/speech"
)

// Bus is the gateway's event bus: broadcasts to operators, and the
// failed-auth limiter a webhook's secret is checked under.
type Bus interface {
	Broadcast(event string, payload any)
	WebhookThrottle(path string) *rpc.HTTPAuthThrottle
}

// Agents runs turns and knows the agents' workspaces.
type Agents interface {
	Start(ctx context.Context, req agents.StartRequest) (run *agents.Run, dup bool, err error)
	Workspace(agentID string) (string, error)
	// SendPolicy is session.sendPolicy's answer (allow or deny) for
	// delivering into a session's chat.
	SendPolicy(ctx context.Context, key, channel, chatType string) string
	// Abort stops a session's running turn ("" run id: whichever runs).
	Abort(sessionKey, runID string) bool
	// Steer hands text to a session's running turn; false when none takes it.
	Steer(sessionKey, text string) bool
	// SkillCommands lists the agent's skills as slash commands.
	SkillCommands(ctx context.Context, agentID string) []agents.SkillCommand
}

// ApprovalResolver settles a Tool Guard approval (the tools' approvals).
type ApprovalResolver interface {
	Resolve(ctx context.Context, id, decision string) error
}

// Options are what the channels need from the rest of the gateway.
type Options struct {
	// Config is the running config.
	Config func() *config.Config
	Store  *store.Store
	// Log is the gateway's logger; the manager and the networks log
	// under component "channels".
	Log    *slog.Logger
	Getenv func(string) string
	Bus    Bus
	Agents Agents
	// Approvals are the Tool Guard's approvals, nil until they are built:
	// the tools, which announce approvals through this wing, are built
	// after it.
	Approvals func() ApprovalResolver
	// Networks are the chat networks to run, in the order channels.status
	// lists them.
	Networks []func(channels.Host) channels.Network
	// IsOwner says whether a chat sender is the owner under cfg
	// (commands.ownerAllowFrom).
	IsOwner func(cfg *config.Config, channel, senderID string) bool
	// BootstrapOwner makes an approved sender the owner when none is
	// configured (channels.Options.BootstrapOwner).
	BootstrapOwner func(ctx context.Context, channel, senderID string) (status string, err error)
	// Health is the health snapshot, broadcast whenever an account's
	// state changes.
	Health func() json.RawMessage
}

// Host is the channel manager with its gateway bridges. It is a part of
// the gateway: Register adds the channel methods, Prepare/commit applies
// a reloaded config, Start (once the port listens, so a webhook can land)
// and Close run and stop the accounts.
type Host struct {
	*channels.Manager
	opts     Options
	webhooks webhookRouter
	posts    *approvalPosts // the messages carrying approval buttons
}

// New builds the channel manager; Start runs it.
func New(opts Options) *Host {
	h := &Host{opts: opts, posts: newApprovalPosts()}
	chLog := opts.Log.With("component", "channels")
	host := channels.Host{
		Log: chLog, Getenv: opts.Getenv, DB: opts.Store.DB,
		Throttle: func(path string) channels.SecretThrottle { return opts.Bus.WebhookThrottle(path) },
	}
	networks := make([]channels.Network, 0, len(opts.Networks))
	for _, network := range opts.Networks {
		networks = append(networks, network(host))
	}
	h.Manager = channels.New(opts.Config(), channels.Options{
		Store:      opts.Store,
		Log:        chLog,
		Dispatcher: agentDispatcher{svc: opts.Agents, owner: h.chatOwner, approver: h.chatApprover},
		Approver:   approvalResolver{approvals: opts.Approvals, approver: h.chatApprover, posts: h.posts},
		Networks:   networks,
		Workspace:  opts.Agents.Workspace,
		SkillCommands: func(ctx context.Context, agentID string) []channels.Command {
			var out []channels.Command
			for _, c := range opts.Agents.SkillCommands(ctx, agentID) {
				out = append(out, channels.Command{Name: c.Name, Description: c.Description})
			}
			return out
		},
		Speech:          &speech.Client{Getenv: opts.Getenv},
		BootstrapOwner:  opts.BootstrapOwner,
		OwnerConfigured: func() bool { return len(opts.Config().Commands.OwnerAllowFrom) > 0 },
		OnStatus: func(channel, accountID string, st channels.Status) {
			// Operators see a channel connect or fail as it happens.
			opts.Log.Info("channel state", "channel", channel, "accountId", accountID, "state", st.State, "detail", st.Detail)
			health := json.RawMessage(opts.Health())
			go opts.Bus.Broadcast(protocol.EventHealth, health)
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
			opts.Bus.Broadcast(event, p)
		},
		Mount:   h.webhooks.mount,
		Unmount: h.webhooks.unmount,
		DefaultAgent: func(cfg *config.Config) string {
			return cfg.DefaultAgentID()
		},
		AgentMentionPatterns: func(cfg *config.Config, agentID string) []string {
			return cfg.MentionPatterns(agentID)
		},
	})
	return h
}

// chatOwner says whether a chat sender is the owner under the running
// config.
func (h *Host) chatOwner(channel, senderID string) bool {
	return h.opts.IsOwner(h.opts.Config(), channel, senderID)
}

// chatApprover says whether a chat sender may answer approval prompts:
// the owner, or one of the network's execApprovals approvers.
func (h *Host) chatApprover(channel, senderID string) bool {
	cfg := h.opts.Config()
	return h.opts.IsOwner(cfg, channel, senderID) || cfg.IsApprover(channel, senderID)
}

// Name names the part.
func (h *Host) Name() string { return "channels" }

// Register adds the channel methods. The adapters' webhooks are not
// routes of the mux: they come and go with reloads, at paths the config
// chooses, so the gateway's catch-all asks Webhook for them.
func (h *Host) Register(srv *rpc.Server, _ *http.ServeMux) { h.Manager.Register(srv) }

// Prepare has nothing to check: an account whose settings cannot work is
// reported in its status, not refused. The commit starts, stops or
// restarts the accounts that changed.
func (h *Host) Prepare(snap *config.Snapshot) (func(), error) {
	return func() { h.SetConfig(snap.Config) }, nil
}

// Close stops the accounts and the pipeline; work in flight resumes at
// the next start.
func (h *Host) Close(ctx context.Context) error {
	h.Manager.Close(ctx)
	return nil
}

// Webhook is the adapter's handler for a request path, if one is mounted
// there.
func (h *Host) Webhook(path string) (http.Handler, bool) { return h.webhooks.lookup(path) }
