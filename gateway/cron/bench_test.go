//go:build unix

package cron

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store"
)

// The scheduler benchmarks answer the three questions with the
// real clock and a real SQLite file: what adding and loading 10,000 jobs
// costs, what 10,000 idle jobs cost in CPU, and how late a job reaches
// its Executor. See bench/README.md, "Scheduler", for the commands and
// what they gave. The idle and jitter ones take seconds each and are
// skipped with -short; nothing here runs without -bench.
//
// CRON_BENCH_IDLE sets the idle window (a Go duration, default 5s; CI
// can use 1s). CRON_BENCH_TRACE=1 makes BenchmarkJitter log every run
// later than 10 ms with when it was due, to tell one stall from noise.

// benchJobs is how many jobs the load and idle benchmarks hold.
const benchJobs = 10_000

// benchZones are the zones the cron jobs cycle through.
var benchZones = []string{"Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney", "UTC"}

// mixedJob is the i-th job of a mixed set, all due far from now: every
// 24 h (anchored now), a yearly cron in a zone, or a one-shot months
// ahead.
func mixedJob(i int, now time.Time) string {
	switch i % 3 {
	case 0:
		return fmt.Sprintf(`{"name":"every-%d","schedule":{"kind":"every","everyMs":86400000},"payload":{"kind":"agentTurn","message":"check %d"}}`, i, i)
	case 1:
		return fmt.Sprintf(`{"name":"cron-%d","schedule":{"kind":"cron","expr":"0 0 1 1 *","tz":%q},"payload":{"kind":"agentTurn","message":"new year %d"}}`,
			i, benchZones[i%len(benchZones)], i)
	default:
		at := now.Add(180*24*time.Hour + time.Duration(i)*time.Second).UTC().Format(time.RFC3339)
		return fmt.Sprintf(`{"name":"at-%d","schedule":{"kind":"at","at":%q},"payload":{"kind":"systemEvent","text":"remind %d"}}`, i, at, i)
	}
}

// nopExec answers every run at once.
type nopExec struct{}

func (nopExec) Execute(context.Context, Job, RunInfo) Outcome { return Outcome{Status: StatusOK} }

// benchDB opens a fresh database file in b's temp dir.
func benchDB(b *testing.B) *store.Store {
	b.Helper()
	st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), store.FileName), Migrations())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// benchService makes a Service on the real clock (Options.Clock nil).
func benchService(b *testing.B, st *store.Store, exec Executor, maxConcurrent int) *Service {
	b.Helper()
	svc, err := New(Options{DB: st.DB, Exec: exec, Location: time.UTC, MaxConcurrent: maxConcurrent})
	if err != nil {
		b.Fatal(err)
	}
	return svc
}

// seedMixed stores n mixed jobs through AddJSON on a Service that is
// never started, as jobs stored by an earlier gateway would be, and
// returns the mean cost of one add.
func seedMixed(b *testing.B, st *store.Store, n int) time.Duration {
	b.Helper()
	svc := benchService(b, st, nopExec{}, 0)
	ctx := context.Background()
	now := time.Now()
	start := time.Now()
	for i := range n {
		if _, err := svc.AddJSON(ctx, []byte(mixedJob(i, now)), nil); err != nil {
			b.Fatalf("add job %d: %v", i, err)
		}
	}
	return time.Since(start) / time.Duration(max(n, 1))
}

// BenchmarkAdd is cron.add: Service.AddJSON of one job (decode,
// validate, compile, one SQLite transaction, queue) on a started
// service, into an empty store and into one already holding 10,000 jobs.
// ns/op is per job; use -benchtime 10000x or so.
func BenchmarkAdd(b *testing.B) {
	for _, pre := range []int{0, benchJobs} {
		b.Run(fmt.Sprintf("stored=%d", pre), func(b *testing.B) {
			st := benchDB(b)
			seedMixed(b, st, pre)
			svc := benchService(b, st, nopExec{}, 0)
			ctx := context.Background()
			if err := svc.Start(ctx); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { svc.Stop(ctx) })
			now := time.Now()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if _, err := svc.AddJSON(ctx, []byte(mixedJob(pre+i, now)), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}

// BenchmarkStart10k is a gateway start with 10,000 jobs stored (a third
// each every, cron with tz, at): New and Start, which read and decode
// every row, compile every schedule and build the heap. ns/op is one
// start. heap-MB is the Go heap (HeapInuse, after a GC) the started
// service holds beyond what was in use before it.
func BenchmarkStart10k(b *testing.B) {
	st := benchDB(b)
	add := seedMixed(b, st, benchJobs)
	ctx := context.Background()
	var heapMB float64
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		before := heapInuse()
		b.StartTimer()
		svc := benchService(b, st, nopExec{}, 0)
		if err := svc.Start(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if st := svc.Status(); st.EnabledJobs != benchJobs || st.NextWakeAtMs == nil {
			b.Fatalf("started with %+v", st)
		}
		heapMB = float64(int64(heapInuse())-int64(before)) / (1 << 20)
		svc.Stop(ctx)
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(add.Microseconds()), "seed-add-µs/job")
	b.ReportMetric(heapMB, "heap-MB")
}

// heapInuse is HeapInuse after a full collection.
func heapInuse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// cpuTime is the process's user plus system CPU time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// idleWindow is CRON_BENCH_IDLE, default 5 s.
func idleWindow(b *testing.B) time.Duration {
	d := 5 * time.Second
	if v := os.Getenv("CRON_BENCH_IDLE"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil || d <= 0 {
			b.Fatalf("CRON_BENCH_IDLE=%q: want a duration like 1s", v)
		}
	}
	return d
}

// BenchmarkIdle is the CPU a started scheduler burns while nothing is
// due: 0 or 10,000 enabled jobs, all months away, the real clock. It
// reports the whole process's CPU (user+sys, getrusage) per second of
// wall time over CRON_BENCH_IDLE; the jobs=0 case is the test binary's
// own floor (Go runtime), so the difference is the scheduler's. heap-MB
// is what the started service holds (HeapInuse after a GC, beyond the
// heap before it started).
func BenchmarkIdle(b *testing.B) {
	if testing.Short() {
		b.Skip("idle window takes seconds; not with -short")
	}
	window := idleWindow(b)
	for _, n := range []int{0, benchJobs} {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			st := benchDB(b)
			seedMixed(b, st, n)
			ctx := context.Background()
			before := heapInuse()
			svc := benchService(b, st, nopExec{}, 0)
			if err := svc.Start(ctx); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { svc.Stop(ctx) })
			heapMB := float64(int64(heapInuse())-int64(before)) / (1 << 20)
			time.Sleep(200 * time.Millisecond) // let start-up work (finalizers, GC assist) settle
			var cpu, wall time.Duration
			b.ResetTimer()
			for range b.N {
				c0, w0 := cpuTime(b), time.Now()
				time.Sleep(window)
				cpu += cpuTime(b) - c0
				wall += time.Since(w0)
			}
			b.StopTimer()
			if s := svc.Status(); s.Running != 0 || s.EnabledJobs != n {
				b.Fatalf("not idle: %+v", s)
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/wall.Seconds(), "cpu-ms/s")
			b.ReportMetric(heapMB, "heap-MB")
		})
	}
}

// stampExec records how late each run reached it (call time minus
// RunInfo.ScheduledAt) and returns at once.
type stampExec struct {
	mu   sync.Mutex
	late []time.Duration
	at   []time.Time // ScheduledAt of each, for CRON_BENCH_TRACE
	want int
	done chan struct{}
}

func (e *stampExec) Execute(_ context.Context, _ Job, run RunInfo) Outcome {
	now := time.Now()
	e.mu.Lock()
	e.late = append(e.late, now.Sub(run.ScheduledAt))
	e.at = append(e.at, run.ScheduledAt)
	if len(e.late) == e.want {
		close(e.done)
	}
	e.mu.Unlock()
	return Outcome{Status: StatusOK}
}

// BenchmarkJitter measures how late runs reach the Executor with the
// real clock: "spread" staggers N every jobs (interval 1 h) evenly over
// 3 s; "burst" has N jobs due at the same millisecond, run with the
// default MaxConcurrent (8) and with 64. Lateness is the Executor's
// time.Now() minus RunInfo.ScheduledAt; p50-ms, p99-ms and max-ms are
// over all runs of all iterations. Each iteration takes a few seconds.
func BenchmarkJitter(b *testing.B) {
	if testing.Short() {
		b.Skip("real-clock firing takes seconds; not with -short")
	}
	cases := []struct {
		name   string
		n      int
		spread time.Duration
		maxC   int
	}{
		{"spread/jobs=200", 200, 3 * time.Second, 0},
		{"spread/jobs=1000", 1000, 3 * time.Second, 0},
		{"burst/jobs=1000/max=8", 1000, 0, 8},
		{"burst/jobs=1000/max=64", 1000, 0, 64},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var late []time.Duration
			for range b.N {
				late = append(late, fireOnce(b, c.n, c.spread, c.maxC)...)
			}
			slices.Sort(late)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(late[len(late)/2]), "p50-ms")
			b.ReportMetric(ms(late[len(late)*99/100]), "p99-ms")
			b.ReportMetric(ms(late[len(late)-1]), "max-ms")
		})
	}
}

// fireOnce adds n every jobs to a started service whose first times lie
// just ahead, evenly over spread (all at one instant when spread is 0),
// waits until all have reached the Executor, and returns how late each
// was. Setup is outside the timer.
func fireOnce(b *testing.B, n int, spread time.Duration, maxConcurrent int) []time.Duration {
	b.StopTimer()
	st := benchDB(b)
	exec := &stampExec{want: n, done: make(chan struct{})}
	svc := benchService(b, st, exec, maxConcurrent)
	ctx := context.Background()
	if err := svc.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer svc.Stop(ctx)
	// Adding takes well under 1 ms a job; the margin keeps every first
	// time after the last add.
	base := time.Now().Add(time.Second + time.Duration(n)*time.Millisecond).Truncate(time.Millisecond)
	for i := range n {
		anchor := base
		if spread > 0 {
			anchor = base.Add(spread * time.Duration(i) / time.Duration(n)).Truncate(time.Millisecond)
		}
		job := fmt.Sprintf(`{"name":"tick-%d","schedule":{"kind":"every","everyMs":3600000,"anchorMs":%d},"payload":{"kind":"agentTurn","message":"t"}}`,
			i, anchor.UnixMilli())
		if _, err := svc.AddJSON(ctx, []byte(job), nil); err != nil {
			b.Fatal(err)
		}
	}
	if !time.Now().Before(base) {
		b.Fatalf("adding %d jobs ran past their first time; raise the margin", n)
	}
	b.StartTimer()
	select {
	case <-exec.done:
	case <-time.After(spread + time.Minute):
		exec.mu.Lock()
		got := len(exec.late)
		exec.mu.Unlock()
		b.Fatalf("%d of %d runs reached the executor", got, n)
	}
	b.StopTimer()
	exec.mu.Lock()
	defer exec.mu.Unlock()
	if os.Getenv("CRON_BENCH_TRACE") != "" {
		// The runs later than 10 ms, by when they were due: a cluster
		// is one stall, spread ones are scheduling noise.
		for i, d := range exec.late {
			if d > 10*time.Millisecond {
				b.Logf("due +%5d ms  late %6.1f ms", exec.at[i].Sub(base).Milliseconds(), float64(d.Microseconds())/1000)
			}
		}
	}
	return slices.Clone(exec.late)
}

// BenchmarkPruneRuns is what a finished run pays to keep the history
// bounded: the per-job cap always, and (at most hourly) the drop of rows
// past the retention, which the ended_at index keeps from scanning the
// whole table.
func BenchmarkPruneRuns(b *testing.B) {
	for _, rows := range []int{0, 10_000, 240_000} {
		for _, byAge := range []bool{false, true} {
			b.Run(fmt.Sprintf("rows=%d/byAge=%v", rows, byAge), func(b *testing.B) {
				st := benchDB(b)
				ctx := context.Background()
				now := time.Now()
				if _, err := st.DB.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
					INSERT INTO cron_runs (run_id, job_id, trigger, scheduled_at, started_at, ended_at, status)
					SELECT 'r' || i, 'job-' || (i % 10000), 'schedule', ?, ?, ?, 'ok' FROM n`,
					rows, now.UnixMilli(), now.UnixMilli(), now.UnixMilli()); rows > 0 && err != nil {
					b.Fatal(err)
				}
				d := &db{sql: st.DB}
				b.ResetTimer()
				for range b.N {
					if err := d.tx(ctx, func(c store.Conn) error { return pruneRuns(ctx, c, "job-7", now, byAge) }); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
