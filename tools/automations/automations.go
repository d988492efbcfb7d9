// Package automations holds OpenClaw's `automations` agent tool (called
// `cron` before 2026.9; the gateway registers that name as an alias): the
// model schedules reminders and recurring agent runs, lists and edits
// them, starts one now, reads their run history and wakes its own main
// session. It reaches the scheduler through Scheduler, which the gateway
// implements over gateway/cron; every call carries the caller, so the
// gateway can bind new jobs to the calling conversation's agent, record
// it as their owner and show each agent only its own jobs.
//
// Jobs travel as the JSON the model wrote (OpenClaw's CronAddParams shape,
// plus our catchUp): the scheduler validates them and says which field is
// wrong, so the rules live in one place.
package automations

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
)

// Scheduler is what the tool needs from the gateway's scheduler. All
// methods may block on I/O and are called concurrently. who is the
// conversation calling: implementations scope reads and writes to its
// agent and record it as the owner of the jobs it adds. An answer is any
// value that encodes to JSON (the cron.* result shapes); an error is shown
// to the model as it is, so it should name the offending field.
type Scheduler interface {
	// Status reports the scheduler (enabled, job counts, next wake).
	Status(ctx context.Context, who tools.Who) (any, error)
	// List returns the caller's jobs as {"jobs":[...],...}.
	List(ctx context.Context, who tools.Who, includeDisabled bool) (any, error)
	// Add creates a job from a JSON object in CronAddParams' shape and
	// returns the job, with its id and nextRunAtMs.
	Add(ctx context.Context, who tools.Who, job json.RawMessage) (any, error)
	// Update applies a JSON object patch to a job and returns the job.
	Update(ctx context.Context, who tools.Who, id string, patch json.RawMessage) (any, error)
	// Remove deletes a job.
	Remove(ctx context.Context, who tools.Who, id string) (any, error)
	// Run starts a run now without waiting for it to finish (mode force
	// or due) and returns its runId, or why it did not run.
	Run(ctx context.Context, who tools.Who, id, mode string) (any, error)
	// Runs returns run history as {"entries":[...],...}, newest first;
	// id "" means all of the caller's jobs. limit is 1..50.
	Runs(ctx context.Context, who tools.Who, id string, limit int) (any, error)
	// Wake enqueues text as a system event into the caller's main session;
	// mode now also runs a heartbeat at once.
	Wake(ctx context.Context, who tools.Who, mode, text string) (any, error)
}

// Args are the automations tool's arguments: one action and its fields.
type Args struct {
	Action          string `json:"action" jsonschema:"enum=status,enum=list,enum=add,enum=update,enum=remove,enum=run,enum=runs,enum=wake,description=What to do"`
	IncludeDisabled bool   `json:"includeDisabled,omitempty" jsonschema:"description=list: include disabled jobs"`
	Job             Job    `json:"job,omitempty" jsonschema:"description=add: the job to create"`
	ID              string `json:"id,omitempty" jsonschema:"description=The job for update and remove and run; runs: only this job's history"`
	// JobID is the name some models and OpenClaw's own params use for id.
	JobID string `json:"jobId,omitempty" jsonschema:"description=Same as id"`
	Patch Patch  `json:"patch,omitempty" jsonschema:"description=update: only the fields to change"`
	Mode  string `json:"mode,omitempty" jsonschema:"enum=force,enum=due,enum=now,enum=next-heartbeat,description=run: force (default) or due (only if it is due now); wake: now (default) or next-heartbeat"`
	Limit int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=50,description=runs: how many entries (default 10)"`
	Text  string `json:"text,omitempty" jsonschema:"description=wake: the system event to put in your main session"`

	tools.GatewayTarget
}

// Defaults and limits of the arguments.
const (
	DefaultRunsLimit = 10
	MaxRunsLimit     = 50
)

// New returns the automations tool.
// d reaches another gateway for a call that names one with gatewayUrl;
// nil refuses such calls.
func New(s Scheduler, d tools.GatewayDialer) tools.Tool {
	t := &tool{s: s, d: d}
	return tools.NewTyped(tools.Spec{
		Name: "automations", Label: "Automations",
		Description: "Schedule work for later and manage it: reminders and recurring agent runs. " +
			"Actions: status; list; add (job); update (id + patch); remove (id); run (id: starts it now and returns a runId without waiting; check runs for the result); runs (run history); wake (text: a note into your main session now). " +
			"A systemEvent payload is a note put into your main session. An agentTurn payload runs the agent with its message in a fresh isolated session by default; " +
			"its final answer is announced to the chat delivery names (channel \"last\" is this conversation's chat). Use sessionTarget current to run in this conversation instead. " +
			"One-shot jobs (schedule at) delete themselves after a successful run.",
		Tier: tools.TierCore, Source: tools.SourceCore, Groups: []string{"group:automation"},
		// Jobs outlive the chat that made them: only the owner makes them
		// (OpenClaw: non-owner chat turns may not manage cron).
		OwnerOnly: true, Timeout: tools.TimeoutFast,
	}, t.call)
}

type tool struct {
	s Scheduler
	d tools.GatewayDialer
}

func (t *tool) call(ctx context.Context, c tools.Call, a Args) (tools.Result, error) {
	remote, err := a.Remote()
	if err != nil {
		return tools.Result{}, err
	}
	ctx, cancel := a.WithTimeout(ctx)
	defer cancel()
	s := t.s
	if remote {
		if t.d == nil {
			return tools.Result{}, errors.New("gatewayUrl: this gateway cannot reach other gateways")
		}
		conn, err := t.d.DialGateway(ctx, a.GatewayURL, a.GatewayToken)
		if err != nil {
			return tools.Result{}, err
		}
		defer conn.Close()
		s = remoteScheduler{conn}
	}
	return act(ctx, s, c.Who, a)
}

func act(ctx context.Context, s Scheduler, who tools.Who, a Args) (tools.Result, error) {
	switch a.Action {
	case "status":
		out, err := s.Status(ctx, who)
		if err != nil {
			return tools.Result{}, fmt.Errorf("scheduler status: %w", err)
		}
		return render(a.Action, out)
	case "list":
		out, err := s.List(ctx, who, a.IncludeDisabled)
		if err != nil {
			return tools.Result{}, fmt.Errorf("list jobs: %w", err)
		}
		return render(a.Action, out)
	case "add":
		job, err := object(a.Action, "job", json.RawMessage(a.Job))
		if err != nil {
			return tools.Result{}, err
		}
		out, err := s.Add(ctx, who, job)
		if err != nil {
			return tools.Result{}, fmt.Errorf("add job: %w", err)
		}
		return render(a.Action, out)
	case "update":
		id, err := a.id()
		if err != nil {
			return tools.Result{}, err
		}
		patch, err := object(a.Action, "patch", json.RawMessage(a.Patch))
		if err != nil {
			return tools.Result{}, err
		}
		out, err := s.Update(ctx, who, id, patch)
		if err != nil {
			return tools.Result{}, fmt.Errorf("update job %s: %w", id, err)
		}
		return render(a.Action, out)
	case "remove":
		id, err := a.id()
		if err != nil {
			return tools.Result{}, err
		}
		out, err := s.Remove(ctx, who, id)
		if err != nil {
			return tools.Result{}, fmt.Errorf("remove job %s: %w", id, err)
		}
		return render(a.Action, out)
	case "run":
		id, err := a.id()
		if err != nil {
			return tools.Result{}, err
		}
		mode := a.Mode
		switch mode {
		case "":
			mode = "force"
		case "force", "due":
		default:
			return tools.Result{}, fmt.Errorf("run: mode %q is unknown (force or due)", mode)
		}
		out, err := s.Run(ctx, who, id, mode)
		if err != nil {
			return tools.Result{}, fmt.Errorf("run job %s: %w", id, err)
		}
		return renderRun(id, out)
	case "runs":
		limit := a.Limit
		switch {
		case limit == 0:
			limit = DefaultRunsLimit
		case limit < 1 || limit > MaxRunsLimit:
			return tools.Result{}, fmt.Errorf("runs: limit %d is out of range (1..%d)", limit, MaxRunsLimit)
		}
		id := strings.TrimSpace(cmp.Or(a.ID, a.JobID))
		out, err := s.Runs(ctx, who, id, limit)
		if err != nil {
			return tools.Result{}, fmt.Errorf("read run history: %w", err)
		}
		return render(a.Action, out)
	case "wake":
		if strings.TrimSpace(a.Text) == "" {
			return tools.Result{}, errors.New("wake needs text")
		}
		mode := a.Mode
		switch mode {
		case "":
			mode = "now"
		case "now", "next-heartbeat":
		default:
			return tools.Result{}, fmt.Errorf("wake: mode %q is unknown (now or next-heartbeat)", mode)
		}
		out, err := s.Wake(ctx, who, mode, a.Text)
		if err != nil {
			return tools.Result{}, fmt.Errorf("wake: %w", err)
		}
		return render(a.Action, out)
	}
	return tools.Result{}, fmt.Errorf("unknown action %q (status, list, add, update, remove, run, runs or wake)", a.Action)
}

// id is the job the action names, by id or jobId.
func (a Args) id() (string, error) {
	id := strings.TrimSpace(cmp.Or(a.ID, a.JobID))
	if id == "" {
		return "", fmt.Errorf("%s needs id (see action list)", a.Action)
	}
	return id, nil
}
