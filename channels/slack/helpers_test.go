package slack

import (
	"context"
	"errors"
	"net/http"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/slack/slacktest"
)

const (
	testBotToken = "xoxb-1111-SECRETBOT"
	testAppToken = "xapp-1-SECRETAPP"
	testSecret   = "signing-SECRET-value"
	waitFor      = 10 * time.Second
)

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

// setFail makes the next n Receive calls fail.
func (s *recSink) setFail(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failN = n
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

// count returns how many statuses of state the sink saw.
func (s *recSink) count(state channels.State) int {
	n := 0
	for _, st := range s.Statuses() {
		if st.State == state {
			n++
		}
	}
	return n
}

func (s *recSink) hasState(state channels.State) bool { return s.count(state) > 0 }

// last returns the latest status.
func (s *recSink) last() channels.Status {
	sts := s.Statuses()
	if len(sts) == 0 {
		return channels.Status{}
	}
	return sts[len(sts)-1]
}

// eventually polls cond until it holds, failing the test after waitFor.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// newFake starts a fake Slack for the test tokens.
func newFake(t testing.TB) *slacktest.Server {
	return slacktest.New(t, testBotToken, testAppToken)
}

// newAdapter returns a socket-mode adapter on fake with a short ping
// timeout and fast backoff; edit may change the options.
func newAdapter(t testing.TB, fake *slacktest.Server, edit func(*Options)) *Adapter {
	t.Helper()
	o := Options{
		AccountID:   "work",
		BotToken:    testBotToken,
		AppToken:    testAppToken,
		APIURL:      fake.APIURL(),
		PingTimeout: 300 * time.Millisecond,
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

// httpMode switches options to HTTP Events mode.
func httpMode(o *Options) {
	o.AppToken = ""
	o.SigningSecret = testSecret
}

// start starts a on sink and stops it when the test ends.
func start(t testing.TB, a *Adapter, sink channels.Sink) {
	t.Helper()
	if err := a.Start(context.Background(), sink); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		defer cancel()
		if err := a.Stop(ctx); err != nil {
			// Show where the loop is stuck.
			_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
			t.Errorf("Stop: %v", err)
		}
	})
}

// loopEnded reports whether a's goroutine finished.
func loopEnded(a *Adapter) bool {
	done := a.life.Done()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}
