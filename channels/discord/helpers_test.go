package discord

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/discord/discordtest"
)

const (
	testToken = "MTIz.SECRET-token.value"
	waitFor   = 10 * time.Second
)

// recSink records what the adapter hands it and fails the first failN
// Receive calls.
type recSink struct {
	mu       sync.Mutex
	failN    int
	stored   []channels.Inbound
	statuses []channels.Status
}

func (s *recSink) Receive(_ context.Context, in channels.Inbound) error {
	s.mu.Lock()
	defer s.mu.Unlock()
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

// count returns how many statuses had state.
func (s *recSink) count(state channels.State) int {
	n := 0
	for _, st := range s.Statuses() {
		if st.State == state {
			n++
		}
	}
	return n
}

// waitStored waits until n events were stored and returns them.
func (s *recSink) waitStored(t *testing.T, n int) []channels.Inbound {
	t.Helper()
	eventually(t, "stored events", func() bool { return len(s.Stored()) >= n })
	return s.Stored()
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

// newAdapter returns an adapter on fake with fast backoff.
func newAdapter(t testing.TB, fake *discordtest.Server, edit func(*Options)) *Adapter {
	t.Helper()
	o := Options{
		AccountID:   "work",
		Token:       testToken,
		APIBase:     fake.URL(),
		GatewayURL:  fake.GatewayURL(),
		CallTimeout: 5 * time.Second,
		BackoffMin:  time.Millisecond,
		BackoffMax:  5 * time.Millisecond,
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

// Event builders in Discord's wire shape.
func user(id, name string) map[string]any {
	return map[string]any{"id": id, "username": name, "global_name": name + " G", "discriminator": "0"}
}

func message(id, channel, guild, content string, author map[string]any) map[string]any {
	m := map[string]any{"id": id, "channel_id": channel, "content": content, "author": author,
		"timestamp": "2026-11-30T12:00:00.000000+00:00", "type": 0, "mentions": []any{}, "attachments": []any{}}
	if guild != "" {
		m["guild_id"] = guild
		m["member"] = map[string]any{"roles": []string{"role-1"}}
	}
	return m
}
