package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/cron"
)

// wireCron builds the scheduler over the agents and channels and
// registers cron.*, wake and the heartbeat methods.
func (s *System) wireCron() error {
	svc, err := cron.New(cron.Options{
		DB: s.store.DB, Log: s.log.With("component", "cron"), Exec: cronExecutor{s}, Notify: s.srv,
		Enabled:    func() bool { return s.current().snap.Config.Cron.IsEnabled() },
		SkipMissed: func() bool { return s.current().snap.Config.Cron.SkipMissedJobs },
		StorePath:  s.storePath,
		OnFinish:   s.onCronFinish,
	})
	if err != nil {
		return err
	}
	s.cron = svc
	svc.Register(s.srv)
	s.registerHeartbeatMethods()
	return nil
}

// startCron settles what the last run of the gateway left (interrupted
// and missed runs), starts the timer and schedules the heartbeats.
func (s *System) startCron(ctx context.Context) error {
	// A stop signal during start-up must not turn into a failed start:
	// loading the jobs finishes, and the stop follows in order.
	ctx = context.WithoutCancel(ctx)
	if err := s.cron.Start(ctx); err != nil {
		return err
	}
	if err := s.syncHeartbeats(ctx, s.current().snap.Config); err != nil {
		s.log.Error("heartbeats not scheduled", "err", err)
	}
	if !s.current().snap.Config.Cron.IsEnabled() {
		s.log.Warn("cron.enabled is false: jobs and heartbeats do not fire on schedule (manual runs and wakes still work)")
	}
	return nil
}

// heartbeatJobID is the id of an agent's system-owned heartbeat job.
func heartbeatJobID(agentID string) string { return "heartbeat:" + agentID }

// syncHeartbeats makes one system job per agent whose heartbeat is on.
func (s *System) syncHeartbeats(ctx context.Context, cfg *config.Config) error {
	var jobs []cron.Job
	var errs []error
	for _, id := range cfg.AgentIDs() {
		hb := cfg.HeartbeatFor(id)
		every, err := hb.Interval()
		if err != nil {
			errs = append(errs, fmt.Errorf("agent %s: heartbeat.every: %w", id, err))
			continue
		}
		if every <= 0 {
			continue
		}
		jobs = append(jobs, cron.Job{
			ID: heartbeatJobID(id), Name: "Heartbeat (" + id + ")", Enabled: true, AgentID: id,
			Schedule:      cron.Schedule{Kind: cron.KindEvery, EveryMs: every.Milliseconds()},
			SessionTarget: cron.TargetMain, WakeMode: cron.WakeNow, CatchUp: cron.CatchUpSkip,
			Payload: cron.Payload{Kind: cron.PayloadHeartbeat, TimeoutSeconds: float64(hb.TimeoutSeconds)},
		})
	}
	if err := s.cron.SyncSystem(ctx, jobs); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// cronExecutor runs jobs for the scheduler.
type cronExecutor struct{ s *System }

func (x cronExecutor) Execute(ctx context.Context, job cron.Job, run cron.RunInfo) cron.Outcome {
	switch job.Payload.Kind {
	case cron.PayloadAgentTurn:
		return x.agentTurn(ctx, job, run)
	case cron.PayloadSystemEvent:
		return x.systemEvent(ctx, job, run)
	case cron.PayloadHeartbeat:
		ev, out := x.s.heartbeat(ctx, job.AgentID, run.RunID, "interval")
		if ev.Status == hbSkipped {
			out.Status, out.Summary = cron.StatusSkipped, "skipped: "+ev.Reason
		}
		return out
	}
	return cron.Outcome{Status: cron.StatusError, Error: "payload kind " + job.Payload.Kind + " cannot run here"}
}

// agentID is the job's agent, or the default one.
func (x cronExecutor) agentID(job cron.Job) string {
	if job.AgentID != "" {
		return job.AgentID
	}
	return x.s.current().snap.Config.DefaultAgentID()
}

// sessionKey is where a job's turn runs.
func (x cronExecutor) sessionKey(job cron.Job, agentID string) string {
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
		return x.s.agents.MainSessionKey(agentID)
	}
	return "agent:" + strings.ToLower(agentID) + ":cron:" + job.ID
}

// agentTurn sends the job's message to its agent and delivers the answer.
// The run has the owner's rights: the owner's agent (fixed when the job
// was made), the owner's sub-agent depth, and only the tools the job's
// toolsAllow keeps of what the policy gives that agent.
func (x cronExecutor) agentTurn(ctx context.Context, job cron.Job, info cron.RunInfo) cron.Outcome {
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
		if err := x.s.bindOwnerChat(ctx, job.Owner, key); err != nil {
			return cron.Outcome{Status: cron.StatusError, Error: err.Error(), SessionKey: key}
		}
	}
	if job.Payload.Model != "" {
		req.Models = append([]string{job.Payload.Model}, job.Payload.Fallbacks...)
	}
	if d, ok := ctx.Deadline(); ok {
		req.Timeout = time.Until(d)
	}
	res, run, err := x.s.runAndWait(ctx, req)
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
		out.Status, out.Error = cron.StatusError, firstNonEmpty(res.Error, "the agent run ended "+res.Status)
		return out
	}
	out.Status = cron.StatusOK
	x.deliverInto(ctx, job, agentID, info.RunID, res.Text, &out)
	return out
}

// deliverInto sends a run's answer where the job's delivery says and
// records how that went. A failed delivery fails the run unless the
// job said bestEffort.
func (x cronExecutor) deliverInto(ctx context.Context, job cron.Job, agentID, runID, text string, out *cron.Outcome) {
	d := job.Delivery
	if d == nil || d.Mode != "announce" {
		out.DeliveryStatus = "not-requested"
		return
	}
	if t := strings.TrimSpace(text); t == "" || t == silentReply {
		out.DeliveryStatus = "not-delivered" // the agent chose to say nothing
		return
	}
	err := x.s.deliver(ctx, deliveryTarget{
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
func (x cronExecutor) systemEvent(ctx context.Context, job cron.Job, info cron.RunInfo) cron.Outcome {
	agentID := x.agentID(job)
	key := x.sessionKey(job, agentID)
	x.s.agents.EnqueueSystemEvent(key, job.Payload.Text)
	out := cron.Outcome{Status: cron.StatusOK, Summary: job.Payload.Text, SessionKey: key, DeliveryStatus: "not-requested"}
	if job.WakeMode != cron.WakeNow {
		return out
	}
	ev, hb := x.s.heartbeatIn(ctx, agentID, key, info.RunID, "cron:"+job.ID)
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
func (s *System) bindOwnerChat(ctx context.Context, owner *cron.Owner, key string) error {
	if s.channels == nil || owner.SessionKey == "" || owner.SessionKey == key {
		return nil
	}
	r, ok, err := s.channels.RouteOf(ctx, owner.SessionKey)
	if err != nil || !ok {
		return err
	}
	if err := s.channels.BindRoute(ctx, key, r); err != nil {
		return fmt.Errorf("bind the run to the owner's chat: %w", err)
	}
	return nil
}

// runAndWait starts an agent run and waits for its end, aborting it when
// ctx ends first.
func (s *System) runAndWait(ctx context.Context, req agents.StartRequest) (agents.RunResult, *agents.Run, error) {
	run, _, err := s.agents.Start(ctx, req)
	if err != nil {
		return agents.RunResult{}, nil, err
	}
	select {
	case <-run.Done():
		return run.Result(), run, nil
	case <-ctx.Done():
	}
	s.agents.Abort(run.SessionKey, run.ID)
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
}

// deliver sends text to a chat. A job (or heartbeat) made in a chat
// delivers only to that chat, as the message tool allows its session.
func (s *System) deliver(ctx context.Context, t deliveryTarget, text, key string) error {
	if s.channels == nil {
		return errors.New("no channels are running")
	}
	var owner *channels.Route
	if t.Owner != nil && t.Owner.SessionKey != "" {
		if r, ok, err := s.channels.RouteOf(ctx, t.Owner.SessionKey); err != nil {
			return err
		} else if ok {
			owner = &r
		}
	}
	req := channels.SendRequest{Text: text, IdempotencyKey: key}
	switch {
	case t.To == "" && (t.Channel == "" || t.Channel == "last"):
		r := owner
		if r == nil {
			last, ok, err := s.channels.LastRoute(ctx, t.AgentID)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("no chat to deliver to: agent %s has not talked on a channel yet; set delivery.channel and delivery.to", t.AgentID)
			}
			r = &last
		}
		req.Channel, req.AccountID, req.To = r.Channel, r.AccountID, channels.Target{ChatID: r.ChatID, ThreadID: r.ThreadID}
	default:
		ch, target, err := s.channels.ParseTarget(t.To)
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
	res, err := s.channels.Send(ctx, req)
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

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
