package host

import (
	"context"
	"sync"
	"unicode/utf8"
)

// Events the node publishes through node.event after a system.run.
const (
	EventExecFinished = "exec.finished"
	EventExecDenied   = "exec.denied"
	// maxEventOutput caps the output tail in exec.finished.
	maxEventOutput = 20_000
)

// nodeEvent is one node.event to send once the invocation is answered.
type nodeEvent struct {
	event   string
	payload any
}

// eventQueue collects the events of one invocation.
type eventQueue struct {
	mu     sync.Mutex
	events []nodeEvent
}

type eventQueueKey struct{}

// withEventQueue returns a context whose handlers may queue events, and
// the queue.
func withEventQueue(ctx context.Context) (context.Context, *eventQueue) {
	q := &eventQueue{}
	return context.WithValue(ctx, eventQueueKey{}, q), q
}

// queueEvent adds an event to the invocation's queue, if it has one.
func queueEvent(ctx context.Context, event string, payload any) {
	q, ok := ctx.Value(eventQueueKey{}).(*eventQueue)
	if !ok {
		return
	}
	q.mu.Lock()
	q.events = append(q.events, nodeEvent{event, payload})
	q.mu.Unlock()
}

func (q *eventQueue) take() []nodeEvent {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.events
	q.events = nil
	return out
}

// tail returns at most n bytes from the end of s, starting on a rune.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}
