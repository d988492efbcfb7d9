package automation

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/cron"
)

// executor runs jobs for the scheduler.
type executor struct{ w *Wing }

var _ cron.Executor = executor{}

func (x executor) Execute(ctx context.Context, job cron.Job, run cron.RunInfo) cron.Outcome {
	switch job.Payload.Kind {
	case cron.PayloadAgentTurn:
		return x.agentTurn(ctx, job, run)
	case cron.PayloadSystemEvent:
		return x.systemEvent(ctx, job, run)
	case cron.PayloadHeartbeat:
		ev, out := x.w.heartbeat(ctx, job.AgentID, run.RunID, "interval")
		if ev.Status == hbSkipped {
			out.Status, out.Summary = cron.StatusSkipped, "skipped: "+ev.Reason
		}
		return out
	}
	return cron.Outcome{Status: cron.StatusError, Error: "payload kind " + job.Payload.Kind + " cannot run here"}
}

// agentID is the job's agent, or the default one.
func (x executor) agentID(job cron.Job) string {
	if job.AgentID != "" {
		return job.AgentID
	}
	return x.w.cfg().DefaultAgentID()
}

// sessionKey is where a job's turn runs.
func (x executor) sessionKey(job cron.Job, agentID string) string {
	switch t := job.SessionTarget; {
	case t == cron.TargetCurrent:
		if job.SessionKey != "" {
			return job.SessionKey
		}
		if job.Owner != nil {
			return job.Owner.SessionKey
		}
	case strings.HasPrefix(t, "session:"):
		return strings.TrimPrefix(t, "session:")
	case t == cron.TargetMain:
		return x.w.agents.MainSessionKey(agentID)
	}
	return "agent:" + strings.ToLower(agentID) + ":cron:" + job.ID
}

// agentTurn sends the job's message to its agent and delivers the answer.
// The run has the owner's rights: the owner's agent (fixed when the job
// was made), the owner's sub-agent depth, and only the tools the job's
// toolsAllow keeps of what the policy gives that agent.
func (x executor) agentTurn(ctx context.Context, job cron.Job, info cron.RunInfo) cron.Outcome {
	agentID := x.agentID(job)
	key := x.sessionKey(job, agentID)
	req := agents.StartRequest{
		AgentID: agentID, SessionKey: key, RunID: info.RunID,
		Message:    fmt.Sprintf("[cron:%s %s] %s", job.ID, job.Name, job.Payload.Message),
		Label:      "Automation: " + job.Name,
		ToolsAllow: job.Payload.ToolsAllow,
		Fresh:      job.SessionTarget == cron.TargetIsolated,
		// A job an operator made over cron.add (which needs operator.admin)
		// runs as the owner; one a conversation made with the automations
		// tool does not, so a prompt that got into such a job can neither
		// rewrite the config nor run dangerous tools without approval.
		Owner: job.Owner == nil,
	}
	if job.Owner != nil {
		req.Depth = job.Owner.Depth
		if err := x.w.bindOwnerChat(ctx, job.Owner, key); err != nil {
			return cron.Outcome{Status: cron.StatusError, Error: err.Error(), SessionKey: key}
		}
	}
	if job.Payload.Model != "" {
		req.Models = append([]string{job.Payload.Model}, job.Payload.Fallbacks...)
	}
	if d, ok := ctx.Deadline(); ok {
		req.Timeout = time.Until(d)
	}
	res, run, err := x.w.runAndWait(ctx, req)
	out := cron.Outcome{SessionKey: key}
	if run != nil {
		out.SessionID = run.SessionID
	}
	if err != nil {
		out.Status, out.Error = cron.StatusError, err.Error()
		return out
	}
	out.Provider, out.Model = res.Provider, res.Model
	if res.Usage.Total() > 0 {
		out.Usage = &cron.Usage{InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens, TotalTokens: res.Usage.Total()}
	}
	out.Summary = clip(res.Text, 2000)
	if res.Status != "ok" {
		out.Status, out.Error = cron.StatusError, cmp.Or(res.Error, "the agent run ended "+res.Status)
		if job.Delivery != nil && job.Delivery.Mode == "webhook" {
			x.postWebhook(ctx, job, info, &out) // errors are reported too
		}
		return out
	}
	out.Status = cron.StatusOK
	x.deliverInto(ctx, job, agentID, info, res.Text, &out)
	return out
}

// deliverInto sends a run's answer where the job's delivery says and
// records how that went. A failed delivery fails the run unless the
// job said bestEffort.
func (x executor) deliverInto(ctx context.Context, job cron.Job, agentID string, info cron.RunInfo, text string, out *cron.Outcome) {
	runID := info.RunID
	d := job.Delivery
	if d != nil && d.Mode == "webhook" {
		x.postWebhook(ctx, job, info, out)
		return
	}
	if d == nil || d.Mode != "announce" {
		out.DeliveryStatus = "not-requested"
		return
	}
	if t := strings.TrimSpace(text); t == "" || t == silentReply {
		out.DeliveryStatus = "not-delivered" // the agent chose to say nothing
		return
	}
	err := x.w.deliver(ctx, deliveryTarget{
		AgentID: agentID, Owner: job.Owner, Channel: d.Channel, To: d.To, AccountID: d.AccountID, ThreadID: d.Thread(),
	}, text, "cron:"+runID)
	if err == nil {
		out.DeliveryStatus = "delivered"
		return
	}
	out.DeliveryStatus, out.DeliveryError = "not-delivered", err.Error()
	if !d.BestEffort {
		out.Status, out.Error = cron.StatusError, "delivery failed: "+err.Error()
	}
}

// silentReply is the answer by which a model says "send nothing".
const silentReply = "NO_REPLY"

// systemEvent queues the job's text for the session and, for wake "now",
// runs a heartbeat turn at once so the agent acts on it.
func (x executor) systemEvent(ctx context.Context, job cron.Job, info cron.RunInfo) cron.Outcome {
	agentID := x.agentID(job)
	key := x.sessionKey(job, agentID)
	x.w.agents.EnqueueSystemEvent(key, job.Payload.Text)
	out := cron.Outcome{Status: cron.StatusOK, Summary: job.Payload.Text, SessionKey: key, DeliveryStatus: "not-requested"}
	if job.WakeMode != cron.WakeNow {
		return out
	}
	ev, hb := x.w.heartbeatIn(ctx, agentID, key, info.RunID, "cron:"+job.ID)
	hb.Summary = job.Payload.Text
	if ev.Status == hbSkipped {
		// The event waits in the session; the run itself did its part.
		out.Summary += " (queued: " + ev.Reason + ")"
		return out
	}
	return hb
}

// bindOwnerChat ties a job's run session to the chat its owner talks in,
// so the run is that chat's conversation: the message tool acts only
// there and its approvals are asked there.
func (w *Wing) bindOwnerChat(ctx context.Context, owner *cron.Owner, key string) error {
	if w.chats == nil || owner.SessionKey == "" || owner.SessionKey == key {
		return nil
	}
	r, ok, err := w.chats.RouteOf(ctx, owner.SessionKey)
	if err != nil || !ok {
		return err
	}
	if err := w.chats.BindRoute(ctx, key, r); err != nil {
		return fmt.Errorf("bind the run to the owner's chat: %w", err)
	}
	return nil
}

// runAndWait starts an agent run and waits for its end, aborting it when
// ctx ends first.
func (w *Wing) runAndWait(ctx context.Context, req agents.StartRequest) (agents.RunResult, *agents.Run, error) {
	run, _, err := w.agents.Start(ctx, req)
	if err != nil {
		return agents.RunResult{}, nil, err
	}
	select {
	case <-run.Done():
		return run.Result(), run, nil
	case <-ctx.Done():
	}
	w.agents.Abort(run.SessionKey, run.ID)
	select {
	case <-run.Done():
	case <-time.After(5 * time.Second):
	}
	return agents.RunResult{}, run, ctx.Err()
}

// deliveryTarget names where an answer goes.
type deliveryTarget struct {
	AgentID   string
	Owner     *cron.Owner
	Channel   string // "" or "last": the owner's chat, else the agent's last chat
	To        string
	AccountID string
	ThreadID  string
	// Allowed, when set, is asked once the chat is resolved; false stops
	// the send with agents.ErrSendDenied.
	Allowed func(ctx context.Context, channel, chatType string) bool
}

// DeliverReply sends an operator's agent run's reply to a chat (`agent
// --deliver`): to the named chat, or with none the agent's last one,
// under the run's session.sendPolicy.
func (w *Wing) DeliverReply(ctx context.Context, r agents.ReplyRequest) error {
	return w.deliver(ctx, deliveryTarget{AgentID: r.AgentID, Channel: r.Channel, To: r.To, AccountID: r.AccountID,
		ThreadID: r.ThreadID, Allowed: r.Allowed}, r.Text, r.IdempotencyKey)
}

// deliver sends text to a chat. A job (or heartbeat) made in a chat
// delivers only to that chat, as the message tool allows its session.
func (w *Wing) deliver(ctx context.Context, t deliveryTarget, text, key string) error {
	if w.chats == nil {
		return errors.New("no channels are running")
	}
	var owner *channels.Route
	if t.Owner != nil && t.Owner.SessionKey != "" {
		if r, ok, err := w.chats.RouteOf(ctx, t.Owner.SessionKey); err != nil {
			return err
		} else if ok {
			owner = &r
		}
	}
	req := channels.SendRequest{Text: text, IdempotencyKey: key}
	chatKind := "" // known for a remembered chat only
	switch {
	case t.To == "" && (t.Channel == "" || t.Channel == "last"):
		r := owner
		if r == nil {
			last, ok, err := w.chats.LastRoute(ctx, t.AgentID)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("no chat to deliver to: agent %s has not talked on a channel yet; set delivery.channel and delivery.to", t.AgentID)
			}
			r = &last
		}
		req.Channel, req.AccountID, req.To = r.Channel, r.AccountID, channels.Target{ChatID: r.ChatID, ThreadID: r.ThreadID}
		chatKind = string(r.ChatKind)
	default:
		ch, target, err := w.chats.ParseTarget(t.To)
		if err != nil {
			return fmt.Errorf("delivery.to: %w", err)
		}
		if t.Channel != "" && t.Channel != "last" {
			ch = t.Channel
		}
		if t.ThreadID != "" {
			target.ThreadID = t.ThreadID
		}
		req.Channel, req.AccountID, req.To = ch, t.AccountID, target
		if owner != nil && (owner.Channel != ch || owner.ChatID != target.ChatID) {
			return fmt.Errorf("a job made in a %s chat delivers only to that chat, not to %s %s", owner.Channel, ch, target.ChatID)
		}
	}
	if t.Allowed != nil && !t.Allowed(ctx, req.Channel, chatKind) {
		return agents.ErrSendDenied
	}
	res, err := w.chats.Send(ctx, req)
	if err != nil {
		return err
	}
	if res.Status != "sent" && res.Status != "pending" {
		return fmt.Errorf("send ended %s", res.Status)
	}
	return nil
}

// clip shortens text to at most n bytes on a rune boundary.
func clip(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "…"
}
