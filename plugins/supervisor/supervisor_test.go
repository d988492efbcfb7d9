package supervisor

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/backoff"
	"github.com/openclaw-go/openclaw/plugins/internal/plugintest"
)

// delays records the "in" of every restart warning.
type delays struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *delays) Enabled(context.Context, slog.Level) bool { return true }
func (l *delays) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *delays) WithGroup(string) slog.Handler            { return l }
func (l *delays) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "in" {
			l.mu.Lock()
			l.d = append(l.d, a.Value.Duration())
			l.mu.Unlock()
		}
		return true
	})
	return nil
}

func (l *delays) get() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.d)
}

// group runs units whose config is the Run itself, keeping each unit
// where the test can read it.
type group struct {
	*Group[string, *Unit]
	log  *slog.Logger
	runs map[string]Run
}

func newGroup(t *testing.T, log *slog.Logger, b backoff.Policy, runs map[string]Run) *group {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g := &group{log: log, runs: runs}
	g.Group = NewGroup("thing", func(a, b string) bool { return a == b }, func(c string) (*Unit, *Unit) {
		u := NewUnit(g.log, "thing", b, g.runs[c])
		return u, u
	})
	t.Cleanup(g.Close)
	return g
}

// untilDone is up until it is stopped.
func untilDone(ctx context.Context, ready func()) error {
	ready()
	<-ctx.Done()
	return ctx.Err()
}

func TestRestartsWithBackoff(t *testing.T) {
	rec := &delays{}
	b := backoff.Policy{Min: time.Millisecond, Max: 4 * time.Millisecond}
	var n int
	boom := errors.New("boom")
	g := newGroup(t, slog.New(rec), b, map[string]Run{"crash": func(ctx context.Context, ready func()) error {
		n++ // only ever called from the unit's goroutine
		if n == 5 {
			// Up for longer than the longest delay: the crash loop is over.
			ready()
			time.Sleep(2 * b.Max)
		}
		return boom
	}})
	if err := g.Sync(t.Context(), map[string]string{"a": "crash"}); err != nil {
		t.Fatal(err)
	}
	u := g.Members()[0]
	plugintest.WaitFor(t, "six restarts", func() bool { return u.Status().Restarts >= 6 })
	ms := time.Millisecond
	if got, want := g.Members(), []*Unit{u}; !slices.Equal(got, want) {
		t.Fatalf("members = %v", got)
	}
	if got, want := rec.get()[:6], []time.Duration{ms, 2 * ms, 4 * ms, 4 * ms, ms, 2 * ms}; !slices.Equal(got, want) {
		t.Errorf("delays = %v, want %v", got, want)
	}
	if st := u.Status(); st.Error != boom.Error() || st.State == Ready || st.State == Stopped {
		t.Errorf("status while crashing = %+v", st)
	}
	g.Close()
	if st := u.Status(); st.State != Stopped {
		t.Errorf("state after Close = %v", st.State)
	}
}

func TestReadyClearsError(t *testing.T) {
	var n int
	g := newGroup(t, nil, backoff.Policy{Min: time.Millisecond}, map[string]Run{"flaky": func(ctx context.Context, ready func()) error {
		if n++; n == 1 {
			return errors.New("first try")
		}
		return untilDone(ctx, ready)
	}})
	if err := g.Sync(t.Context(), map[string]string{"a": "flaky"}); err != nil {
		t.Fatal(err)
	}
	u := g.Members()[0]
	plugintest.WaitFor(t, "ready", func() bool { return u.Status().State == Ready })
	if st := u.Status(); st.Error != "" || st.Restarts != 1 || st.Since.IsZero() {
		t.Errorf("status when ready = %+v", st)
	}
}

// TestPanicIsAFailure: a Run that panics is restarted like one that
// failed, with the panic as its error, and the process lives on.
func TestPanicIsAFailure(t *testing.T) {
	var n int
	g := newGroup(t, nil, backoff.Policy{Min: time.Millisecond}, map[string]Run{"broken": func(ctx context.Context, ready func()) error {
		if n++; n == 1 {
			panic("nil map write")
		}
		return untilDone(ctx, ready)
	}})
	if err := g.Sync(t.Context(), map[string]string{"a": "broken"}); err != nil {
		t.Fatal(err)
	}
	u := g.Members()[0]
	plugintest.WaitFor(t, "ready after the panic", func() bool { return u.Status().State == Ready })
	if st := u.Status(); st.Restarts != 1 {
		t.Errorf("status after the panic = %+v, want one restart", st)
	}
}

func TestSync(t *testing.T) {
	started := map[string]int{}
	var mu sync.Mutex
	run := func(ctx context.Context, ready func()) error { return untilDone(ctx, ready) }
	g := newGroup(t, nil, backoff.Policy{}, map[string]Run{"v1": run, "v2": run})
	start := g.start
	g.start = func(c string) (*Unit, *Unit) {
		mu.Lock()
		started[c]++
		mu.Unlock()
		return start(c)
	}
	steps := []struct {
		name    string
		want    map[string]string
		members int
		started map[string]int
	}{
		{"add", map[string]string{"b": "v1", "a": "v1"}, 2, map[string]int{"v1": 2}},
		{"unchanged", map[string]string{"a": "v1", "b": "v1"}, 2, map[string]int{"v1": 2}},
		{"change one", map[string]string{"a": "v1", "b": "v2"}, 2, map[string]int{"v1": 2, "v2": 1}},
		{"remove", map[string]string{"b": "v2"}, 1, map[string]int{"v1": 2, "v2": 1}},
		{"none", nil, 0, map[string]int{"v1": 2, "v2": 1}},
	}
	for _, s := range steps {
		before := g.Members()
		if err := g.Sync(t.Context(), s.want); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		ms := g.Members()
		if len(ms) != s.members {
			t.Errorf("%s: %d members, want %d", s.name, len(ms), s.members)
		}
		for _, u := range before {
			if !slices.Contains(ms, u) && u.Status().State != Stopped {
				t.Errorf("%s: a removed unit is %v", s.name, u.Status().State)
			}
		}
		mu.Lock()
		if !equalCounts(started, s.started) {
			t.Errorf("%s: started %v, want %v", s.name, started, s.started)
		}
		mu.Unlock()
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestSyncStopTimeout(t *testing.T) {
	release := make(chan struct{})
	g := newGroup(t, nil, backoff.Policy{}, map[string]Run{"stuck": func(ctx context.Context, ready func()) error {
		ready()
		<-release // ignores ctx, as a process that will not leave
		return nil
	}})
	defer close(release)
	if err := g.Sync(t.Context(), map[string]string{"a": "stuck"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	err := g.Sync(ctx, nil)
	if !errors.Is(err, context.DeadlineExceeded) || err.Error() != `stop thing "a": context deadline exceeded` {
		t.Errorf("Sync = %v", err)
	}
}

func TestCloseEndsEverything(t *testing.T) {
	goroutines := runtime.NumGoroutine()
	run := func(ctx context.Context, ready func()) error { return untilDone(ctx, ready) }
	g := newGroup(t, nil, backoff.Policy{}, map[string]Run{"up": run})
	if err := g.Sync(t.Context(), map[string]string{"a": "up", "b": "up"}); err != nil {
		t.Fatal(err)
	}
	units := g.Members()
	g.Close()
	g.Close()
	for _, u := range units {
		if st := u.Status(); st.State != Stopped {
			t.Errorf("state after Close = %v", st.State)
		}
	}
	if len(g.Members()) != 0 {
		t.Errorf("members after Close = %v", g.Members())
	}
	if err := g.Sync(t.Context(), nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Sync after Close = %v", err)
	}
	plugintest.WaitFor(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= goroutines })
}
