package cron

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// fakeClock moves only when the test says so. A timer fires as soon as
// the clock reaches its deadline.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	clock    *fakeClock
	c        chan time.Time
	deadline time.Time
	fired    bool // guarded by clock.mu, as is stopped
	stopped  bool
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }
func (t *fakeTimer) Stop() bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	t.stopped = true
	return !t.fired
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) TimerAt(d time.Time) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{clock: c, c: make(chan time.Time, 1), deadline: d}
	if !d.After(c.now) {
		t.fired = true
		t.c <- c.now
		return t
	}
	c.timers = append(c.timers, t)
	return t
}

// set moves the clock to t and fires the timers that are due.
func (c *fakeClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
	kept := c.timers[:0]
	for _, tm := range c.timers {
		if !tm.stopped && !tm.deadline.After(t) {
			tm.fired = true
			tm.c <- t
			continue
		}
		if !tm.stopped {
			kept = append(kept, tm)
		}
	}
	c.timers = kept
}

func (c *fakeClock) advance(d time.Duration) { c.set(c.Now().Add(d)) }

// call is one Execute the fake executor saw.
type call struct {
	Job  Job
	Info RunInfo
	At   time.Time
}

// fakeExec records calls; behave decides each outcome (nil: ok).
type fakeExec struct {
	clock *fakeClock
	calls chan call

	mu     sync.Mutex
	behave func(ctx context.Context, j Job, info RunInfo) Outcome
}

func (f *fakeExec) set(fn func(ctx context.Context, j Job, info RunInfo) Outcome) {
	f.mu.Lock()
	f.behave = fn
	f.mu.Unlock()
}

func (f *fakeExec) Execute(ctx context.Context, j Job, info RunInfo) Outcome {
	f.calls <- call{Job: j, Info: info, At: f.clock.Now()}
	f.mu.Lock()
	behave := f.behave
	f.mu.Unlock()
	if behave != nil {
		return behave(ctx, j, info)
	}
	return Outcome{Status: StatusOK, Summary: "did " + j.Name}
}

// events collects bus events.
type events struct {
	mu      sync.Mutex
	got     []map[string]any
	changed chan struct{}
}

func (e *events) Broadcast(event string, payload any) {
	if event != EventCron {
		return
	}
	e.mu.Lock()
	e.got = append(e.got, payload.(map[string]any))
	e.mu.Unlock()
	select {
	case e.changed <- struct{}{}:
	default:
	}
}

// take removes and returns the first event matching, if any.
func (e *events) take(match func(map[string]any) bool) (map[string]any, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, ev := range e.got {
		if match(ev) {
			e.got = append(e.got[:i], e.got[i+1:]...)
			return ev, true
		}
	}
	return nil, false
}

type harness struct {
	t     *testing.T
	path  string
	st    *store.Store
	clock *fakeClock
	exec  *fakeExec
	ev    *events
	svc   *Service
}

var t0 = time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, path: storetest.Place(t), clock: &fakeClock{now: t0}}
	h.exec = &fakeExec{clock: h.clock, calls: make(chan call, 100)}
	h.ev = &events{changed: make(chan struct{}, 1)}
	h.open()
	return h
}

// open (re)starts the service on the harness's database, as a gateway
// start does.
func (h *harness) open() {
	h.t.Helper()
	st := storetest.OpenAt(h.t, h.path, Migrations())
	h.st = st
	svc, err := New(Options{DB: st.DB, Exec: h.exec, Notify: h.ev, Clock: h.clock, Location: time.UTC,
		AbandonAfter: 50 * time.Millisecond})
	if err != nil {
		h.t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	h.svc = svc
	h.t.Cleanup(h.close)
}

// close stops the service as a gateway shutdown does.
func (h *harness) close() {
	if h.svc == nil {
		return
	}
	h.svc.Stop(context.Background())
	h.st.Close()
	h.svc = nil
}

func (h *harness) add(job string) Job {
	h.t.Helper()
	j, err := h.svc.AddJSON(context.Background(), []byte(job), nil)
	if err != nil {
		h.t.Fatalf("add %s: %v", job, err)
	}
	return j
}

// nextCall waits for the executor's next call.
func (h *harness) nextCall() call {
	h.t.Helper()
	select {
	case c := <-h.exec.calls:
		return c
	case <-time.After(10 * time.Second):
		h.t.Fatal("no run started")
		return call{}
	}
}

// noCall checks that nothing runs while the scheduler settles.
func (h *harness) noCall() {
	h.t.Helper()
	h.settle()
	select {
	case c := <-h.exec.calls:
		h.t.Fatalf("unexpected run of %s (%s) at %s", c.Job.ID, c.Info.Trigger, c.At)
	default:
	}
}

// settle waits until the loop has looked at the queue: a wake is
// answered only by a loop that is not busy firing.
func (h *harness) settle() {
	for range 3 {
		h.svc.wake()
		time.Sleep(5 * time.Millisecond)
	}
}

// finished waits for (and consumes) the next cron event that ends a run
// of job id.
func (h *harness) finished(id string) map[string]any {
	h.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if ev, ok := h.ev.take(func(ev map[string]any) bool { return ev["jobId"] == id && ev["action"] == "finished" }); ok {
			return ev
		}
		select {
		case <-h.ev.changed:
		case <-deadline:
			h.t.Fatalf("job %s did not finish", id)
		}
	}
}

func (h *harness) runs(id string) []RunEntry {
	h.t.Helper()
	got, _, err := h.svc.db.runs(context.Background(), RunsQuery{JobID: id, Asc: true, Limit: 200})
	if err != nil {
		h.t.Fatal(err)
	}
	return got
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
func TestMain(m *testing.M) { pgtest.Main(m) }
