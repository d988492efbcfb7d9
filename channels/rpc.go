package channels

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// Register adds the channel methods to the bus.
func (m *Manager) Register(srv *rpc.Server) {
	srv.HandleFunc("channels.status", rpc.Typed(m.handleStatus))
	srv.HandleFunc("channels.start", m.handleStartStop(true))
	srv.HandleFunc("channels.stop", m.handleStartStop(false))
	srv.HandleFunc("channels.logout", rpc.Typed(m.handleLogout))
	srv.HandleFunc("channels.pairing.list", rpc.Typed(m.handlePairingList))
	srv.Handle("channels.pairing.approve", rpc.Route{Scope: protocol.ScopeDynamic, Handler: m.handlePairingApprove})
	srv.HandleFunc("channels.pairing.dismiss", rpc.Typed(m.handlePairingDismiss))
	srv.HandleFunc("send", rpc.Typed(m.handleSend))
	srv.HandleFunc("poll", rpc.Typed(m.handlePoll))
	srv.HandleFunc("message.action", rpc.Typed(m.handleMessageAction))
	srv.HandleFunc("web.login.start", rpc.Typed(m.handleLoginStart))
	srv.HandleFunc("web.login.wait", rpc.Typed(m.handleLoginWait))
	srv.HandleFunc("tts.status", rpc.Typed(m.handleTTSStatus))
	srv.HandleFunc("tts.providers", rpc.Typed(m.handleTTSProviders))
	srv.HandleFunc("tts.personas", rpc.Typed(m.handleTTSPersonas))
	srv.HandleFunc("tts.enable", rpc.Typed(m.handleTTSEnable))
	srv.HandleFunc("tts.disable", rpc.Typed(m.handleTTSDisable))
	srv.HandleFunc("tts.setProvider", rpc.Typed(m.handleTTSSetProvider))
	srv.HandleFunc("tts.setPersona", rpc.Typed(m.handleTTSSetPersona))
	srv.HandleFunc("tts.convert", rpc.Typed(m.handleTTSConvert))
	srv.HandleFunc("tts.speak", rpc.TypedStrict(m.handleTTSSpeak))
}

// Some params types are aliases of struct literals, not defined types: a
// mistyped field's error names the struct ("Go struct field .probe"), and
// clients have seen these texts. No check moves onto a Validate: the
// channel methods word their refusals "<method>: <why>" (bad), not as
// invalid params.
type (
	statusParams = struct {
		Probe     bool   `json:"probe"`
		TimeoutMs int    `json:"timeoutMs"`
		Channel   string `json:"channel"`
	}
	// accountParams name a channel and, optionally, one of its accounts.
	accountParams = struct {
		Channel   string `json:"channel"`
		AccountID string `json:"accountId"`
	}
	pollParams = struct {
		To              string   `json:"to"`
		Question        string   `json:"question"`
		Options         []string `json:"options"`
		MaxSelections   int      `json:"maxSelections"`
		DurationSeconds int      `json:"durationSeconds"`
		IsAnonymous     *bool    `json:"isAnonymous"`
		ThreadID        string   `json:"threadId"`
		Channel         string   `json:"channel"`
		AccountID       string   `json:"accountId"`
		IdempotencyKey  string   `json:"idempotencyKey"`
	}
	actionParams = struct {
		Channel        string         `json:"channel"`
		Action         string         `json:"action"`
		Params         map[string]any `json:"params"`
		AccountID      string         `json:"accountId"`
		SessionKey     string         `json:"sessionKey"`
		IdempotencyKey string         `json:"idempotencyKey"`
	}
)

func bad(method string, err error) error {
	return protocol.Errorf(protocol.CodeInvalidRequest, "%s: %v", method, err)
}

func millis(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

// Status describes every configured account, in OpenClaw's shape.
func (m *Manager) Status() map[string]any {
	cfg := m.cfg.Load()
	order := []string{}
	labels := map[string]string{}
	accounts := map[string][]map[string]any{}
	channels := map[string]any{}
	defaults := map[string]string{}
	for _, n := range m.opts.Networks {
		specs := n.Accounts(cfg)
		if len(specs) == 0 {
			continue
		}
		order = append(order, n.Name)
		labels[n.Name] = n.Label
		anyConnected := false
		for _, s := range specs {
			if s.Default {
				defaults[n.Name] = s.AccountID
			}
			entry := map[string]any{
				"accountId": s.AccountID, "enabled": s.Enabled, "configured": true,
				"running": false, "connected": false, "dmPolicy": cmp.Or(s.Policy.DMPolicy, "pairing"),
				"allowFrom": nonNil(s.Policy.AllowFrom), "healthState": string(StateStopped),
			}
			if s.Name != "" {
				entry["name"] = s.Name
			}
			if a, ok := m.account(n.Name, s.AccountID); ok {
				st, ad := a.snapshot(), a.adapterNow()
				entry["running"] = ad != nil
				entry["connected"] = st.State == StateConnected
				entry["healthState"] = string(st.State)
				entry["reconnectAttempts"] = st.Attempts
				entry["lastError"] = nilIfEmpty(st.LastError)
				entry["lastInboundAt"] = nilIfZero(a.lastIn.Load())
				entry["lastOutboundAt"] = nilIfZero(a.lastOut.Load())
				if st.Bot != "" {
					entry["bot"] = st.Bot
				}
				if st.Detail != "" {
					entry["detail"] = st.Detail
				}
				if st.State == StateConnected {
					entry["lastConnectedAt"] = millis(st.At)
					anyConnected = true
				}
				switch wh, ok := ad.(Webhook); {
				case ok && wh.WebhookPath() != "":
					entry["mode"] = "webhook"
					entry["webhookPath"] = wh.WebhookPath()
				case ad != nil:
					entry["mode"] = cmp.Or(n.ReceiveMode, "socket")
				}
			}
			accounts[n.Name] = append(accounts[n.Name], entry)
		}
		channels[n.Name] = map[string]any{"configured": true, "running": anyConnected}
	}
	return map[string]any{
		"ts": time.Now().UnixMilli(), "channelOrder": order, "channelLabels": labels,
		"channels": channels, "channelAccounts": accounts, "channelDefaultAccountId": defaults,
	}
}

func nilIfZero(ms int64) any {
	if ms == 0 {
		return nil
	}
	return ms
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (m *Manager) handleStatus(ctx context.Context, req *rpc.Request, p statusParams) (map[string]any, error) {
	st := m.Status()
	if p.Channel != "" {
		if !slices.Contains(st["channelOrder"].([]string), p.Channel) {
			return nil, bad(req.Method, fmt.Errorf("channel %q is not configured", p.Channel))
		}
	}
	return st, nil
}

// handleStartStop starts or stops accounts by hand; the config still
// decides what runs at the next start or reload.
func (m *Manager) handleStartStop(start bool) rpc.Handler {
	return rpc.Typed(func(ctx context.Context, req *rpc.Request, p accountParams) (startStopResult, error) {
		m.mu.Lock()
		var hit []*account
		for k, a := range m.accounts {
			if k.channel == p.Channel && (p.AccountID == "" || k.account == p.AccountID) {
				hit = append(hit, a)
			}
		}
		m.mu.Unlock()
		if len(hit) == 0 {
			return startStopResult{}, bad(req.Method, fmt.Errorf("no configured %q account %q", p.Channel, p.AccountID))
		}
		for _, a := range hit {
			if start && a.adapterNow() == nil {
				m.startAccount(a)
			} else if !start && a.adapterNow() != nil {
				m.stopAccount(ctx, a)
			}
		}
		return startStopResult{OK: true, Channel: p.Channel}, nil
	})
}

// startStopResult is the channels.start and channels.stop answer.
type startStopResult struct {
	OK      bool   `json:"ok"`
	Channel string `json:"channel"`
}

// logoutResult is the channels.logout answer.
type logoutResult struct {
	OK        bool   `json:"ok"`
	Channel   string `json:"channel"`
	AccountID string `json:"accountId"`
	Unlinked  bool   `json:"unlinked"`
}

// handleLogout unlinks a device (WhatsApp) or, for token-based networks,
// stops the account until the next start or config reload.
func (m *Manager) handleLogout(ctx context.Context, req *rpc.Request, p accountParams) (*logoutResult, error) {
	a, err := m.resolveAccount(p.Channel, p.AccountID)
	if err != nil {
		return nil, bad(req.Method, err)
	}
	unlinked, err := m.logout(ctx, a)
	if err != nil {
		return nil, err
	}
	return &logoutResult{OK: true, Channel: a.network.Name, AccountID: a.id, Unlinked: unlinked}, nil
}

// logout unlinks the account's device when its network links one, then
// stops the account. A stopped account's device is unlinked too, through
// an adapter built just for that (it is never started).
func (m *Manager) logout(ctx context.Context, a *account) (unlinked bool, err error) {
	ad := a.adapterNow()
	if spec := a.specNow(); ad == nil && spec.New != nil {
		if built, err := spec.New(); err == nil {
			ad = built
		}
	}
	if flow, ok := ad.(LoginFlow); ok {
		if err := flow.Logout(ctx); err != nil {
			return false, fmt.Errorf("%s logout: %w", a.network.Label, err)
		}
		unlinked = true
	}
	m.stopAccount(ctx, a)
	return unlinked, nil
}

func (m *Manager) label(channel string) string {
	for _, n := range m.opts.Networks {
		if n.Name == channel {
			return n.Label
		}
	}
	return channel
}

// pairingListResult is the channels.pairing.list answer.
type pairingListResult struct {
	Accounts               []pairingAccountRow `json:"accounts"`
	Requests               []pairingRequestRow `json:"requests"`
	CommandOwnerConfigured bool                `json:"commandOwnerConfigured"`
	Limits                 pairingLimits       `json:"limits"`
}

// pairingAccountRow is an account strangers may ask to pair with.
type pairingAccountRow struct {
	Channel         string `json:"channel"`
	ChannelLabel    string `json:"channelLabel"`
	AccountID       string `json:"accountId"`
	NotifySupported bool   `json:"notifySupported"`
}

// pairingRequestRow is a pending pairing request; times are RFC 3339.
type pairingRequestRow struct {
	RequestID       string          `json:"requestId"`
	Channel         string          `json:"channel"`
	ChannelLabel    string          `json:"channelLabel"`
	AccountID       string          `json:"accountId"`
	SenderID        string          `json:"senderId"`
	SenderLabel     string          `json:"senderLabel"`
	Metadata        pairingMetadata `json:"metadata"`
	CreatedAt       string          `json:"createdAt"`
	LastSeenAt      string          `json:"lastSeenAt"`
	ExpiresAt       string          `json:"expiresAt"`
	NotifySupported bool            `json:"notifySupported"`
}

type pairingMetadata struct {
	Code string `json:"code"`
}

type pairingLimits struct {
	PendingPerAccount int   `json:"pendingPerAccount"`
	TTLMs             int64 `json:"ttlMs"`
}

func (m *Manager) handlePairingList(ctx context.Context, req *rpc.Request, p accountParams) (*pairingListResult, error) {
	reqs, err := m.db.pairingRequests(ctx, p.Channel, p.AccountID, time.Now())
	if err != nil {
		return nil, err
	}
	out := &pairingListResult{
		Accounts: []pairingAccountRow{}, Requests: make([]pairingRequestRow, 0, len(reqs)),
		CommandOwnerConfigured: m.opts.OwnerConfigured != nil && m.opts.OwnerConfigured(),
		Limits:                 pairingLimits{PendingPerAccount: PairingMaxPending, TTLMs: PairingTTL.Milliseconds()},
	}
	for _, r := range reqs {
		out.Requests = append(out.Requests, pairingRequestRow{
			RequestID: r.RequestID, Channel: r.Channel, ChannelLabel: m.label(r.Channel), AccountID: r.AccountID,
			SenderID: r.SenderID, SenderLabel: r.SenderLabel, Metadata: pairingMetadata{Code: r.Code},
			CreatedAt: r.CreatedAt.UTC().Format(time.RFC3339), LastSeenAt: r.LastSeenAt.UTC().Format(time.RFC3339),
			ExpiresAt: r.ExpiresAt.UTC().Format(time.RFC3339), NotifySupported: true,
		})
	}
	cfg := m.cfg.Load()
	for _, n := range m.opts.Networks {
		if p.Channel != "" && n.Name != p.Channel {
			continue
		}
		for _, s := range n.Accounts(cfg) {
			out.Accounts = append(out.Accounts, pairingAccountRow{Channel: n.Name, ChannelLabel: n.Label, AccountID: s.AccountID, NotifySupported: true})
		}
	}
	return out, nil
}

type pairingParams struct {
	Channel   string `json:"channel"`
	AccountID string `json:"accountId"`
	RequestID string `json:"requestId"`
	Notify    bool   `json:"notify"`
	// BootstrapCommandOwner also makes the sender the owner when
	// commands.ownerAllowFrom is empty; it needs operator.admin.
	BootstrapCommandOwner bool `json:"bootstrapCommandOwner"`
}

// pairingResult is the channels.pairing.approve answer.
type pairingResult struct {
	RequestID string `json:"requestId"`
	SenderID  string `json:"senderId"`
	// Notification is not-requested, sent or failed.
	Notification string `json:"notification"`
	// CommandOwnerBootstrap is not-requested, unavailable or what
	// BootstrapOwner said.
	CommandOwnerBootstrap string `json:"commandOwnerBootstrap"`
}

// dismissResult is the channels.pairing.dismiss answer.
type dismissResult struct {
	RequestID string `json:"requestId"`
	SenderID  string `json:"senderId"`
}

// handlePairingApprove stays an untyped handler: its scope check runs
// before the params are decoded, so a caller without the scope learns
// nothing about the params.
func (m *Manager) handlePairingApprove(ctx context.Context, req *rpc.Request) (any, error) {
	// Approving lets a stranger talk to an agent: pairing or admin scope.
	if !req.Conn.Has(protocol.ScopePairing) && !req.Conn.Has(protocol.ScopeAdmin) {
		return nil, protocol.MissingScope(protocol.ScopePairing)
	}
	var p pairingParams
	if err := req.Decode(&p); err != nil {
		return nil, err
	}
	if p.Channel == "" || p.RequestID == "" {
		return nil, bad(req.Method, errors.New("channel and requestId (or the pairing code) are required"))
	}
	// Making someone the owner hands them the gateway: admin only, as in
	// OpenClaw's catalog.
	if p.BootstrapCommandOwner && !req.Conn.Has(protocol.ScopeAdmin) {
		return nil, protocol.MissingScope(protocol.ScopeAdmin)
	}
	r, err := m.db.takePairing(ctx, p.Channel, p.AccountID, p.RequestID, true, time.Now())
	if errors.Is(err, ErrPairingNotFound) {
		return nil, bad(req.Method, err)
	}
	if err != nil {
		return nil, err
	}
	// The sender's waiting messages were gated as a stranger's.
	m.gateGen.Add(1)
	m.log.Info("channels: pairing approved", "channel", r.Channel, "accountId", r.AccountID, "requestId", r.RequestID)
	m.pairingEvent(r, "approved")
	notification := "not-requested"
	if p.Notify {
		notification = "sent"
		sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		_, err := m.Send(sctx, SendRequest{
			Channel: r.Channel, AccountID: r.AccountID, To: Target{ChatID: r.ChatID},
			Text: "You're approved. Send a message to start chatting.", IdempotencyKey: "pairing-approved-" + r.RequestID,
		})
		cancel()
		if err != nil {
			notification = "failed"
		}
	}
	owner := "not-requested"
	if p.BootstrapCommandOwner {
		owner = "unavailable"
		if m.opts.BootstrapOwner != nil {
			st, err := m.opts.BootstrapOwner(ctx, r.Channel, r.SenderID)
			if err != nil {
				m.log.Warn("channels: making the approved sender the owner failed", "channel", r.Channel, "err", err)
			}
			owner = st
		}
	}
	return &pairingResult{RequestID: r.RequestID, SenderID: r.SenderID, Notification: notification, CommandOwnerBootstrap: owner}, nil
}

func (m *Manager) handlePairingDismiss(ctx context.Context, req *rpc.Request, p pairingParams) (*dismissResult, error) {
	r, err := m.db.takePairing(ctx, p.Channel, p.AccountID, p.RequestID, false, time.Now())
	if errors.Is(err, ErrPairingNotFound) {
		return nil, bad(req.Method, err)
	}
	if err != nil {
		return nil, err
	}
	m.pairingEvent(r, "dismissed")
	return &dismissResult{RequestID: r.RequestID, SenderID: r.SenderID}, nil
}

type sendParams struct {
	To             string   `json:"to"`
	Message        string   `json:"message"`
	MediaURL       string   `json:"mediaUrl"`
	MediaURLs      []string `json:"mediaUrls"`
	Channel        string   `json:"channel"`
	AccountID      string   `json:"accountId"`
	ReplyToID      string   `json:"replyToId"`
	ThreadID       string   `json:"threadId"`
	Silent         bool     `json:"silent"`
	SessionKey     string   `json:"sessionKey"`
	IdempotencyKey string   `json:"idempotencyKey"`
}

// sendResult is the send answer; runId is the idempotency key.
type sendResult struct {
	RunID     string `json:"runId"`
	MessageID string `json:"messageId"`
	Channel   string `json:"channel"`
	ChatID    string `json:"chatId"`
	Status    string `json:"status"`
}

func (m *Manager) handleSend(ctx context.Context, req *rpc.Request, p sendParams) (*sendResult, error) {
	if p.IdempotencyKey == "" {
		return nil, bad(req.Method, errors.New("idempotencyKey is required"))
	}
	if p.MediaURL != "" || len(p.MediaURLs) > 0 {
		// A URL would have the gateway fetch arbitrary addresses on an
		// operator's behalf; files go through send_file from a workspace.
		return nil, bad(req.Method, errors.New("mediaUrl is not supported; send files with the send_file tool"))
	}
	ch, to, err := m.explicitTarget(p.To, p.Channel, p.ThreadID)
	if err != nil {
		return nil, bad(req.Method, err)
	}
	res, err := m.Send(ctx, SendRequest{Channel: ch, AccountID: p.AccountID, To: to, Text: p.Message, ReplyToID: p.ReplyToID, Silent: p.Silent, IdempotencyKey: p.IdempotencyKey})
	if err != nil {
		return nil, bad(req.Method, err)
	}
	return &sendResult{RunID: p.IdempotencyKey, MessageID: res.MessageID, Channel: res.Channel, ChatID: res.ChatID, Status: res.Status}, nil
}

// explicitTarget reads a "to" whose channel and thread explicit params
// may override.
func (m *Manager) explicitTarget(raw, channel, thread string) (string, Target, error) {
	ch, to, err := m.ParseTarget(raw)
	if channel != "" {
		ch = channel
	}
	if thread != "" {
		to.ThreadID = thread
	}
	return ch, to, err
}

func (m *Manager) handlePoll(ctx context.Context, req *rpc.Request, p pollParams) (any, error) {
	ch, to, err := m.explicitTarget(p.To, p.Channel, p.ThreadID)
	if err != nil {
		return nil, bad(req.Method, err)
	}
	poll := Poll{Question: p.Question, Options: p.Options, MultiSelect: p.MaxSelections > 1, Anonymous: p.IsAnonymous == nil || *p.IsAnonymous, DurationSecs: p.DurationSeconds}
	res, err := m.Action(ctx, ActionRequest{Channel: ch, AccountID: p.AccountID, Action: "poll", To: to, Poll: poll, IdempotencyKey: p.IdempotencyKey})
	if err != nil {
		return nil, bad(req.Method, err)
	}
	return res, nil
}

func (m *Manager) handleMessageAction(ctx context.Context, req *rpc.Request, p actionParams) (any, error) {
	ar, err := m.ActionFromParams(p.Channel, p.AccountID, p.Action, p.Params)
	if err != nil {
		return nil, bad(req.Method, err)
	}
	ar.IdempotencyKey = p.IdempotencyKey
	// Banning, promoting and uploading act with the server's standing:
	// an admin's, not any client that may send.
	if slices.Contains(DangerousActions, ar.Action) && !req.Conn.Has(protocol.ScopeAdmin) {
		return nil, protocol.MissingScope(protocol.ScopeAdmin)
	}
	res, err := m.Action(ctx, ar)
	if err != nil {
		return nil, bad(req.Method, err)
	}
	return res, nil
}

// ActionFromParams reads an action's loosely typed params (message.action
// and the message tool share them).
func (m *Manager) ActionFromParams(channel, accountID, action string, params map[string]any) (ActionRequest, error) {
	str := func(keys ...string) string {
		for _, k := range keys {
			switch v := params[k].(type) {
			case string:
				if v != "" {
					return v
				}
			case float64:
				return fmt.Sprintf("%.0f", v)
			}
		}
		return ""
	}
	strs := func(keys ...string) []string {
		var out []string
		for _, k := range keys {
			switch v := params[k].(type) {
			case string:
				if v != "" {
					out = append(out, v)
				}
			case []any:
				for _, e := range v {
					if s, ok := e.(string); ok && s != "" {
						out = append(out, s)
					}
				}
			}
		}
		return out
	}
	// num reads a whole number in [lo, hi] (absent: 0), as JSON or text.
	num := func(key string, lo, hi int) (int, error) {
		var f float64
		switch v := params[key].(type) {
		case nil:
			return 0, nil
		case float64:
			f = v
		case string:
			if v == "" {
				return 0, nil
			}
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, fmt.Errorf("%s %q is not a number", key, v)
			}
			f = n
		default:
			return 0, fmt.Errorf("%s must be a number", key)
		}
		if f != float64(int(f)) || int(f) < lo || int(f) > hi {
			return 0, fmt.Errorf("%s must be a whole number from %d to %d", key, lo, hi)
		}
		return int(f), nil
	}
	ar := ActionRequest{Channel: channel, AccountID: accountID, Action: strings.ToLower(action)}
	if t := str("to", "target", "chatId", "channelId"); t != "" {
		ch, to, err := m.ParseTarget(t)
		if err != nil {
			return ar, err
		}
		if ar.Channel == "" {
			ar.Channel = ch
		}
		ar.To = to
	}
	if th := str("threadId", "topicId"); th != "" {
		ar.To.ThreadID = th
	}
	if a := str("accountId"); a != "" && ar.AccountID == "" {
		ar.AccountID = a
	}
	ar.MessageID = str("messageId", "message_id")
	ar.Text = str("message", "text", "content")
	ar.Emoji = str("emoji", "reaction")
	ar.UserID = str("userId", "memberId")
	ar.Name = str("threadName", "name", "eventName")
	ar.RoleID = str("roleId")
	ar.EmojiName = str("emojiName")
	ar.Sticker = StickerSpec{Name: str("stickerName"), Description: str("stickerDesc"), Tags: str("stickerTags")}
	ar.Reason = str("reason")
	ar.Query = str("query")
	ar.Before, ar.After = str("before"), str("after")
	ar.StickerIDs = strs("stickerId", "stickerIds")
	var err error
	ar.Limit, err = num("limit", 0, 100)
	if err == nil {
		ar.DurationMinutes, err = num("durationMinutes", 0, 28*24*60)
	}
	if err == nil {
		ar.DeleteDays, err = num("deleteDays", 0, 7)
	}
	if err == nil {
		ar.AutoArchive, err = num("autoArchiveMinutes", 0, 10080)
	}
	if err != nil {
		return ar, err
	}
	times := []struct {
		key string
		to  *time.Time
	}{{"until", &ar.Until}, {"startTime", &ar.Event.Start}, {"endTime", &ar.Event.End}}
	for _, t := range times {
		if v := str(t.key); v != "" {
			if *t.to, err = time.Parse(time.RFC3339, v); err != nil {
				return ar, fmt.Errorf("%s %q is not an RFC 3339 time", t.key, v)
			}
		}
	}
	ar.Event.Name = str("eventName")
	ar.Event.Description = str("desc", "description")
	ar.Event.Location = str("location")
	ar.Event.Type = str("eventType")
	ar.Event.ChannelID = str("eventChannelId")
	if q := str("question", "pollQuestion"); q != "" {
		ar.Poll.Question = q
		if opts, ok := params["options"].([]any); ok {
			for _, o := range opts {
				if s, ok := o.(string); ok {
					ar.Poll.Options = append(ar.Poll.Options, s)
				}
			}
		}
	}
	return ar, nil
}
