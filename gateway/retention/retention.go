// Package retention is the gateway's one retention timer: it sweeps the
// tables that grow with use (the channel ledger, the tool audit and
// approvals, finished cron runs' sessions) in short batches, at start and
// then hourly or at half the shortest retention. The tables' owners do
// the deleting; this package only decides when and how much at a time.
package retention

import (
	"context"
	"log/slog"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools"
)

// Batch is the most rows one sweep transaction deletes, as OpenClaw's
// audit maintenance does: a short write that message handling queues
// behind for milliseconds, not a long lock.
const Batch = 1024

// Ledger is the channel ledger's sweep (channels.Manager).
type Ledger interface {
	SweepLedger(ctx context.Context, now time.Time, r channels.LedgerRetention, limit int) (int, error)
}

// Audit is the tool audit's and approvals' sweep (tools.SQLAudit).
type Audit interface {
	Sweep(ctx context.Context, now time.Time, r tools.AuditRetention, limit int) (int, error)
}

// CronSessions is the sweep of finished cron runs' retired sessions
// (sessions.Store).
type CronSessions interface {
	SweepRetiredCron(ctx context.Context, now time.Time, maxAge time.Duration, limit int) (int, error)
}

// Options are what the loop sweeps and by which config. A nil table
// owner is not swept.
type Options struct {
	Config       func() *config.Config // the live config, read at every sweep
	Log          *slog.Logger
	Ledger       Ledger
	Audit        Audit
	CronSessions CronSessions
	// FirstAfter delays the first sweep (0: at once), so a starting
	// gateway answers its first clients before it deletes anything.
	FirstAfter time.Duration
}

// Loop is the one owner of the retention timer.
type Loop struct {
	config     func() *config.Config
	log        *slog.Logger
	sweepers   map[string]sweeper
	firstAfter time.Duration
}

// New builds the loop over the table owners that opts names.
func New(opts Options) *Loop {
	out := map[string]sweeper{}
	if m := opts.Ledger; m != nil {
		out["channel ledger"] = sweepFunc(func(ctx context.Context, now time.Time, cfg *config.Config, limit int) (int, error) {
			r := cfg.Gateway.Retention
			return m.SweepLedger(ctx, now, channels.LedgerRetention{MaxAge: KeptFor(r.ChannelMessages), MaxRows: r.ChannelMaxRows}, limit)
		})
	}
	if a := opts.Audit; a != nil {
		out["tool audit"] = sweepFunc(func(ctx context.Context, now time.Time, cfg *config.Config, limit int) (int, error) {
			r := cfg.Gateway.Retention
			return a.Sweep(ctx, now, tools.AuditRetention{MaxAge: KeptFor(r.ToolAudit), MaxRows: r.ToolAuditMaxRows}, limit)
		})
	}
	if st := opts.CronSessions; st != nil {
		out["cron run sessions"] = sweepFunc(func(ctx context.Context, now time.Time, cfg *config.Config, limit int) (int, error) {
			return st.SweepRetiredCron(ctx, now, KeptFor(cfg.Cron.SessionRetention), limit)
		})
	}
	return &Loop{config: opts.Config, log: opts.Log, sweepers: out, firstAfter: opts.FirstAfter}
}

// sweeper is one table owner's retention step: delete at most limit rows
// the current config lets go, and say how many went.
type sweeper interface {
	Sweep(ctx context.Context, now time.Time, cfg *config.Config, limit int) (int, error)
}

type sweepFunc func(ctx context.Context, now time.Time, cfg *config.Config, limit int) (int, error)

func (f sweepFunc) Sweep(ctx context.Context, now time.Time, cfg *config.Config, limit int) (int, error) {
	return f(ctx, now, cfg, limit)
}

// KeptFor is a retention as a maximum age, 0 when rows are kept forever.
func KeptFor(r config.Retention) time.Duration {
	if !r.Keeps() {
		return 0
	}
	return r.D
}

// Every is how often the sweep runs: hourly, as OpenClaw's audit
// maintenance, or at half the shortest retention when that is shorter, so
// that rows never outlive their retention by more than half of it.
func Every(cfg *config.Config) time.Duration {
	every := time.Hour
	for _, d := range []time.Duration{KeptFor(cfg.Gateway.Retention.ChannelMessages), KeptFor(cfg.Gateway.Retention.ToolAudit),
		KeptFor(cfg.Cron.SessionRetention)} {
		if d > 0 && d/2 < every {
			every = d / 2
		}
	}
	return max(every, time.Minute)
}

// sweepAll runs every sweeper until it has nothing left to delete, one
// bounded batch at a time, so writers waiting for the lock get it between
// batches.
func (l *Loop) sweepAll(ctx context.Context) {
	cfg := l.config()
	now := time.Now()
	for name, one := range l.sweepers {
		total, err := sweepUntilDone(ctx, one, now, cfg)
		if err != nil {
			l.log.Error("retention sweep failed", "table", name, "deleted", total, "err", err)
		} else if total > 0 {
			l.log.Info("retention sweep", "table", name, "deleted", total)
		}
	}
}

// sweepUntilDone calls one batch after another until a batch comes back
// short, an error, or the gateway stops.
func sweepUntilDone(ctx context.Context, one sweeper, now time.Time, cfg *config.Config) (int, error) {
	total := 0
	for ctx.Err() == nil {
		n, err := one.Sweep(ctx, now, cfg, Batch)
		total += n
		if err != nil || n < Batch {
			return total, err
		}
	}
	return total, nil
}

// Run sweeps after FirstAfter and then every Every (of the config at
// that time) until ctx ends.
func (l *Loop) Run(ctx context.Context) {
	if l.firstAfter > 0 {
		t := time.NewTimer(l.firstAfter)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
	for {
		l.sweepAll(ctx)
		t := time.NewTimer(Every(l.config()))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
