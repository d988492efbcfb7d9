package sessions

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// clock is a settable time source for the store.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// newTestStore opens a real database file in a temporary directory.
func newTestStore(t *testing.T) (*Store, *clock) {
	t.Helper()
	ctx := context.Background()
	st := storetest.Open(t, Migrations())
	if v, err := st.Version(ctx, "sessions"); err != nil || v != 4 {
		t.Fatalf("sessions schema version %d, %v", v, err)
	}
	c := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := New(st.DB, slog.New(slog.DiscardHandler))
	s.now = c.Now
	return s, c
}

func mustEnsure(t *testing.T, s *Store, key string, init Init) *Session {
	t.Helper()
	sess, _, err := s.Ensure(context.Background(), key, init)
	if err != nil {
		t.Fatalf("Ensure(%q): %v", key, err)
	}
	return sess
}

func TestEnsureGet(t *testing.T) {
	ctx := context.Background()
	s, c := newTestStore(t)
	sess, created, err := s.Ensure(ctx, "Agent:Main:Telegram:Direct:123", Init{Label: "Alice", Model: "anthropic/claude"})
	if err != nil || !created {
		t.Fatalf("Ensure: %v, created %v", err, created)
	}
	if sess.Key != "agent:main:telegram:direct:123" || sess.AgentID != "main" || sess.Kind != KindDirect {
		t.Errorf("session %+v", sess)
	}
	if sess.SessionID == "" || !sess.CreatedAt.Equal(c.Now()) || !sess.StartedAt.Equal(c.Now()) || !sess.UpdatedAt.Equal(c.Now()) {
		t.Errorf("ids and times %+v", sess)
	}
	if sess.Origin != (Origin{Channel: "telegram", ChatType: "direct", PeerID: "123"}) {
		t.Errorf("origin from key %+v", sess.Origin)
	}
	again, created, err := s.Ensure(ctx, sess.Key, Init{Label: "ignored"})
	if err != nil || created || again.SessionID != sess.SessionID || again.Label != "Alice" {
		t.Errorf("second Ensure: %+v created %v err %v", again, created, err)
	}
	byKey, err := s.Get(ctx, "agent:main:telegram:direct:123")
	if err != nil || *byKey != *sess {
		t.Errorf("Get = %+v, %v", byKey, err)
	}
	byID, err := s.GetByID(ctx, sess.SessionID)
	if err != nil || byID.Key != sess.Key {
		t.Errorf("GetByID = %+v, %v", byID, err)
	}
	if _, err := s.Get(ctx, "agent:main:nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get missing: %v", err)
	}
	if _, err := s.GetByID(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetByID missing: %v", err)
	}
	if _, _, err := s.Ensure(ctx, "agent::x", Init{}); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("Ensure bad key: %v", err)
	}
}

func TestEnsureInit(t *testing.T) {
	ctx := context.Background()
	s, _ := newTestStore(t)
	for _, tc := range []struct {
		name    string
		key     string
		init    Init
		agent   string
		depth   int
		spawner string
		err     error
	}{
		{"cron takes the init agent", "cron:job1", Init{AgentID: "Ops"}, "ops", 0, "", nil},
		{"hook defaults to main", "hook:h1", Init{}, "main", 0, "", nil},
		{"agent mismatch", "agent:work:main", Init{AgentID: "other"}, "", 0, "", ErrInvalid},
		{"bad agent id", "cron:job2", Init{AgentID: "a b"}, "", 0, "", ErrInvalid},
		{"bad send policy", "agent:main:x", Init{SendPolicy: "maybe"}, "", 0, "", ErrInvalid},
		{"subagent depth from key", "agent:main:subagent:a:subagent:b", Init{}, "main", 2, "agent:main:subagent:a", nil},
		{"subagent explicit parent", "agent:main:subagent:c", Init{SpawnedBy: "agent:main:main", Depth: 1}, "main", 1, "agent:main:main", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sess, _, err := s.Ensure(ctx, tc.key, tc.init)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sess.AgentID != tc.agent || sess.Depth != tc.depth || sess.SpawnedBy != tc.spawner {
				t.Errorf("agent %q depth %d spawnedBy %q", sess.AgentID, sess.Depth, sess.SpawnedBy)
			}
		})
	}
}

func TestPatch(t *testing.T) {
	ctx := context.Background()
	s, c := newTestStore(t)
	a := mustEnsure(t, s, "agent:main:a", Init{})
	mustEnsure(t, s, "agent:main:b", Init{Label: "taken"})
	mustEnsure(t, s, "agent:work:c", Init{Label: "other agent"})
	str := func(v string) *string { return &v }
	yes, no := true, false

	c.Add(time.Minute)
	p, err := s.Patch(ctx, a.Key, Patch{Label: str("other agent"), Model: str("openai/gpt"), Thinking: str("high"),
		SendPolicy: str("deny"), GroupActivation: str("always"), Archived: &yes, Pinned: &yes,
		Origin: &Origin{Channel: "telegram", To: "123"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Label != "other agent" || p.Model != "openai/gpt" || p.Thinking != "high" || p.SendPolicy != "deny" ||
		p.GroupActivation != "always" || !p.Archived || !p.Pinned || p.Origin.To != "123" {
		t.Errorf("patched %+v", p)
	}
	if !p.ArchivedAt.Equal(c.Now()) || !p.UpdatedAt.Equal(a.UpdatedAt) {
		t.Errorf("archivedAt %v updatedAt %v", p.ArchivedAt, p.UpdatedAt)
	}
	c.Add(time.Minute)
	p, err = s.Patch(ctx, a.Key, Patch{Model: str(""), Archived: &no, Pinned: &yes})
	if err != nil || p.Model != "" || p.Archived || !p.ArchivedAt.IsZero() || p.Label != "other agent" {
		t.Errorf("clear: %+v, %v", p, err)
	}
	if !p.PinnedAt.Equal(c.Now().Add(-time.Minute)) {
		t.Errorf("pinning again moved pinnedAt to %v", p.PinnedAt)
	}
	for _, tc := range []struct {
		name string
		key  string
		p    Patch
		err  error
	}{
		{"label taken", a.Key, Patch{Label: str("taken")}, ErrLabelInUse},
		{"bad send policy", a.Key, Patch{SendPolicy: str("sometimes")}, ErrInvalid},
		{"bad activation", a.Key, Patch{GroupActivation: str("never")}, ErrInvalid},
		{"missing", "agent:main:zzz", Patch{Label: str("x")}, ErrNotFound},
		{"bad key", "", Patch{}, ErrInvalidKey},
	} {
		if _, err := s.Patch(ctx, tc.key, tc.p); !errors.Is(err, tc.err) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.err)
		}
	}
	if _, _, err := s.Ensure(ctx, "agent:main:d", Init{Label: "taken"}); !errors.Is(err, ErrLabelInUse) {
		t.Errorf("Ensure with a taken label: %v", err)
	}
}

func TestResetKeepsTranscript(t *testing.T) {
	ctx := context.Background()
	s, c := newTestStore(t)
	key := "agent:main:main"
	old := mustEnsure(t, s, key, Init{Label: "home", Thinking: "low"})
	if err := s.Append(ctx, old.SessionID, Message{Role: RoleUser, Text: "one"},
		Message{Role: RoleAssistant, Text: "two", Usage: Usage{Input: 10, Output: 5}}); err != nil {
		t.Fatal(err)
	}
	c.Add(time.Hour)
	fresh, err := s.Reset(ctx, key, "new")
	if err != nil {
		t.Fatal(err)
	}
	if fresh.SessionID == old.SessionID || fresh.PreviousID != old.SessionID {
		t.Fatalf("reset ids: old %s new %s previous %s", old.SessionID, fresh.SessionID, fresh.PreviousID)
	}
	if fresh.MessageCount != 0 || fresh.InputTokens != 0 || !fresh.LastMessageAt.IsZero() ||
		!fresh.LastResetAt.Equal(c.Now()) || !fresh.StartedAt.Equal(c.Now()) {
		t.Errorf("counters after reset %+v", fresh)
	}
	if fresh.Label != "home" || fresh.Thinking != "low" || !fresh.CreatedAt.Equal(old.CreatedAt) {
		t.Errorf("settings lost in reset %+v", fresh)
	}
	if h, _ := s.History(ctx, fresh.SessionID, HistoryQuery{}); len(h) != 0 {
		t.Errorf("new history %v", h)
	}
	h, err := s.History(ctx, old.SessionID, HistoryQuery{})
	if err != nil || len(h) != 2 || h[0].Text != "one" || h[1].Text != "two" {
		t.Fatalf("old history %+v, %v", h, err)
	}
	// A run that began before the reset may still finish into the old id.
	if err := s.Append(ctx, old.SessionID, Message{Role: RoleAssistant, Text: "late"}); err != nil {
		t.Errorf("append to retired id: %v", err)
	}
	if cur, _ := s.Get(ctx, key); cur.MessageCount != 0 {
		t.Errorf("late append counted on the new session: %d", cur.MessageCount)
	}
	past, err := s.Past(ctx, key)
	if err != nil || len(past) != 1 || past[0].SessionID != old.SessionID || past[0].Reason != "new" {
		t.Errorf("Past = %+v, %v", past, err)
	}
	if _, err := s.Reset(ctx, "agent:main:none", "reset"); !errors.Is(err, ErrNotFound) {
		t.Errorf("reset missing: %v", err)
	}
}

func TestDelete(t *testing.T) {
	ctx := context.Background()
	s, _ := newTestStore(t)
	for _, tc := range []struct {
		name       string
		transcript bool
		keepMsgs   int
	}{
		{"keep transcript", false, 1},
		{"delete transcript", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "agent:main:" + map[bool]string{false: "keep", true: "drop"}[tc.transcript]
			first := mustEnsure(t, s, key, Init{})
			if err := s.Append(ctx, first.SessionID, Message{Role: RoleUser, Text: "a"}); err != nil {
				t.Fatal(err)
			}
			second, err := s.Reset(ctx, key, "reset")
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Append(ctx, second.SessionID, Message{Role: RoleUser, Text: "b"}); err != nil {
				t.Fatal(err)
			}
			deleted, err := s.Delete(ctx, key, tc.transcript)
			if err != nil || !deleted {
				t.Fatalf("Delete = %v, %v", deleted, err)
			}
			if _, err := s.Get(ctx, key); !errors.Is(err, ErrNotFound) {
				t.Errorf("Get after delete: %v", err)
			}
			for _, id := range []string{first.SessionID, second.SessionID} {
				if n, _ := s.Count(ctx, id); n != int64(tc.keepMsgs) {
					t.Errorf("transcript %s holds %d, want %d", id, n, tc.keepMsgs)
				}
			}
			past, _ := s.Past(ctx, key)
			if tc.transcript != (len(past) == 0) {
				t.Errorf("past sessions after delete: %+v", past)
			}
			if deleted, err := s.Delete(ctx, key, tc.transcript); err != nil || deleted {
				t.Errorf("second Delete = %v, %v", deleted, err)
			}
		})
	}
}

// TestChangesMoveWithWrites: health trusts Changes to say whether its
// cached session figures are stale, so every kind of write must move it
// and a read must not.
func TestChangesMoveWithWrites(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	step := func(what string, f func()) {
		t.Helper()
		before := s.Changes()
		f()
		if s.Changes() == before {
			t.Fatalf("%s did not move Changes (%d)", what, before)
		}
	}
	step("creating a session", func() { mustEnsure(t, s, "agent:main:main", Init{}) })
	before := s.Changes()
	if _, err := s.Get(ctx, "agent:main:main"); err != nil {
		t.Fatal(err)
	}
	if s.Changes() != before {
		t.Fatal("a read moved Changes")
	}
	step("deleting it", func() {
		if _, err := s.Delete(ctx, "agent:main:main", true); err != nil {
			t.Fatal(err)
		}
	})
}

func TestMain(m *testing.M) { pgtest.Main(m) }
