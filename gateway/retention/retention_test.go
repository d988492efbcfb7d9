package retention

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
)

func TestRetentionEvery(t *testing.T) {
	tests := []struct {
		name string
		set  func(*config.Config)
		want time.Duration
	}{
		{"defaults: hourly", func(*config.Config) {}, time.Hour},
		{"half the shortest retention", func(c *config.Config) { c.Gateway.Retention.ChannelMessages = config.RetentionOf(30 * time.Minute) }, 15 * time.Minute},
		{"never under a minute", func(c *config.Config) { c.Cron.SessionRetention = config.RetentionOf(10 * time.Second) }, time.Minute},
		{"kept forever does not count", func(c *config.Config) {
			c.Gateway.Retention.ToolAudit = config.Retention{Off: true}
			c.Cron.SessionRetention = config.Retention{Off: true}
		}, time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Defaults()
			tt.set(cfg)
			if got := Every(cfg); got != tt.want {
				t.Fatalf("Every = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSweepUntilDone: full batches are followed by another, a short one
// or an error ends the sweep.
func TestSweepUntilDone(t *testing.T) {
	tests := []struct {
		name      string
		batches   []int
		fail      bool
		wantCalls int
		wantTotal int
	}{
		{"nothing to delete", []int{0}, false, 1, 0},
		{"two full batches and a short one", []int{Batch, Batch, 7}, false, 3, 2*Batch + 7},
		{"an error stops it", []int{Batch, 0}, true, 1, Batch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			sw := sweepFunc(func(_ context.Context, _ time.Time, _ *config.Config, limit int) (int, error) {
				if limit != Batch {
					t.Fatalf("limit %d, want %d", limit, Batch)
				}
				n := tt.batches[calls]
				calls++
				if tt.fail {
					return n, errors.New("disk full")
				}
				return n, nil
			})
			total, err := sweepUntilDone(context.Background(), sw, time.Now(), config.Defaults())
			if (err != nil) != tt.fail || calls != tt.wantCalls || total != tt.wantTotal {
				t.Fatalf("calls %d total %d err %v; want calls %d total %d", calls, total, err, tt.wantCalls, tt.wantTotal)
			}
		})
	}
}

type fakeLedger struct{ got []channels.LedgerRetention }

func (f *fakeLedger) SweepLedger(_ context.Context, _ time.Time, r channels.LedgerRetention, limit int) (int, error) {
	f.got = append(f.got, r)
	return 0, nil
}

type fakeCronSessions struct{ got []time.Duration }

func (f *fakeCronSessions) SweepRetiredCron(_ context.Context, _ time.Time, maxAge time.Duration, limit int) (int, error) {
	f.got = append(f.got, maxAge)
	return 0, nil
}

// TestLoopSweepsWhatItIsGiven: each owner it is given is swept with the
// retention the live config sets; an owner left nil is not swept.
func TestLoopSweepsWhatItIsGiven(t *testing.T) {
	cfg := config.Defaults()
	cfg.Cron.SessionRetention = config.Retention{Off: true}
	ledger, sessions := &fakeLedger{}, &fakeCronSessions{}
	l := New(Options{Config: func() *config.Config { return cfg }, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Ledger: ledger, CronSessions: sessions})
	if len(l.sweepers) != 2 {
		t.Fatalf("sweepers %v, want the channel ledger and cron run sessions", l.sweepers)
	}
	l.sweepAll(context.Background())
	want := channels.LedgerRetention{MaxAge: 7 * 24 * time.Hour, MaxRows: 100_000}
	if len(ledger.got) != 1 || ledger.got[0] != want {
		t.Fatalf("ledger swept with %+v, want %+v", ledger.got, want)
	}
	if len(sessions.got) != 1 || sessions.got[0] != 0 {
		t.Fatalf("cron sessions swept with %v, want kept forever (0)", sessions.got)
	}
}

// TestRunStopsWithItsContext: Run sweeps at once and returns when its
// context ends.
func TestRunStopsWithItsContext(t *testing.T) {
	ledger := &fakeLedger{}
	l := New(Options{Config: config.Defaults, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Ledger: ledger})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l.Run(ctx) // returns: the context has ended
	if len(ledger.got) != 0 {
		t.Fatalf("swept %d times under an ended context", len(ledger.got))
	}
}

// TestRunWaitsFirstAfter: with FirstAfter, a gateway stopped during its
// start has not swept at all.
func TestRunWaitsFirstAfter(t *testing.T) {
	ledger := &fakeLedger{}
	l := New(Options{Config: config.Defaults, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Ledger: ledger, FirstAfter: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.Run(ctx); close(done) }()
	cancel()
	<-done
	if len(ledger.got) != 0 {
		t.Fatalf("swept %d times before FirstAfter", len(ledger.got))
	}
}
