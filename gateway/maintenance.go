package gateway

import (
	"context"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools"
)

// retentionBatch is the most rows one sweep transaction deletes, as
// OpenClaw's audit maintenance does: a short write that message handling
// queues behind for milliseconds, not a long lock.
const retentionBatch = 1024

// sweeper is one table owner's retention step: delete at most limit rows
// the current config lets go, and say how many went.
type sweeper interface {
	Sweep(ctx context.Context, now time.Time, cfg *config.Config, limit int) (int, error)
}

type sweepFunc func(ctx context.Context, now time.Time, cfg *config.Config, limit int) (int, error)

func (f sweepFunc) Sweep(ctx context.Context, now time.Time, cfg *config.Config, limit int) (int, error) {
	return f(ctx, now, cfg, limit)
}

// keptFor is a retention as a maximum age, 0 when rows are kept forever.
func keptFor(r config.Retention) time.Duration {
	if !r.Keeps() {
		return 0
	}
	return r.D
}

// sweepers are the owners of the tables that grow with use: the channel
// ledger, the tool audit and approvals, and finished cron runs' sessions.
func (s *System) sweepers() map[string]sweeper {
	out := map[string]sweeper{}
	if s.channels != nil {
		m := s.channels
		out["channel ledger"] = sweepFunc(func(ctx context.Context, now time.Time, cfg *config.Config, limit int) (int, error) {
			r := cfg.Gateway.Retention
			return m.SweepLedger(ctx, now, channels.LedgerRetention{MaxAge: keptFor(r.ChannelMessages), MaxRows: r.ChannelMaxRows}, limit)
		})
	}
	if s.audit != nil {
		a := s.audit
		out["tool audit"] = sweepFunc(func(ctx context.Context, now time.Time, cfg *config.Config, limit int) (int, error) {
			r := cfg.Gateway.Retention
			return a.Sweep(ctx, now, tools.AuditRetention{MaxAge: keptFor(r.ToolAudit), MaxRows: r.ToolAuditMaxRows}, limit)
		})
	}
	if s.sessions != nil {
		st := s.sessions
		out["cron run sessions"] = sweepFunc(func(ctx context.Context, now time.Time, cfg *config.Config, limit int) (int, error) {
			return st.SweepRetiredCron(ctx, now, keptFor(cfg.Cron.SessionRetention), limit)
		})
	}
	return out
}

// retentionEvery is how often the sweep runs: hourly, as OpenClaw's audit
// maintenance, or at half the shortest retention when that is shorter, so
// that rows never outlive their retention by more than half of it.
func retentionEvery(cfg *config.Config) time.Duration {
	every := time.Hour
	for _, d := range []time.Duration{keptFor(cfg.Gateway.Retention.ChannelMessages), keptFor(cfg.Gateway.Retention.ToolAudit),
		keptFor(cfg.Cron.SessionRetention)} {
		if d > 0 && d/2 < every {
			every = d / 2
		}
	}
	return max(every, time.Minute)
}

// sweepAll runs every sweeper until it has nothing left to delete, one
// bounded batch at a time, so writers waiting for the lock get it between
// batches.
func (s *System) sweepAll(ctx context.Context, sw map[string]sweeper) {
	cfg := s.current().snap.Config
	now := time.Now()
	for name, one := range sw {
		total, err := sweepUntilDone(ctx, one, now, cfg)
		if err != nil {
			s.log.Error("retention sweep failed", "table", name, "deleted", total, "err", err)
		} else if total > 0 {
			s.log.Info("retention sweep", "table", name, "deleted", total)
		}
	}
}

// sweepUntilDone calls one batch after another until a batch comes back
// short, an error, or the gateway stops.
func sweepUntilDone(ctx context.Context, one sweeper, now time.Time, cfg *config.Config) (int, error) {
	total := 0
	for ctx.Err() == nil {
		n, err := one.Sweep(ctx, now, cfg, retentionBatch)
		total += n
		if err != nil || n < retentionBatch {
			return total, err
		}
	}
	return total, nil
}

// retentionLoop is the one owner of the retention timer: a sweep at start
// and then every retentionEvery until the gateway stops.
func (s *System) retentionLoop() {
	sw := s.sweepers()
	s.bgWG.Add(1)
	go func() {
		defer s.bgWG.Done()
		for {
			s.sweepAll(s.bg, sw)
			t := time.NewTimer(retentionEvery(s.current().snap.Config))
			select {
			case <-s.bg.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
	}()
}
