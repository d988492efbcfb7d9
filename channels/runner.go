package channels

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"
)

// Runner is the part of Start, Stop and status reporting that every
// adapter shares: it runs the adapter's loop once (Lifecycle), keeps the
// sink Start was given and stamps each Status before handing it on. An
// adapter keeps one in a field filled in by New, and keeps only what is
// its own: its settings checks, its loop and how it names its bot.
type Runner struct {
	Lifecycle

	// Channel is the network id that starts the runner's error texts
	// ("telegram: already started").
	Channel string
	// Bot names the bot in a Status that does not say, "" while it is
	// not yet known; nil for never.
	Bot func() string
	// ForgetSink drops the sink once stopped, for adapters whose webhook
	// must answer 503 after Stop rather than store into a stopped account.
	ForgetSink bool

	sink atomic.Pointer[Sink]
}

// Start stores sink, reports starting and runs run in the background
// until Stop. Validating the adapter's own settings is the caller's, done
// before.
func (r *Runner) Start(ctx context.Context, sink Sink, run func(ctx context.Context)) error {
	if sink == nil {
		return errors.New(r.Channel + ": Start needs a sink")
	}
	// The sink is stored and "starting" reported under the lifecycle's
	// lock, so a racing second Start neither swaps the sink nor reports.
	err := r.Begin(ctx, func() {
		r.sink.Store(&sink)
		r.Report(Status{State: StateStarting})
	}, run)
	if errors.Is(err, ErrStarted) {
		return errors.New(r.Channel + ": already started")
	}
	return err
}

// Stop ends the loop and waits for it, or until ctx is done, then
// reports stopped once. Stop before Start does nothing.
func (r *Runner) Stop(ctx context.Context) error {
	first, err := r.End(ctx)
	if err != nil {
		return fmt.Errorf("%s: stop: %w", r.Channel, err)
	}
	if first {
		r.Report(Status{State: StateStopped})
		if r.ForgetSink {
			r.sink.Store(nil)
		}
	}
	return nil
}

// Sink is the sink Start was given, nil before Start (and after Stop
// with ForgetSink).
func (r *Runner) Sink() Sink {
	if p := r.sink.Load(); p != nil {
		return *p
	}
	return nil
}

// Report hands st to the sink, if started, stamped with the time and the
// bot's name.
func (r *Runner) Report(st Status) {
	sink := r.Sink()
	st.At = time.Now()
	if st.Bot == "" && r.Bot != nil {
		st.Bot = r.Bot()
	}
	if sink != nil {
		sink.Status(st)
	}
}

// AdapterLog is the logger of one account's adapter: log, or a
// discarding one when nil, with the attributes every channel's logs
// carry so they can be told apart and filtered alike.
func AdapterLog(log *slog.Logger, channel, accountID string) *slog.Logger {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return log.With("component", "channel", "channel", channel, "account", accountID)
}
