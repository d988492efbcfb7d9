package agents

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/agents/sessions"
)

// maxSystemEvents bounds one session's queue: a job firing every minute
// into a session nobody talks to must not grow it without end. The
// oldest go first.
const maxSystemEvents = 20

// SystemEvent is a notice for a session's next turn: a scheduled
// reminder, a wake, a finished background command.
type SystemEvent struct {
	Text string
	At   time.Time
}

// systemEvents holds the queued events by session key. They live in
// memory, as OpenClaw keeps them: what fires them (a job, a wake) is
// recorded in the store, and a restart loses only the notice.
type systemEvents struct {
	mu sync.Mutex
	q  map[string][]SystemEvent
}

func (e *systemEvents) add(key string, ev SystemEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.q == nil {
		e.q = map[string][]SystemEvent{}
	}
	q := append(e.q[key], ev)
	if len(q) > maxSystemEvents {
		q = q[len(q)-maxSystemEvents:]
	}
	e.q[key] = q
}

func (e *systemEvents) take(key string) []SystemEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	q := e.q[key]
	delete(e.q, key)
	return q
}

func (e *systemEvents) putBack(key string, evs []SystemEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.q == nil {
		e.q = map[string][]SystemEvent{}
	}
	q := append(evs, e.q[key]...)
	if len(q) > maxSystemEvents {
		q = q[len(q)-maxSystemEvents:]
	}
	e.q[key] = q
}

func (e *systemEvents) count(key string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.q[key])
}

// EnqueueSystemEvent queues text for the session's next turn (a heartbeat
// or the next message), which sees it ahead of its own message.
func (s *Service) EnqueueSystemEvent(sessionKey, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	s.events.add(sessionKey, SystemEvent{Text: text, At: time.Now()})
}

// PendingSystemEvents counts the events waiting for a session's next
// turn.
func (s *Service) PendingSystemEvents(sessionKey string) int { return s.events.count(sessionKey) }

// MainSessionKey is the agent's main session key under the live config.
func (s *Service) MainSessionKey(agentID string) string {
	cfg := s.config()
	if a, ok := resolveAgent(cfg, s.opts.StateDir, agentID); ok {
		agentID = a.ID
	}
	return sessions.MainKey(agentID, cfg.Session.MainKey)
}

func formatSystemEvents(evs []SystemEvent) string {
	var b strings.Builder
	for i, ev := range evs {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "System: [%s] %s", ev.At.UTC().Format("2006-01-02 15:04 UTC"), ev.Text)
	}
	return b.String()
}

// HasModel reports whether the agent has a model to call, so callers
// that would only fail (a scheduled heartbeat on a fresh install) can
// skip instead.
func (s *Service) HasModel(agentID string) bool {
	a, ok := resolveAgent(s.config(), s.opts.StateDir, agentID)
	return ok && len(a.Models) > 0
}
