package automation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/cron"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/automations"
)

// NewScheduler gives the automations tool the scheduler of the wing that
// wing returns, scoped to the calling conversation: it sees and changes
// only its own agent's jobs, and a conversation that came from a chat
// only the jobs it made. The jobs it adds carry it as their owner, so
// their runs have its rights and no more (see executor.agentTurn).
//
// The tools are built before the wing, so the wing is looked up at call
// time; until there is one, every action answers that the scheduler is
// not running.
func NewScheduler(wing func() *Wing) automations.Scheduler { return jobScheduler{wing} }

type jobScheduler struct{ wing func() *Wing }

var _ automations.Scheduler = jobScheduler{}

var errSchedulerOff = errors.New("the scheduler is not running")

// caller is who is asking, with the chat its session is bound to, and
// the wing that serves it.
type caller struct {
	owner *cron.Owner
	chat  *channels.Route
	w     *Wing
}

func (j jobScheduler) caller(ctx context.Context, who tools.Who) (caller, error) {
	w := j.wing()
	if w == nil || w.cron == nil {
		return caller{}, errSchedulerOff
	}
	agentID := strings.ToLower(who.AgentID)
	if agentID == "" {
		agentID = w.cfg().DefaultAgentID()
	}
	c := caller{owner: &cron.Owner{AgentID: agentID, SessionKey: who.SessionKey, Depth: who.Depth}, w: w}
	if w.chats != nil && who.SessionKey != "" {
		// The caller's own chat, in a session several chats share too.
		r, ok, err := w.chats.RunRoute(ctx, who.SessionKey, who.RunID)
		if err != nil {
			return caller{}, err
		}
		if ok {
			c.chat, c.owner.AccountID = &r, r.AccountID
		}
	}
	return c, nil
}

// mayTouch reports whether the caller may see or change a job.
func (c caller) mayTouch(job cron.Job) bool {
	if !strings.EqualFold(job.AgentID, c.owner.AgentID) {
		return false
	}
	if c.chat == nil {
		return true
	}
	return job.Owner != nil && job.Owner.SessionKey == c.owner.SessionKey
}

// job looks up a job the caller may touch; others are "not found", so a
// conversation cannot learn the ids of another's jobs.
func (c caller) job(id string) (cron.Job, error) {
	job, err := c.w.cron.Get(id)
	if err != nil || !c.mayTouch(job) || job.System {
		return cron.Job{}, &cron.NotFoundError{ID: id}
	}
	return job, nil
}

func (j jobScheduler) Status(ctx context.Context, who tools.Who) (any, error) {
	c, err := j.caller(ctx, who)
	if err != nil {
		return nil, err
	}
	return c.w.cron.Status(), nil
}

func (j jobScheduler) List(ctx context.Context, who tools.Who, includeDisabled bool) (any, error) {
	c, err := j.caller(ctx, who)
	if err != nil {
		return nil, err
	}
	all, _ := c.w.cron.List(cron.ListQuery{IncludeDisabled: includeDisabled, AgentID: c.owner.AgentID})
	jobs := []cron.Job{}
	for _, job := range all {
		if c.mayTouch(job) && !job.System {
			jobs = append(jobs, job)
		}
	}
	return map[string]any{"jobs": jobs, "total": len(jobs)}, nil
}

// chatRules holds a chat conversation's jobs to its chat: their runs go
// to their own session or an isolated one (never the agent's main
// session, which has the operator's trust), and deliver to that chat.
func (c caller) chatRules(target string, d *cron.Delivery) error {
	if c.chat == nil {
		return nil
	}
	if target == cron.TargetMain || strings.HasPrefix(target, "session:") {
		return fmt.Errorf("sessionTarget %q: a job made in a chat runs in that chat's session (current) or an isolated one", target)
	}
	if d != nil && d.Mode == "webhook" {
		// A webhook would carry the chat's results, and cron.webhookToken,
		// to any address the conversation names.
		return errors.New(`delivery.mode "webhook": a job made in a chat delivers only to that chat`)
	}
	if d == nil || d.Mode != "announce" || d.To == "" {
		return nil
	}
	ch, t, err := c.w.chats.ParseTarget(d.To) // c.chat came from chats
	if err != nil {
		return fmt.Errorf("delivery.to: %w", err)
	}
	if d.Channel != "" && d.Channel != "last" {
		ch = d.Channel
	}
	if (ch != "" && ch != c.chat.Channel) || t.ChatID != c.chat.ChatID {
		return fmt.Errorf("delivery: a job made in this %s chat delivers only to it; leave delivery.to out", c.chat.Channel)
	}
	return nil
}

func (j jobScheduler) Add(ctx context.Context, who tools.Who, raw json.RawMessage) (any, error) {
	c, err := j.caller(ctx, who)
	if err != nil {
		return nil, err
	}
	var peek struct {
		SessionTarget string                `json:"sessionTarget"`
		Payload       struct{ Kind string } `json:"payload"`
		Delivery      *cron.Delivery        `json:"delivery"`
	}
	_ = json.Unmarshal(raw, &peek)
	target := peek.SessionTarget
	if target == "" && peek.Payload.Kind == cron.PayloadSystemEvent {
		target = cron.TargetMain
	}
	if c.chat != nil && target == cron.TargetMain && peek.Payload.Kind == cron.PayloadSystemEvent {
		// A reminder made in a chat lands in that chat's session.
		if raw, err = setKey(raw, "sessionTarget", cron.TargetCurrent); err != nil {
			return nil, err
		}
		target = cron.TargetCurrent
	}
	if err := c.chatRules(target, peek.Delivery); err != nil {
		return nil, err
	}
	return c.w.cron.AddJSON(ctx, raw, c.owner)
}

// setKey sets one top-level key of a JSON object.
func setKey(raw json.RawMessage, key string, v any) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("job: %w", err)
	}
	b, _ := json.Marshal(v)
	m[key] = b
	return json.Marshal(m)
}

func (j jobScheduler) Update(ctx context.Context, who tools.Who, id string, patch json.RawMessage) (any, error) {
	c, err := j.caller(ctx, who)
	if err != nil {
		return nil, err
	}
	cur, err := c.job(id)
	if err != nil {
		return nil, err
	}
	var peek struct {
		SessionTarget *string         `json:"sessionTarget"`
		Delivery      json.RawMessage `json:"delivery"`
		AgentID       *string         `json:"agentId"`
	}
	_ = json.Unmarshal(patch, &peek)
	if peek.AgentID != nil && !strings.EqualFold(*peek.AgentID, c.owner.AgentID) {
		return nil, errors.New("agentId: a job made in a conversation stays with that conversation's agent")
	}
	target, d := cur.SessionTarget, cur.Delivery
	if peek.SessionTarget != nil {
		target = *peek.SessionTarget
	}
	if len(peek.Delivery) > 0 && string(peek.Delivery) != "null" {
		merged := cron.Delivery{}
		if d != nil {
			merged = *d
		}
		if err := json.Unmarshal(peek.Delivery, &merged); err != nil {
			return nil, fmt.Errorf("patch.delivery: %w", err)
		}
		d = &merged
	}
	if err := c.chatRules(target, d); err != nil {
		return nil, err
	}
	return c.w.cron.Update(ctx, id, patch)
}

func (j jobScheduler) Remove(ctx context.Context, who tools.Who, id string) (any, error) {
	c, err := j.caller(ctx, who)
	if err != nil {
		return nil, err
	}
	if _, err := c.job(id); err != nil {
		return nil, err
	}
	if err := c.w.cron.Remove(ctx, id); err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "removed": true, "id": id}, nil
}

func (j jobScheduler) Run(ctx context.Context, who tools.Who, id, mode string) (any, error) {
	c, err := j.caller(ctx, who)
	if err != nil {
		return nil, err
	}
	if _, err := c.job(id); err != nil {
		return nil, err
	}
	runID, ran, reason, err := c.w.cron.RunNow(ctx, id, mode)
	if err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "ran": ran, "runId": runID, "reason": reason}, nil
}

func (j jobScheduler) Runs(ctx context.Context, who tools.Who, id string, limit int) (any, error) {
	c, err := j.caller(ctx, who)
	if err != nil {
		return nil, err
	}
	q := cron.RunsQuery{Limit: limit}
	if id != "" {
		if _, err := c.job(id); err != nil {
			return nil, err
		}
		q.JobID = id
	} else {
		all, _ := c.w.cron.List(cron.ListQuery{IncludeDisabled: true, AgentID: c.owner.AgentID})
		q.JobIDs = []string{}
		for _, job := range all {
			if c.mayTouch(job) {
				q.JobIDs = append(q.JobIDs, job.ID)
			}
		}
	}
	entries, total, err := c.w.cron.Runs(ctx, q)
	if err != nil {
		return nil, err
	}
	return map[string]any{"entries": entries, "total": total}, nil
}

// Wake puts a note into the caller's main session, or, for a chat
// conversation, into its own session: a chat must not write into the
// operator's session.
func (j jobScheduler) Wake(ctx context.Context, who tools.Who, mode, text string) (any, error) {
	c, err := j.caller(ctx, who)
	if err != nil {
		return nil, err
	}
	key := ""
	if c.chat != nil {
		key = who.SessionKey
	}
	c.w.Wake(c.owner.AgentID, key, mode, text)
	return map[string]any{"ok": true, "mode": mode}, nil
}
