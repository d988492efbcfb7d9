package channelstest

import (
	"context"
	"errors"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
)

// Sink is a channels.Sink that records what an adapter hands it. While
// failures are left (FailingSink, SetFail) Receive refuses, as a store
// that is down would; the zero value accepts everything.
type Sink struct {
	mu       sync.Mutex
	failN    int
	attempts []channels.Inbound // every Receive call
	stored   []channels.Inbound // the accepted ones
	statuses []channels.Status
}

var _ channels.Sink = (*Sink)(nil)

// FailingSink is a Sink whose first n Receive calls fail.
func FailingSink(n int) *Sink { return &Sink{failN: n} }

// SetFail makes the next n Receive calls fail.
func (s *Sink) SetFail(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failN = n
}

// Failing is how many Receive calls are still to fail.
func (s *Sink) Failing() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failN
}

func (s *Sink) Receive(_ context.Context, in channels.Inbound) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts = append(s.attempts, in)
	if s.failN > 0 {
		s.failN--
		return errors.New("store unavailable")
	}
	s.stored = append(s.stored, in)
	return nil
}

func (s *Sink) Status(st channels.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.statuses = append(s.statuses, st)
}

// Stored is what Receive accepted, in order.
func (s *Sink) Stored() []channels.Inbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.stored)
}

// Attempts is every Receive call, refused ones too.
func (s *Sink) Attempts() []channels.Inbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.attempts)
}

// Statuses is every status reported, in order.
func (s *Sink) Statuses() []channels.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.statuses)
}

// Count is how many statuses of state were reported.
func (s *Sink) Count(state channels.State) int {
	n := 0
	for _, st := range s.Statuses() {
		if st.State == state {
			n++
		}
	}
	return n
}

// HasState reports whether state was reported at all.
func (s *Sink) HasState(state channels.State) bool { return s.Count(state) > 0 }

// Last is the latest status, zero before any.
func (s *Sink) Last() channels.Status {
	sts := s.Statuses()
	if len(sts) == 0 {
		return channels.Status{}
	}
	return sts[len(sts)-1]
}

// Eventually polls cond until it holds, failing t after d: for state the
// tests can only observe, not be woken by (WaitFor is for fakes' state).
func Eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Start starts a on sink, failing t if it cannot, and stops it when the
// test ends; a Stop that takes longer than d fails t and prints every
// goroutine, to show where the adapter's loop is stuck.
func Start(t testing.TB, a channels.Adapter, sink channels.Sink, d time.Duration) {
	t.Helper()
	if err := a.Start(context.Background(), sink); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		if err := a.Stop(ctx); err != nil {
			_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
			t.Errorf("Stop: %v", err)
		}
	})
}
