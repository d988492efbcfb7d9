package channelhost

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools"
)

// ApprovalNotifier announces approval events to operators on the bus,
// asks with buttons in the chat a request came from, and forwards the
// request to approvals.exec / approvals.plugin targets. The tools'
// approvals take it.
func (h *Host) ApprovalNotifier() tools.ApprovalNotifier {
	return &approvalFanout{bus: h.opts.Bus, send: h.Manager, cfg: h.opts.Config, posts: h.posts, log: h.opts.Log,
		async: func(f func()) { go f() }}
}

// approvalSender is how prompts reach chats.
type approvalSender interface {
	AskApproval(ctx context.Context, sessionKey, runID, approvalID, summary string) (channels.SendResult, bool, error)
	Send(ctx context.Context, req channels.SendRequest) (channels.SendResult, error)
}

type approvalFanout struct {
	bus   Bus
	send  approvalSender
	cfg   func() *config.Config
	posts *approvalPosts
	log   *slog.Logger
	async func(func()) // runs the deliveries; NotifyApproval must not block
}

var _ tools.ApprovalNotifier = (*approvalFanout)(nil)

func (f *approvalFanout) NotifyApproval(e tools.ApprovalEvent) {
	for _, b := range e.Broadcasts() {
		f.bus.Broadcast(b.Event, b.Payload)
	}
	p := e.Request
	if p.ID == "" {
		return
	}
	if e.Settled != nil {
		f.posts.forget(p.ID)
		return
	}
	// Routing is read from the config alone, at the time of the request:
	// nothing the request carries (the model's arguments) names a chat.
	fw := forwarding(f.cfg(), p)
	f.posts.begin(p.ID)
	f.async(func() {
		defer f.posts.finish(p.ID)
		f.deliver(p, fw)
	})
}

// forwarding is the approvals.exec or approvals.plugin block a request
// falls under: exec's for the exec tool, plugin's for every other call a
// person must allow (OpenClaw raises those as plugin approvals).
func forwarding(cfg *config.Config, p tools.Pending) config.ApprovalForwarding {
	if p.Tool == "exec" {
		return cfg.Approvals.Exec
	}
	return cfg.Approvals.Plugin
}

// approvalText is the prompt every chat is shown: the call with its
// arguments as the approval store keeps them (env secrets redacted).
// Forwarded prompts show no more than the asking chat's.
func approvalText(p tools.Pending) string {
	summary := p.Tool + " " + p.Args
	if p.Reason != "" {
		summary += "\n(" + p.Reason + ")"
	}
	return summary
}

// deliver asks in the chat the request came from, then sends the prompt
// to each forwarding target not already asked.
func (f *approvalFanout) deliver(p tools.Pending, fw config.ApprovalForwarding) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	summary := approvalText(p)
	seen := map[string]bool{}
	if p.SessionKey != "" {
		// The chat to ask is that of the run that asked, not the
		// session's last. It is asked whether or not forwarding is on
		// (mode "session" names this chat): OpenClaw's same-chat
		// approvals.
		sent, ok, err := f.send.AskApproval(ctx, p.SessionKey, p.RunID, p.ID, summary)
		if err != nil {
			f.log.Warn("could not ask for approval in the chat", "sessionKey", p.SessionKey, "err", err)
		}
		if ok && err == nil {
			f.posts.add(p.ID, sent)
			// A target naming this chat, with or without its
			// account, is not asked twice.
			seen[targetKey(sent.Channel, sent.AccountID, sent.ChatID, "")] = true
			seen[targetKey(sent.Channel, "", sent.ChatID, "")] = true
		}
	}
	if !fw.ToTargets() || !fw.Forwards(p.AgentID, p.SessionKey) {
		return
	}
	for _, t := range fw.Targets {
		k := targetKey(t.Channel, t.AccountID, t.To, string(t.ThreadID))
		if t.Channel == "" || t.To == "" || seen[k] {
			continue
		}
		seen[k] = true
		sent, err := f.send.Send(ctx, channels.SendRequest{
			Channel: t.Channel, AccountID: t.AccountID, To: channels.Target{ChatID: t.To, ThreadID: string(t.ThreadID)},
			Text: "Approval needed: " + summary, Buttons: channels.ApprovalButtons(p.ID),
			IdempotencyKey: "approval-" + p.ID + "-" + k,
		})
		if err != nil {
			f.log.Warn("could not forward the approval request", "channel", t.Channel, "to", t.To, "err", err)
			continue
		}
		f.posts.add(p.ID, sent)
	}
}

func targetKey(channel, accountID, to, threadID string) string {
	return channel + "|" + accountID + "|" + to + "|" + threadID
}

// approvalPosts remembers which messages carry a pending request's
// buttons, so a press counts only on one of them: a button's data is
// the client's to send, and a press naming another request than its
// message was posted for is forged. A press may arrive before the send
// that posted its message has returned; it waits for the deliveries.
type approvalPosts struct {
	mu sync.Mutex
	by map[string]*posted
}

type posted struct {
	sent    []channels.SendResult
	done    bool          // every delivery returned
	changed chan struct{} // closed and replaced on each change
}

func newApprovalPosts() *approvalPosts { return &approvalPosts{by: map[string]*posted{}} }

// begin opens a request's record before anything is sent for it.
func (a *approvalPosts) begin(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.by[id] = &posted{changed: make(chan struct{})}
}

func (a *approvalPosts) change(id string, f func(*posted)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.by[id]
	if e == nil {
		return // settled meanwhile
	}
	f(e)
	close(e.changed)
	e.changed = make(chan struct{})
}

func (a *approvalPosts) add(id string, sent channels.SendResult) {
	if sent.ButtonsMessageID == "" {
		return // not posted yet (still retrying): no button to trust
	}
	a.change(id, func(e *posted) { e.sent = append(e.sent, sent) })
}

// finish says every delivery of the request returned.
func (a *approvalPosts) finish(id string) { a.change(id, func(e *posted) { e.done = true }) }

func (a *approvalPosts) forget(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.by, id)
}

// postedOn reports whether the request's buttons were posted on that
// message of that channel, waiting (up to a bound) for deliveries still
// under way.
func (a *approvalPosts) postedOn(ctx context.Context, id, channel, messageID string) bool {
	if messageID == "" {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		a.mu.Lock()
		e := a.by[id]
		if e == nil {
			a.mu.Unlock()
			return false
		}
		for _, s := range e.sent {
			if s.Channel == channel && s.ButtonsMessageID == messageID {
				a.mu.Unlock()
				return true
			}
		}
		done, changed := e.done, e.changed
		a.mu.Unlock()
		if done {
			return false
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

// approvalResolver settles Tool Guard approvals from chat buttons. Only
// an approver's press counts (the owner, or the network's execApprovals
// approvers): the request is posted in the chat whose turn asked, and in
// forwarding targets, so anyone else pressing Allow would be approving
// their own call or another's. The press must be on a message posted for
// that very request.
type approvalResolver struct {
	approvals func() ApprovalResolver
	approver  func(channel, senderID string) bool
	posts     *approvalPosts
}

func (r approvalResolver) ResolveApproval(ctx context.Context, p channels.ApprovalPress) error {
	var a ApprovalResolver
	if r.approvals != nil {
		a = r.approvals()
	}
	if a == nil {
		return errors.New("approvals are not available")
	}
	channel, sender := p.Channel, p.SenderID
	if channel == "" {
		channel, sender, _ = strings.Cut(p.By, ":")
	}
	if !r.approver(channel, sender) {
		return errors.New("only an approver can answer approvals here (commands.ownerAllowFrom or execApprovals.approvers)")
	}
	if !r.posts.postedOn(ctx, p.ID, channel, p.MessageID) {
		return errors.New("this button is not one posted for that request")
	}
	return a.Resolve(ctx, p.ID, p.Decision)
}
