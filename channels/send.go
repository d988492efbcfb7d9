package channels

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store"
)

// ParseTarget reads an outbound target: "123", "telegram:123", "tg:123",
// "user:123", "channel:123", "group:123", with an optional thread as
// "123:topic:7" or "123:thread:7". It returns the channel named by a
// prefix, a network's name or alias ("" when none), and the target.
func (m *Manager) ParseTarget(s string) (channel string, t Target, err error) {
	return Networks(m.opts.Networks).ParseTarget(s)
}

// Networks are the networks a gateway runs; they read targets by their
// names.
type Networks []Network

// ParseTarget is Manager.ParseTarget with these networks' names.
func (ns Networks) ParseTarget(s string) (channel string, t Target, err error) {
	return parseTarget(s, ns.targetChannel)
}

// foreignChannels are OpenClaw's channel ids this gateway runs no network
// for: a target that names one is for that channel (and fails as not
// configured), not a chat id on the one network configured.
var foreignChannels = []string{"webchat", "signal", "imessage"}

// targetChannel is the channel a target's prefix word names.
func (ns Networks) targetChannel(head string) (string, bool) {
	for _, n := range ns {
		if n.names(head) {
			return n.Name, true
		}
	}
	if head = strings.ToLower(head); slices.Contains(foreignChannels, head) {
		return head, true
	}
	return "", false
}

// parseTarget is ParseTarget with the channel names of channelOf.
func parseTarget(s string, channelOf func(head string) (string, bool)) (channel string, t Target, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", Target{}, errors.New("target is empty")
	}
	for {
		head, rest, ok := strings.Cut(s, ":")
		if !ok || rest == "" {
			break
		}
		if ch, ok := channelOf(head); ok {
			channel = ch
		} else {
			switch strings.ToLower(head) {
			case "user", "channel", "group", "room", "chat", "dm":
			default:
				goto done
			}
		}
		s = rest
	}
done:
	chat, thread, _ := strings.Cut(s, ":topic:")
	if thread == "" {
		chat, thread, _ = strings.Cut(s, ":thread:")
	}
	if chat == "" {
		return "", Target{}, fmt.Errorf("target %q names no chat", s)
	}
	return channel, Target{ChatID: chat, ThreadID: thread}, nil
}

// SendRequest is a message an operator or a tool sends.
type SendRequest struct {
	Channel        string // "" = the only configured channel
	AccountID      string // "" = the channel's default account
	To             Target
	Text           string
	Attachments    []Attachment
	ReplyToID      string
	Silent         bool
	Buttons        [][]Button
	IdempotencyKey string
}

// SendResult is what happened to a sent message.
type SendResult struct {
	Channel   string `json:"channel"`
	AccountID string `json:"accountId"`
	ChatID    string `json:"chatId"`
	MessageID string `json:"messageId,omitempty"`
	Status    string `json:"status"` // sent | pending (still retrying)
	// ButtonsMessageID is the message carrying the buttons, when a
	// long text was split (the last piece has them); else MessageID.
	ButtonsMessageID string `json:"-"`
}

// ErrUnknownChannel is returned for a channel that is not configured.
var ErrUnknownChannel = errors.New("channel is not configured")

// resolveAccount finds the running account a send goes through.
func (m *Manager) resolveAccount(channel, accountID string) (*account, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if channel == "" {
		seen := map[string]bool{}
		for k := range m.accounts {
			seen[k.channel] = true
		}
		if len(seen) != 1 {
			return nil, fmt.Errorf("%w: name the channel (configured: %d channels)", ErrUnknownChannel, len(seen))
		}
		for c := range seen {
			channel = c
		}
	}
	if accountID == "" {
		for k, a := range m.accounts {
			if k.channel == channel && a.specNow().Default {
				return a, nil
			}
		}
		accountID = "default"
	}
	a, ok := m.accounts[accountKey{channel, accountID}]
	if !ok {
		return nil, fmt.Errorf("%w: %s account %q", ErrUnknownChannel, channel, accountID)
	}
	return a, nil
}

// Send queues a message (persisted first, so a crash does not lose it),
// then waits until it is delivered, fails, or ctx ends while it is still
// retrying (Status "pending": it will still go out). Text longer than the
// network's limit is split; the result names the first message.
func (m *Manager) Send(ctx context.Context, req SendRequest) (SendResult, error) {
	a, err := m.resolveAccount(req.Channel, req.AccountID)
	if err != nil {
		return SendResult{}, err
	}
	if strings.TrimSpace(req.Text) == "" && len(req.Attachments) == 0 {
		return SendResult{}, errors.New("nothing to send: text and attachments are empty")
	}
	if req.IdempotencyKey == "" {
		return SendResult{}, errors.New("idempotencyKey is required")
	}
	p := a.specNow().Policy
	chunks := []string{req.Text}
	if strings.TrimSpace(req.Text) != "" {
		chunks = Chunk(req.Text, max(p.TextLimit, 0), p.ChunkMode)
	}
	rows := make([]outboundRow, len(chunks))
	for i, c := range chunks {
		o := Outbound{AccountID: a.id, To: req.To, Text: c, Silent: req.Silent, IdempotencyKey: req.IdempotencyKey}
		if i == 0 {
			o.ReplyToID, o.Attachments = req.ReplyToID, req.Attachments
		}
		if i == len(chunks)-1 {
			o.Buttons = req.Buttons
		}
		if i > 0 {
			o.IdempotencyKey = fmt.Sprintf("%s#%d", req.IdempotencyKey, i)
		}
		rows[i] = outboundRow{Channel: a.network.Name, Out: o}
	}
	err = m.db.tx(ctx, func(c store.Conn) error {
		for _, r := range rows {
			if _, err := insertOutbound(ctx, c, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return SendResult{}, err
	}
	kick(m.outKick)
	m.runSends.note(req.IdempotencyKey, req.To.ChatID)
	res := SendResult{Channel: a.network.Name, AccountID: a.id, ChatID: req.To.ChatID, Status: "pending"}
	last := rows[len(rows)-1].Out.IdempotencyKey
	for wait := 5 * time.Millisecond; ; wait = min(wait*2, 250*time.Millisecond) {
		status, _, lastErr, err := m.db.outboundByKey(ctx, last)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return res, err
		}
		switch status {
		case "sent":
			_, res.MessageID, _, _ = m.db.outboundByKey(ctx, req.IdempotencyKey)
			res.ButtonsMessageID = res.MessageID
			if last != req.IdempotencyKey {
				_, res.ButtonsMessageID, _, _ = m.db.outboundByKey(ctx, last)
			}
			res.Status = "sent"
			return res, nil
		case "failed", "unknown":
			return res, fmt.Errorf("send to %s %s failed: %s", a.network.Name, req.To.ChatID, lastErr)
		}
		select {
		case <-ctx.Done():
			return res, nil
		case <-time.After(wait):
		}
	}
}

// RouteOf returns the chat a session came from (ok false for sessions
// that did not start on a channel).
func (m *Manager) RouteOf(ctx context.Context, sessionKey string) (Route, bool, error) {
	return m.db.route(ctx, sessionKey)
}

// RunRoute returns the chat run runID of sessionKey answers. A channel
// turn answers the chat its message came from, even in a session several
// chats share (session.dmScope "main" puts every DM in one): the
// session's chat is only the one that wrote last, maybe another person's.
// Any other run (a scheduled one, an operator's) has the session's chat.
func (m *Manager) RunRoute(ctx context.Context, sessionKey, runID string) (Route, bool, error) {
	if id, ok := InboundOfRun(runID); ok {
		in, found, err := m.db.inbound(ctx, id)
		if err != nil {
			return Route{}, false, fmt.Errorf("find the chat of run %s: %w", runID, err)
		}
		if found {
			return Route{Channel: in.Channel, AccountID: in.AccountID, ChatID: in.Chat.ID, ChatKind: in.Chat.Kind, ThreadID: in.Chat.ThreadID}, true, nil
		}
	}
	return m.db.route(ctx, sessionKey)
}

// runIDPrefix starts the run id of a channel turn: the inbound row's id
// follows, so a restart runs the same id again.
const runIDPrefix = "channel-in-"

// RunIDOf is the run id of the turn that answers inbound row rowID.
func RunIDOf(rowID int64) string { return runIDPrefix + strconv.FormatInt(rowID, 10) }

// InboundOfRun is the inbound row a channel turn's run id names.
func InboundOfRun(runID string) (int64, bool) {
	rest, ok := strings.CutPrefix(runID, runIDPrefix)
	if !ok {
		return 0, false
	}
	rest, _, _ = strings.Cut(rest, ":") // a broadcast chat's run names its agent after the row

	id, err := strconv.ParseInt(rest, 10, 64)
	return id, err == nil && id > 0
}

// BindRoute ties a session that did not start on a channel (a scheduled
// run) to a chat, so the message tool and approvals treat it as that
// chat's session.
func (m *Manager) BindRoute(ctx context.Context, sessionKey string, r Route) error {
	return m.db.setRoute(ctx, sessionKey, r)
}

// LastRoute returns the chat the agent last talked in, across its
// sessions (ok false when it never talked on a channel).
func (m *Manager) LastRoute(ctx context.Context, agentID string) (Route, bool, error) {
	return m.db.lastRoute(ctx, agentID)
}

// ActionRequest is one message action (message.action, the message
// tool).
type ActionRequest struct {
	Channel        string
	AccountID      string
	Action         string
	To             Target
	MessageID      string
	Text           string
	Emoji          string
	Poll           Poll
	UserID         string
	IdempotencyKey string
	// The fields of the reading, thread, moderation and server actions.
	Name            string      // thread-create's name, event-create's name
	RoleID          string      // role-add, role-remove
	Reason          string      // timeout, kick, ban (the server's audit log)
	Until           time.Time   // timeout: when it ends (zero with DurationMinutes 0 lifts it)
	DurationMinutes int         // timeout: how long, when Until is zero
	DeleteDays      int         // ban: days of the member's messages to delete (0-7)
	Query           string      // search
	Limit           int         // read, reactions, thread-list, search, emoji-list
	Before, After   string      // read: message ids bounding the page
	StickerIDs      []string    // sticker
	Event           EventSpec   // event-create (Name is the event's name)
	AutoArchive     int         // thread-create: minutes of inactivity before it archives
	EmojiName       string      // emoji-upload
	Sticker         StickerSpec // sticker-upload
	// MediaPath is emoji-upload's and sticker-upload's image: a file the caller confined (the
	// message tool's copy of a workspace file). message.action never sets
	// it: no client names a file of the gateway's machine.
	MediaPath string
}

// Actions lists the message actions, for help texts.
var Actions = []string{"send", "react", "edit", "delete", "pin", "unpin", "poll", "typing", "channel-info", "member-info",
	"reactions", "read", "list-pins", "thread-create", "thread-list", "thread-reply", "search", "channel-list",
	"sticker", "role-info", "role-add", "role-remove", "emoji-list", "emoji-upload", "sticker-upload",
	"voice-status", "event-list", "event-create", "timeout", "kick", "ban", "permissions"}

// Action runs one message action through the channel's adapter, with a
// clear error where the network (or this adapter) does not support it.
func (m *Manager) Action(ctx context.Context, req ActionRequest) (any, error) {
	a, err := m.resolveAccount(req.Channel, req.AccountID)
	if err != nil {
		return nil, err
	}
	if err := a.specNow().Policy.actionAllowed(req.Action); err != nil {
		return nil, err
	}
	ad := a.adapterNow()
	if ad == nil {
		return nil, fmt.Errorf("%s account %q is not running: %s", a.network.Name, a.id, a.snapshot().Detail)
	}
	unsupported := fmt.Errorf("%w: %s cannot %s", ErrUnsupported, a.network.Label, req.Action)
	need := func(field, v string) error {
		if v == "" {
			return fmt.Errorf("%s needs %s", req.Action, field)
		}
		return nil
	}
	if err := need("a target chat", req.To.ChatID); err != nil && req.Action != "channel-list" && req.Action != "emoji-list" {
		return nil, err
	}
	if v, ok := ad.(ThreadVerifier); ok && req.To.ThreadID != "" {
		if err := v.VerifyThread(ctx, req.To); err != nil {
			return nil, err
		}
	}
	ok := map[string]any{"ok": true, "channel": a.network.Name, "action": req.Action}
	switch req.Action {
	case "send", "thread-reply":
		if req.Action == "thread-reply" {
			if err := need("a thread (threadId)", req.To.ThreadID); err != nil {
				return nil, err
			}
		}
		return m.Send(ctx, SendRequest{Channel: a.network.Name, AccountID: a.id, To: req.To, Text: req.Text, IdempotencyKey: req.IdempotencyKey})
	case "react":
		r, ok2 := ad.(Reactor)
		if !ok2 {
			return nil, unsupported
		}
		if err := errors.Join(need("messageId", req.MessageID), need("emoji", req.Emoji)); err != nil {
			return nil, err
		}
		return ok, r.React(ctx, req.To, req.MessageID, req.Emoji)
	case "edit":
		e, ok2 := ad.(Editor)
		if !ok2 {
			return nil, unsupported
		}
		if err := errors.Join(need("messageId", req.MessageID), need("message text", req.Text)); err != nil {
			return nil, err
		}
		return ok, e.Edit(ctx, req.To, req.MessageID, req.Text)
	case "delete":
		d, ok2 := ad.(Deleter)
		if !ok2 {
			return nil, unsupported
		}
		if err := need("messageId", req.MessageID); err != nil {
			return nil, err
		}
		return ok, d.Delete(ctx, req.To, req.MessageID)
	case "pin", "unpin":
		p, ok2 := ad.(Pinner)
		if !ok2 {
			return nil, unsupported
		}
		if err := need("messageId", req.MessageID); err != nil {
			return nil, err
		}
		if req.Action == "pin" {
			return ok, p.Pin(ctx, req.To, req.MessageID)
		}
		return ok, p.Unpin(ctx, req.To, req.MessageID)
	case "poll":
		p, ok2 := ad.(Poller)
		if !ok2 {
			return nil, unsupported
		}
		if req.Poll.Question == "" || len(req.Poll.Options) < 2 {
			return nil, errors.New("poll needs a question and at least two options")
		}
		sent, err := p.Poll(ctx, req.To, req.Poll)
		if err != nil {
			return nil, err
		}
		ok["messageId"] = sent.MessageID
		return ok, nil
	case "typing":
		t, ok2 := ad.(Typer)
		if !ok2 {
			return nil, unsupported
		}
		return ok, t.Typing(ctx, req.To)
	case "channel-info", "member-info":
		in, ok2 := ad.(Infoer)
		if !ok2 {
			return nil, unsupported
		}
		if req.Action == "channel-info" {
			return in.ChatInfo(ctx, req.To.ChatID)
		}
		if err := need("userId", req.UserID); err != nil {
			return nil, err
		}
		return in.MemberInfo(ctx, req.To.ChatID, req.UserID)
	}
	if res, handled, err := moreAction(ctx, ad, req, unsupported, need, ok); handled {
		return res, err
	}
	return nil, fmt.Errorf("unknown action %q; known: %s", req.Action, strings.Join(Actions, ", "))
}

// AskApproval posts a Tool Guard approval request, with buttons, in the
// chat run runID of sessionKey answers (RunRoute): in a session several
// chats share, the person whose message started the run decides, not
// whoever wrote last. ok is false when the session has no chat (the
// operator clients still see the request on the bus). The result names
// the message posted, whose buttons the approver may then trust.
func (m *Manager) AskApproval(ctx context.Context, sessionKey, runID, approvalID, summary string) (sent SendResult, ok bool, err error) {
	r, ok, err := m.RunRoute(ctx, sessionKey, runID)
	if err != nil || !ok {
		return SendResult{}, false, err
	}
	sent, err = m.Send(ctx, SendRequest{
		Channel: r.Channel, AccountID: r.AccountID, To: Target{ChatID: r.ChatID, ThreadID: r.ThreadID},
		Text:           "Approval needed: " + summary,
		Buttons:        ApprovalButtons(approvalID),
		IdempotencyKey: "approval-" + approvalID,
	})
	return sent, true, err
}

// ApprovalButtons are the decisions a person can press.
func ApprovalButtons(approvalID string) [][]Button {
	return [][]Button{{
		{Text: "Allow once", Data: "approve:" + approvalID + ":allow-once"},
		{Text: "Always", Data: "approve:" + approvalID + ":allow-always"},
		{Text: "Deny", Data: "approve:" + approvalID + ":deny"},
	}}
}

// runSends remembers, per channel turn, the chats its tools sent to (a
// tool's idempotency key starts with its run id), so the turn's log can
// say whether a private final reply was delivered another way.
type runSends struct {
	mu    sync.Mutex
	chats map[int64]map[string]bool
}

func (r *runSends) note(key, chatID string) {
	id, ok := InboundOfRun(key)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.chats == nil {
		r.chats = map[int64]map[string]bool{}
	}
	if r.chats[id] == nil {
		r.chats[id] = map[string]bool{}
	}
	r.chats[id][chatID] = true
}

// take reports whether run runID sent to chatID, and forgets the run.
func (r *runSends) take(runID, chatID string) bool {
	id, ok := InboundOfRun(runID)
	if !ok {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	sent := r.chats[id][chatID]
	delete(r.chats, id)
	return sent
}
