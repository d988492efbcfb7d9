package supervisor

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw-go/openclaw/backoff"
)

// State is where a Unit is. Each provider package names these states in
// its own words (an MCP server is "connecting", a plugin "starting").
type State int

const (
	// Starting: a run is under way and has not called ready yet.
	Starting State = iota
	// Ready: the run called ready and has not ended.
	Ready
	// Down: the last run failed or ended; a restart waits out the backoff.
	Down
	// Stopped: the Unit was stopped and will not run again.
	Stopped
)

// Status is a snapshot of a Unit.
type Status struct {
	State State
	// Error is the last failure, "" for none. It is kept while starting
	// again and cleared once the Unit is ready.
	Error string
	// Since is when State last changed.
	Since time.Time
	// Restarts counts runs started after the first.
	Restarts int
}

// Run runs one process or session until it ends or ctx is done. It calls
// ready, from its own goroutine, once the provider is up (started and its
// tools listed); that clears the last error, and once a run that called
// ready has lasted at least the longest backoff delay, its end restarts
// the backoff from the shortest delay. The error says why the run ended;
// it is ignored once ctx is done.
type Run func(ctx context.Context, ready func()) error

// Unit keeps one Run going until it is stopped. A Group starts and stops
// it; the provider's own code only reads its Status.
type Unit struct {
	log     *slog.Logger
	what    string // "mcp server", "plugin": starts the restart log line
	backoff backoff.Policy
	run     Run
	cancel  context.CancelFunc
	done    chan struct{}

	mu sync.Mutex
	st Status
}

// Defaults for a zero backoff.Policy's Min and Max in NewUnit.
const (
	DefaultBackoffMin = time.Second
	DefaultBackoffMax = time.Minute
)

// NewUnit makes a Unit that runs run once a Group starts it. log gets a
// warning, "<what> down; restarting", each time a run ends. b bounds the
// wait before a restart: Min after the first failure, doubling per
// consecutive failure up to Max; a Min or Max of zero (or less) means
// [DefaultBackoffMin] or [DefaultBackoffMax].
func NewUnit(log *slog.Logger, what string, b backoff.Policy, run Run) *Unit {
	if b.Min <= 0 {
		b.Min = DefaultBackoffMin
	}
	if b.Max <= 0 {
		b.Max = DefaultBackoffMax
	}
	return &Unit{
		log: log, what: what, backoff: b, run: run,
		done: make(chan struct{}),
		st:   Status{State: Starting, Since: time.Now()},
	}
}

// Status reports where the Unit is.
func (u *Unit) Status() Status {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.st
}

// start runs the Unit in its own goroutine until ctx is done.
func (u *Unit) start(ctx context.Context) {
	ctx, u.cancel = context.WithCancel(ctx)
	go u.loop(ctx)
}

// stop asks the Unit to end; done closes once its last run has returned.
func (u *Unit) stop() { u.cancel() }

func (u *Unit) set(s State, err error) {
	u.mu.Lock()
	u.st.State, u.st.Since = s, time.Now()
	if err != nil {
		u.st.Error = err.Error()
	}
	if s == Ready {
		u.st.Error = ""
	}
	u.mu.Unlock()
}

// loop keeps the run going until ctx ends, restarting it with backoff.
func (u *Unit) loop(ctx context.Context) {
	defer close(u.done)
	attempt := 0
	for {
		u.set(Starting, nil)
		start := time.Now()
		var ready atomic.Bool
		err := u.runOnce(ctx, func() {
			ready.Store(true)
			u.set(Ready, nil)
		})
		if ctx.Err() != nil {
			u.set(Stopped, nil)
			return
		}
		if ready.Load() && time.Since(start) >= u.backoff.Max {
			// It worked for at least the longest delay: this failure
			// starts afresh rather than continuing a crash loop.
			attempt = 0
		}
		u.set(Down, err)
		delay := u.backoff.Delay(attempt)
		attempt++
		u.log.Warn(u.what+" down; restarting", "err", err, "in", delay)
		select {
		case <-ctx.Done():
			u.set(Stopped, nil)
			return
		case <-time.After(delay):
		}
		u.mu.Lock()
		u.st.Restarts++
		u.mu.Unlock()
	}
}

// runOnce is one run; a panic in it ends the run like an error, so a
// broken provider is restarted instead of taking the gateway down.
func (u *Unit) runOnce(ctx context.Context, ready func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s panicked: %v", u.what, p)
		}
	}()
	return u.run(ctx, ready)
}
