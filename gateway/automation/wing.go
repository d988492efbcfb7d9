// Package automation is the gateway's automation wing: it runs the
// scheduler's jobs (an agent turn delivered to a chat, a system event for
// a session, an agent's heartbeat), serves wake, system-event,
// last-heartbeat and set-heartbeats beside the scheduler's cron.*
// methods, tells a chat when a job keeps failing, and gives the agents'
// automations tool a scheduler scoped to the calling conversation.
//
// The wing is built from Options: the agents that run the turns, the
// chats that deliver the answers, the bus that hears the events, the
// live config and the store. It owns the cron.Service it builds; the
// gateway starts it once the channels can deliver, and stops it before
// they close.
package automation

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/cron"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// Agents runs the turns of jobs, heartbeats and wakes (agents.Service).
type Agents interface {
	// Start accepts a turn; the run's Done channel closes when it ends.
	Start(ctx context.Context, req agents.StartRequest) (run *agents.Run, dup bool, err error)
	Abort(sessionKey, runID string) bool
	MainSessionKey(agentID string) string
	EnqueueSystemEvent(sessionKey, text string)
	PendingSystemEvents(sessionKey string) int
	HasModel(agentID string) bool
	Workspace(agentID string) (string, error)
}

// Chats is channel delivery (channels.Manager): where a session talks,
// and sending to a chat.
type Chats interface {
	RouteOf(ctx context.Context, sessionKey string) (channels.Route, bool, error)
	RunRoute(ctx context.Context, sessionKey, runID string) (channels.Route, bool, error)
	BindRoute(ctx context.Context, sessionKey string, r channels.Route) error
	LastRoute(ctx context.Context, agentID string) (channels.Route, bool, error)
	Send(ctx context.Context, req channels.SendRequest) (channels.SendResult, error)
	// ParseTarget reads a delivery target, naming the channel by the
	// networks' names and aliases.
	ParseTarget(target string) (channel string, t channels.Target, err error)
	// OwnerRoute is the owner's direct chat, found from owners
	// (commands.ownerAllowFrom) or the accounts' allowFrom
	// (channels.ErrNoOwnerRoute when none names one person).
	OwnerRoute(ctx context.Context, owners []string) (channels.Route, error)
}

// Events broadcasts bus events (rpc.Server).
type Events interface {
	Broadcast(event string, payload any)
}

// Options are what the wing is built from.
type Options struct {
	Config func() *config.Config // the live config
	Agents Agents
	// Chats delivers answers and alerts; nil when no channels run (a
	// delivery then fails with "no channels are running").
	Chats  Chats
	Events Events
	DB     *sql.DB // the store, with cron.Migrations applied
	// StorePath is shown by cron.status.
	StorePath string
	Log       *slog.Logger
	// Go runs fn in the background for work a request starts that
	// outlives it (a wake's heartbeat turn, a failure alert); fn's ctx
	// ends when the gateway stops serving, and the stop waits for fn.
	Go func(fn func(ctx context.Context))
	// HookThrottle counts wrong hook tokens per client; nil counts none.
	HookThrottle HookThrottle
}

// Wing is the automation wing; build it with New.
type Wing struct {
	cfg    func() *config.Config
	agents Agents
	chats  Chats
	events Events
	log    *slog.Logger
	goBG   func(fn func(ctx context.Context))
	cron   *cron.Service
	beats  heartbeats
	alerts failureAlerts

	hookThrottle HookThrottle
	// webhookClient replaces the SSRF-guarded client of webhook
	// deliveries in tests; nil builds the guarded one per delivery.
	webhookClient *http.Client
}

// New builds the wing and its scheduler; nothing runs until Start.
func New(opts Options) (*Wing, error) {
	w := &Wing{cfg: opts.Config, agents: opts.Agents, chats: opts.Chats, events: opts.Events, log: opts.Log, goBG: opts.Go, hookThrottle: opts.HookThrottle}
	if err := config.CheckHooks(opts.Config().Hooks); err != nil {
		return nil, err
	}
	svc, err := cron.New(cron.Options{
		DB: opts.DB, Log: opts.Log.With("component", "cron"), Exec: executor{w}, Notify: opts.Events,
		Enabled:    func() bool { return w.cfg().Cron.IsEnabled() },
		SkipMissed: func() bool { return w.cfg().Cron.SkipMissedJobs },
		StorePath:  opts.StorePath,
		OnFinish:   w.onCronFinish,
	})
	if err != nil {
		return nil, err
	}
	w.cron = svc
	return w, nil
}

// Name names the wing in logs and errors.
func (w *Wing) Name() string { return "automation" }

// Register adds cron.*, wake and the heartbeat methods.
func (w *Wing) Register(srv *rpc.Server, _ *http.ServeMux) {
	w.cron.Register(srv)
	w.registerHeartbeatMethods(srv)
}

// Start settles what the last run of the gateway left (interrupted and
// missed runs), starts the timer and schedules the heartbeats.
func (w *Wing) Start(ctx context.Context) error {
	// A stop signal during start-up must not turn into a failed start:
	// loading the jobs finishes, and the stop follows in order.
	ctx = context.WithoutCancel(ctx)
	if err := w.cron.Start(ctx); err != nil {
		return err
	}
	cfg := w.cfg()
	jobs, err := heartbeatJobs(cfg)
	if err := errors.Join(err, w.cron.SyncSystem(ctx, jobs)); err != nil {
		w.log.Error("heartbeats not scheduled", "err", err)
	}
	if h := cfg.Hooks; h.Enabled {
		w.log.Info("hooks listening", "path", h.BasePath())
	}
	if !cfg.Cron.IsEnabled() {
		w.log.Warn("cron.enabled is false: jobs and heartbeats do not fire on schedule (manual runs and wakes still work)")
	}
	return nil
}

// Prepare works out the heartbeat jobs of a new config, refusing one
// whose heartbeat interval does not parse; commit schedules them.
func (w *Wing) Prepare(snap *config.Snapshot) (commit func(), err error) {
	jobs, err := heartbeatJobs(snap.Config)
	if err != nil {
		return nil, err
	}
	if err := config.CheckHooks(snap.Config.Hooks); err != nil {
		return nil, err
	}
	return func() {
		if err := w.cron.SyncSystem(context.Background(), jobs); err != nil {
			w.log.Error("heartbeats not updated from the new config", "err", err)
		}
	}, nil
}

// Stop stops the scheduler, waiting for running jobs until ctx ends.
// Stopping twice is harmless.
func (w *Wing) Stop(ctx context.Context) { w.cron.Stop(ctx) }

// Close stops the scheduler if the gateway did not already.
func (w *Wing) Close(ctx context.Context) error {
	w.Stop(ctx)
	return nil
}

// heartbeatJobID is the id of an agent's system-owned heartbeat job.
func heartbeatJobID(agentID string) string { return "heartbeat:" + agentID }

// heartbeatJobs is one system job per agent whose heartbeat is on. An
// agent whose interval does not parse is left out and named in the error.
func heartbeatJobs(cfg *config.Config) ([]cron.Job, error) {
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
	return jobs, errors.Join(errs...)
}
