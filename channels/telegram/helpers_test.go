package telegram

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
)

const (
	testToken = "123456:SECRET-token_value"
	waitFor   = 10 * time.Second
)

var ada = telegramtest.User{ID: 42, Username: "ada", FirstName: "Ada"}

// recSink records what the adapter hands it and fails the first failN
// Receive calls.
type recSink struct {
	mu       sync.Mutex
	failN    int
	attempts []channels.Inbound // every Receive call
	stored   []channels.Inbound // the accepted ones
	statuses []channels.Status
}

func (s *recSink) Receive(_ context.Context, in channels.Inbound) error {
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

func (s *recSink) Status(st channels.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.statuses = append(s.statuses, st)
}

func (s *recSink) Stored() []channels.Inbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.stored)
}

func (s *recSink) Attempts() []channels.Inbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.attempts)
}

func (s *recSink) Statuses() []channels.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.statuses)
}

// hasState reports whether the sink saw state.
func (s *recSink) hasState(state channels.State) bool {
	for _, st := range s.Statuses() {
		if st.State == state {
			return true
		}
	}
	return false
}

// eventually polls cond until it holds, failing the test after waitFor.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// newAdapter returns an adapter on fake with fast polls and backoff.
func newAdapter(t *testing.T, fake *telegramtest.Server, edit func(*Options)) *Adapter {
	t.Helper()
	o := Options{
		AccountID:   "work",
		Token:       testToken,
		APIRoot:     fake.URL(),
		PollTimeout: time.Second,
		CallTimeout: 5 * time.Second,
		BackoffMin:  time.Millisecond,
		BackoffMax:  5 * time.Millisecond,
		HTTPClient:  &http.Client{},
	}
	if edit != nil {
		edit(&o)
	}
	return New(o)
}

// start starts a on sink and stops it when the test ends.
func start(t *testing.T, a *Adapter, sink channels.Sink) {
	t.Helper()
	if err := a.Start(context.Background(), sink); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		defer cancel()
		if err := a.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
}
