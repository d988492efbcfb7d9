package sessions

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// checkNoLeak fails t if goroutines started during the test outlive it.
func checkNoLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<16)
				t.Errorf("%d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
				return
			}
			runtime.Gosched()
			time.Sleep(time.Millisecond) // polling a condition with a deadline
		}
	})
}

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestQueueFIFOPerKey(t *testing.T) {
	checkNoLeak(t)
	q := &Queue{}
	defer q.Close()
	gate := make(chan struct{})
	var mu sync.Mutex
	var order []int
	var running, maxRunning atomic.Int32
	for i := 0; i < 5; i++ {
		pos := q.Enqueue("agent:main:main", Job{ID: fmt.Sprint("r", i), Run: func(ctx context.Context) {
			n := running.Add(1)
			defer running.Add(-1)
			for {
				m := maxRunning.Load()
				if n <= m || maxRunning.CompareAndSwap(m, n) {
					break
				}
			}
			if i == 0 {
				<-gate
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		}})
		if pos != i {
			t.Errorf("job %d position %d", i, pos)
		}
	}
	if id, ok := q.Running("agent:main:main"); !ok || id != "r0" {
		t.Errorf("Running = %q, %v", id, ok)
	}
	if n := q.Pending("agent:main:main"); n != 4 {
		t.Errorf("Pending = %d", n)
	}
	if pos := q.Enqueue("agent:main:main", Job{ID: "r2"}); pos != 2 {
		t.Errorf("re-enqueue of a queued id: position %d, want 2", pos)
	}
	close(gate)
	if err := q.Wait(waitCtx(t), "r4"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(order) != "[0 1 2 3 4]" || maxRunning.Load() != 1 {
		t.Errorf("order %v, at most %d at once", order, maxRunning.Load())
	}
	if _, ok := q.Running("agent:main:main"); ok || q.Pending("agent:main:main") != 0 {
		t.Error("lane not empty after the last job")
	}
}

func TestQueueKeysRunConcurrently(t *testing.T) {
	checkNoLeak(t)
	q := &Queue{}
	defer q.Close()
	aStarted, bStarted := make(chan struct{}), make(chan struct{})
	meet := func(mine, other chan struct{}) func(ctx context.Context) {
		return func(ctx context.Context) {
			close(mine)
			select {
			case <-other:
			case <-time.After(5 * time.Second):
				t.Error("the other key's job never started alongside")
			}
		}
	}
	q.Enqueue("a", Job{ID: "a1", Run: meet(aStarted, bStarted)})
	q.Enqueue("b", Job{ID: "b1", Run: meet(bStarted, aStarted)})
	for _, id := range []string{"a1", "b1"} {
		if err := q.Wait(waitCtx(t), id); err != nil {
			t.Fatal(err)
		}
	}
}

func TestQueueMaxConcurrent(t *testing.T) {
	checkNoLeak(t)
	q := &Queue{MaxConcurrent: 2}
	defer q.Close()
	var running, maxRunning atomic.Int32
	var ids []string
	for i := 0; i < 40; i++ {
		id := fmt.Sprint("job", i)
		ids = append(ids, id)
		q.Enqueue(fmt.Sprint("key", i%8), Job{ID: id, Run: func(ctx context.Context) {
			n := running.Add(1)
			for {
				m := maxRunning.Load()
				if n <= m || maxRunning.CompareAndSwap(m, n) {
					break
				}
			}
			runtime.Gosched()
			running.Add(-1)
		}})
	}
	for _, id := range ids {
		if err := q.Wait(waitCtx(t), id); err != nil {
			t.Fatal(err)
		}
	}
	if m := maxRunning.Load(); m > 2 {
		t.Errorf("%d jobs ran at once, cap 2", m)
	}
}

func TestQueueAbort(t *testing.T) {
	checkNoLeak(t)
	q := &Queue{}
	defer q.Close()
	started := make(chan struct{})
	ranQueued := false
	q.Enqueue("k", Job{ID: "run", Run: func(ctx context.Context) { close(started); <-ctx.Done() }})
	q.Enqueue("k", Job{ID: "queued", Run: func(context.Context) { ranQueued = true }})
	q.Enqueue("k", Job{ID: "last", Run: func(context.Context) {}})
	<-started
	if q.Abort("k", "nope") || q.Abort("other", "") {
		t.Error("Abort of an unknown job reported true")
	}
	if !q.Abort("k", "queued") {
		t.Fatal("Abort(queued) = false")
	}
	if err := q.Wait(waitCtx(t), "queued"); !errors.Is(err, ErrAborted) {
		t.Errorf("Wait(queued) = %v", err)
	}
	if q.Pending("k") != 1 {
		t.Errorf("Pending = %d after dropping one", q.Pending("k"))
	}
	if !q.Abort("k", "") {
		t.Fatal("Abort(current) = false")
	}
	if q.Abort("k", "run") {
		t.Error("a second Abort of the same run reported true")
	}
	if err := q.Wait(waitCtx(t), "run"); !errors.Is(err, ErrAborted) {
		t.Errorf("Wait(run) = %v", err)
	}
	if err := q.Wait(waitCtx(t), "last"); err != nil {
		t.Errorf("Wait(last) = %v; the job after an aborted one should run", err)
	}
	if ranQueued {
		t.Error("the dropped job ran")
	}

	hold := make(chan struct{})
	q.Enqueue("k2", Job{ID: "x1", Run: func(ctx context.Context) { close(hold); <-ctx.Done() }})
	q.Enqueue("k2", Job{ID: "x2", Run: func(context.Context) {}})
	<-hold
	if n := q.AbortAll("k2"); n != 2 {
		t.Errorf("AbortAll = %d", n)
	}
	for _, id := range []string{"x1", "x2"} {
		if err := q.Wait(waitCtx(t), id); !errors.Is(err, ErrAborted) {
			t.Errorf("Wait(%s) = %v", id, err)
		}
	}
}

func TestQueueWait(t *testing.T) {
	checkNoLeak(t)
	q := &Queue{}
	defer q.Close()
	if err := q.Wait(waitCtx(t), "never"); !errors.Is(err, ErrUnknownJob) {
		t.Errorf("Wait(unknown) = %v", err)
	}
	release := make(chan struct{})
	q.Enqueue("k", Job{ID: "slow", Run: func(context.Context) { <-release }})
	short, cancel := context.WithCancel(context.Background())
	cancel()
	if err := q.Wait(short, "slow"); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait with a done ctx = %v", err)
	}
	close(release)
	if err := q.Wait(waitCtx(t), "slow"); err != nil {
		t.Errorf("Wait = %v", err)
	}
	if err := q.Wait(waitCtx(t), "slow"); err != nil {
		t.Errorf("Wait after the end = %v", err)
	}

	q.Enqueue("k", Job{ID: "boom", Run: func(context.Context) { panic("kaboom") }})
	q.Enqueue("k", Job{ID: "after", Run: func(context.Context) {}})
	if err := q.Wait(waitCtx(t), "boom"); err == nil || !strings.Contains(err.Error(), "kaboom") {
		t.Errorf("Wait(panicking job) = %v", err)
	}
	if err := q.Wait(waitCtx(t), "after"); err != nil {
		t.Errorf("the job after a panic: %v", err)
	}
	if pos := q.Enqueue("k", Job{Run: func(context.Context) {}}); pos != 0 {
		t.Errorf("job without id: position %d", pos)
	}
}

func TestQueueClose(t *testing.T) {
	checkNoLeak(t)
	q := &Queue{MaxConcurrent: 1}
	started := make(chan struct{})
	returned := false
	q.Enqueue("a", Job{ID: "running", Run: func(ctx context.Context) {
		close(started)
		<-ctx.Done()
		returned = true
	}})
	q.Enqueue("a", Job{ID: "queued", Run: func(context.Context) { t.Error("queued job ran after Close") }})
	<-started // the one slot is taken
	q.Enqueue("b", Job{ID: "waiting-for-slot", Run: func(context.Context) { t.Error("slot waiter ran after Close") }})
	q.Close()
	if !returned {
		t.Error("Close returned before the running job did")
	}
	for _, id := range []string{"running", "queued", "waiting-for-slot"} {
		if err := q.Wait(waitCtx(t), id); !errors.Is(err, ErrQueueClosed) {
			t.Errorf("Wait(%s) = %v", id, err)
		}
	}
	if pos := q.Enqueue("a", Job{ID: "late", Run: func(context.Context) { t.Error("ran after Close") }}); pos != -1 {
		t.Errorf("Enqueue after Close = %d", pos)
	}
	if err := q.Wait(waitCtx(t), "late"); !errors.Is(err, ErrQueueClosed) {
		t.Errorf("Wait(late) = %v", err)
	}
	q.Close() // twice is fine
}
