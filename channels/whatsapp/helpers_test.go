package whatsapp

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	wastore "go.mau.fi/whatsmeow/store"
	"go.mau.fi/whatsmeow/types"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/whatsapp/whatsapptest"
	"github.com/openclaw-go/openclaw/gateway/store"
)

const waitFor = 10 * time.Second

var _ Client = (*whatsapptest.Fake)(nil)

var (
	ownJID = types.NewADJID("4915100000001", 0, 7) // our device
	ownPN  = whatsapptest.Phone("4915100000001")
	ownLID = types.NewJID("99887766554433", types.HiddenUserServer)
	ada    = whatsapptest.Phone("4915200000002")
	team   = whatsapptest.Group("120363000000000001")
)

// recSink records what the adapter hands it and fails the first failN
// Receive calls.
type recSink struct {
	mu       sync.Mutex
	failN    int
	attempts []channels.Inbound
	stored   []channels.Inbound
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

func (s *recSink) Statuses() []channels.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.statuses)
}

// last is the latest status, zero before any.
func (s *recSink) last() channels.Status {
	st := s.Statuses()
	if len(st) == 0 {
		return channels.Status{}
	}
	return st[len(st)-1]
}

func (s *recSink) hasState(state channels.State) bool {
	for _, st := range s.Statuses() {
		if st.State == state {
			return true
		}
	}
	return false
}

// eventually polls cond until it holds, failing the test after waitFor.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// openDB is a fresh gateway database in a temp dir.
func openDB(t testing.TB) *sql.DB {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.DB
}

// newAdapter is an adapter on fake with fast backoff.
func newAdapter(t testing.TB, fake *whatsapptest.Fake, edit func(*Options)) *Adapter {
	t.Helper()
	o := Options{
		AccountID:  "main",
		DB:         openDB(t),
		NewClient:  func(*wastore.Device) Client { return fake.Fresh() },
		BackoffMin: time.Millisecond,
		BackoffMax: 5 * time.Millisecond,
	}
	if edit != nil {
		edit(&o)
	}
	return New(o)
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
			t.Errorf("Stop: %v", err)
		}
	})
}

// connected starts a linked adapter on fake and waits for connected.
func connected(t testing.TB, edit func(*Options)) (*Adapter, *whatsapptest.Fake, *recSink) {
	t.Helper()
	fake := whatsapptest.New(ownJID)
	fake.SetLID(ownLID)
	a := newAdapter(t, fake, edit)
	sink := &recSink{}
	start(t, a, sink)
	eventually(t, "connected", func() bool { return sink.last().State == channels.StateConnected })
	return a, fake, sink
}
