package channels

import (
	"context"
	"errors"
	"sync"
)

// Lifecycle runs an adapter's background loop once: Begin starts it, End
// cancels it and waits. Runner embeds one for the adapters, so none keeps
// its own cancel, done and stopped fields.
type Lifecycle struct {
	mu      sync.Mutex
	cancel  context.CancelFunc
	done    chan struct{}
	stopped bool
}

// ErrStarted is returned by Begin on a second start: an adapter runs
// once; build a new one to start again.
var ErrStarted = errors.New("already started")

// Begin calls prepare (under the lifecycle's lock, so nothing else starts
// meanwhile), then runs run in its own goroutine. run's context is not
// ended by ctx, only by End: an adapter outlives the call that started
// it.
func (l *Lifecycle) Begin(ctx context.Context, prepare func(), run func(ctx context.Context)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done != nil {
		return ErrStarted
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	l.cancel, l.done = cancel, make(chan struct{})
	if prepare != nil {
		prepare()
	}
	go func(done chan struct{}) {
		defer close(done)
		run(runCtx)
	}(l.done)
	return nil
}

// End cancels the loop and waits for it to return, or for ctx. first is
// true for the call that ended a running loop, so "stopped" is reported
// once; a loop that never started gives false and no error.
func (l *Lifecycle) End(ctx context.Context) (first bool, err error) {
	l.mu.Lock()
	cancel, done := l.cancel, l.done
	l.mu.Unlock()
	if cancel == nil {
		return false, nil
	}
	cancel()
	select {
	case <-done:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	first = !l.stopped
	l.stopped = true
	return first, nil
}

// Running reports whether the loop was started and not yet stopped.
func (l *Lifecycle) Running() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.done != nil && !l.stopped
}

// Done is closed when the loop has returned (nil before Begin), for
// callers that must know it gave up on its own.
func (l *Lifecycle) Done() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.done
}
