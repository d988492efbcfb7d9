package supervisor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
)

// ErrClosed is returned by Sync after Close; the caller gives up, as the
// gateway is shutting down.
var ErrClosed = errors.New("manager closed")

// Group runs one Unit per name. C is an entry's configuration, T the
// provider package's value for a running entry (its connection, its
// process), which owns the Unit.
type Group[C, T any] struct {
	what  string
	same  func(a, b C) bool
	start func(C) (T, *Unit)
	root  context.Context
	stop  context.CancelFunc

	mu      sync.Mutex
	members map[string]member[C, T]
	closed  bool
}

type member[C, T any] struct {
	cfg  C
	val  T
	unit *Unit
}

// NewGroup makes an empty Group. what names an entry in errors ("stop
// <what> %q"). same reports whether an entry running with a can be kept
// for b. start makes the value and Unit for an entry; the Group starts
// and stops the Unit.
func NewGroup[C, T any](what string, same func(a, b C) bool, start func(C) (T, *Unit)) *Group[C, T] {
	// The Group's root lifetime; every Unit hangs off it.
	root, stop := context.WithCancel(context.Background())
	return &Group[C, T]{what: what, same: same, start: start, root: root, stop: stop, members: map[string]member[C, T]{}}
}

// Sync makes the running entries match want, keyed by name: new and
// changed entries start, those not in want stop, unchanged ones keep
// running. New entries start in the background. ctx bounds the wait for
// stopped entries to end; after Close it returns ErrClosed.
func (g *Group[C, T]) Sync(ctx context.Context, want map[string]C) error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return ErrClosed
	}
	var stopping []string
	var units []*Unit
	for name, m := range g.members {
		if c, ok := want[name]; !ok || !g.same(m.cfg, c) {
			stopping = append(stopping, name)
			units = append(units, m.unit)
			delete(g.members, name)
		}
	}
	for name, c := range want {
		if _, ok := g.members[name]; !ok {
			val, u := g.start(c)
			u.start(g.root)
			g.members[name] = member[C, T]{cfg: c, val: val, unit: u}
		}
	}
	g.mu.Unlock()

	for _, u := range units {
		u.stop()
	}
	for i, u := range units {
		select {
		case <-u.done:
		case <-ctx.Done():
			return fmt.Errorf("stop %s %q: %w", g.what, stopping[i], ctx.Err())
		}
	}
	return nil
}

// Members returns the running entries' values in name order.
func (g *Group[C, T]) Members() []T {
	g.mu.Lock()
	names := slices.Sorted(maps.Keys(g.members))
	out := make([]T, len(names))
	for i, name := range names {
		out[i] = g.members[name].val
	}
	g.mu.Unlock()
	return out
}

// Close stops every entry and waits for each to end. It is idempotent.
func (g *Group[C, T]) Close() {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return
	}
	g.closed = true
	ms := slices.Collect(maps.Values(g.members))
	clear(g.members)
	g.mu.Unlock()
	g.stop()
	for _, m := range ms {
		<-m.unit.done
	}
}
