package agents

import (
	"context"
	"runtime"
	"slices"
	"sync"
)

// defaultRunLimit is maxConcurrent unset: OpenClaw's CPU-derived default,
// the larger of 8 and four runs per available CPU.
var defaultRunLimit = max(8, 4*runtime.NumCPU())

// runLimit is the cap for a configured maxConcurrent (0: the default).
func runLimit(limit int) int {
	if limit <= 0 {
		return defaultRunLimit
	}
	return limit
}

// runSlots caps the agent runs that run at once across sessions
// (agents.defaults.maxConcurrent, OpenClaw's main lane); each session's
// queue still runs its own turns one at a time. The limit is read at each
// acquire, so a reload takes effect for the runs that start after it;
// runs already going are never cut off.
//
// Sub-agent runs and the runs a turn starts in another session and waits
// for (sessions_send) are not counted: they have limits of their own, and
// counting them would let a parent holding a slot wait forever on a child
// that cannot get one.
type runSlots struct {
	mu      sync.Mutex
	busy    int
	waiters []chan struct{} // first in, first served
}

// acquire waits for a slot; it fails only when ctx ends first.
func (r *runSlots) acquire(ctx context.Context, limit int) error {
	limit = runLimit(limit)
	r.mu.Lock()
	if r.busy < limit && len(r.waiters) == 0 {
		r.busy++
		r.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	r.waiters = append(r.waiters, ch)
	r.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		r.mu.Lock()
		defer r.mu.Unlock()
		if i := slices.Index(r.waiters, ch); i >= 0 {
			r.waiters = slices.Delete(r.waiters, i, i+1)
			return ctx.Err()
		}
		// The slot was handed over as ctx ended: pass it on.
		r.releaseLocked(limit)
		return ctx.Err()
	}
}

// release gives the slot to the longest waiter, or frees it; with the
// limit lowered by a reload, slots above it are freed, not handed on.
func (r *runSlots) release(limit int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.releaseLocked(runLimit(limit))
}

func (r *runSlots) releaseLocked(limit int) {
	switch {
	case r.busy > limit || len(r.waiters) == 0:
		r.busy--
	default:
		close(r.waiters[0]) // the slot passes on: busy stays
		r.waiters = r.waiters[1:]
	}
	// A raised limit lets more waiters in at once.
	for len(r.waiters) > 0 && r.busy < limit {
		r.busy++
		close(r.waiters[0])
		r.waiters = r.waiters[1:]
	}
}

// counts reports the runs holding a slot and those waiting for one.
func (r *runSlots) counts() (busy, waiting int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.busy, len(r.waiters)
}
