package cron

import (
	"container/heap"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/gateway/store"
)

// EventCron is the bus event for job changes and runs.
const EventCron = "cron"

// Executor does what a job's payload says. It must honour ctx: the
// scheduler cancels it at the job's timeout and when the gateway stops.
type Executor interface {
	Execute(ctx context.Context, job Job, run RunInfo) Outcome
}

// RunInfo describes one run to the Executor.
type RunInfo struct {
	RunID       string
	Trigger     string // schedule | catch-up | manual
	ScheduledAt time.Time
}

// Outcome is what a run did.
type Outcome struct {
	Status     string // ok | error | skipped
	Error      string
	Summary    string
	SessionKey string
	SessionID  string
	Provider   string
	Model      string
	Usage      *Usage
	// DeliveryStatus is delivered, not-delivered, not-requested or
	// unknown; "" means not-requested.
	DeliveryStatus string
	DeliveryError  string
}

// Notifier broadcasts bus events.
type Notifier interface {
	Broadcast(event string, payload any)
}

// Clock is the scheduler's time. Tests drive a fake one. Timers take a
// deadline, not a duration, so a fake clock moved between reading the
// time and setting the timer cannot make a job late.
type Clock interface {
	Now() time.Time
	TimerAt(deadline time.Time) Timer
}

// Timer is a stoppable one-shot timer.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

type realClock struct{}

func (realClock) Now() time.Time            { return time.Now() }
func (realClock) TimerAt(t time.Time) Timer { return realTimer{time.NewTimer(time.Until(t))} }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time { return t.t.C }
func (t realTimer) Stop() bool          { return t.t.Stop() }

// Options configure a Service.
type Options struct {
	DB     *sql.DB // with Migrations applied
	Log    *slog.Logger
	Exec   Executor
	Notify Notifier
	Clock  Clock
	// Location is the zone of cron expressions without tz; default the
	// gateway's.
	Location *time.Location
	// MaxConcurrent runs at once; default 8 (agent turns mostly wait on
	// the model). Due jobs beyond it wait.
	MaxConcurrent int
	// DefaultTimeout bounds a run whose payload sets none; default 10 min.
	DefaultTimeout time.Duration
	// Enabled reports cron.enabled; nil means enabled. While disabled
	// nothing fires on schedule (manual runs still do).
	Enabled func() bool
	// SkipMissed reports cron.skipMissedJobs: jobs without their own
	// catchUp record missed runs as skipped instead of running once.
	SkipMissed func() bool
	// StorePath is shown by cron.status.
	StorePath string
	// OnFinish, if set, hears of every finished run (after it is
	// stored), with the job as it now is: the gateway's failure alerts.
	OnFinish func(job Job, run RunEntry)
	// AbandonAfter is how long a run that ignores its timeout is waited
	// for before it is recorded as timed out anyway; default 5 s.
	AbandonAfter time.Duration
}

// Service schedules and runs jobs.
type Service struct {
	opts Options
	log  *slog.Logger
	db   *db
	sem  chan struct{}

	mu       sync.Mutex
	jobs     map[string]*entry
	queue    entryHeap
	stopping bool
	kick     chan struct{}

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // the loop and the runs

	pruneMu   sync.Mutex
	lastPrune time.Time // of runs past the retention
}

// agePruneDue reports whether runs past the retention should be dropped
// now: at most hourly, since every finished run would otherwise pay for
// it.
func (s *Service) agePruneDue(now time.Time) bool {
	s.pruneMu.Lock()
	defer s.pruneMu.Unlock()
	if now.Sub(s.lastPrune) < time.Hour && !s.lastPrune.IsZero() {
		return false
	}
	s.lastPrune = now
	return true
}

// entry is a job with what the scheduler keeps beside it.
type entry struct {
	job           Job
	plan          *plan
	next          time.Time // zero: not queued
	lastScheduled time.Time
	running       bool
	index         int // in the heap; -1 when not queued
}

// New makes a stopped Service.
func New(opts Options) (*Service, error) {
	if opts.DB == nil || opts.Exec == nil {
		return nil, errors.New("cron: DB and Exec are required")
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Clock == nil {
		opts.Clock = realClock{}
	}
	if opts.Location == nil {
		opts.Location = time.Local
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = 8
	}
	if opts.AbandonAfter <= 0 {
		opts.AbandonAfter = 5 * time.Second
	}
	if opts.DefaultTimeout <= 0 {
		opts.DefaultTimeout = 10 * time.Minute
	}
	return &Service{
		opts: opts, log: opts.Log, db: &db{sql: opts.DB},
		sem: make(chan struct{}, opts.MaxConcurrent), jobs: map[string]*entry{},
		kick: make(chan struct{}, 1),
	}, nil
}

func (s *Service) now() time.Time { return s.opts.Clock.Now() }

func (s *Service) enabled() bool { return s.opts.Enabled == nil || s.opts.Enabled() }

// Start loads the jobs, settles what the last gateway left (runs it did
// not finish, runs it missed while down) and starts the timer loop.
func (s *Service) Start(ctx context.Context) error {
	jobs, last, err := s.db.loadJobs(ctx)
	if err != nil {
		return fmt.Errorf("load cron jobs: %w", err)
	}
	open, err := s.db.openRuns(ctx)
	if err != nil {
		return fmt.Errorf("load unfinished cron runs: %w", err)
	}
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	now := s.now()
	interrupted := map[string]openRun{}
	for _, r := range open {
		interrupted[r.JobID] = r
		e := RunEntry{TS: now.UnixMilli(), JobID: r.JobID, Action: "finished", Status: StatusError,
			Error: "interrupted: the gateway stopped before the run finished", RunID: r.RunID, RunAtMs: r.StartedAt,
			DurationMs: max(0, now.UnixMilli()-r.StartedAt), Trigger: r.Trigger, ScheduledAtMs: r.ScheduledAt,
			DeliveryStatus: "unknown"}
		if err := s.db.tx(ctx, func(c store.Conn) error { return finishRun(ctx, c, e) }); err != nil {
			return err
		}
	}
	var catchUps []*entry
	s.mu.Lock()
	for i, j := range jobs {
		p, err := compile(j.Schedule, j.ID, time.UnixMilli(j.CreatedAtMs), s.opts.Location)
		if err != nil {
			s.log.Error("cron job has a schedule this gateway cannot run; it stays disabled", "job", j.ID, "err", err)
			j.Enabled = false
		}
		e := &entry{job: j, plan: p, index: -1}
		if last[i] > 0 {
			e.lastScheduled = time.UnixMilli(last[i])
		}
		e.job.State.RunningAtMs = nil
		s.jobs[j.ID] = e
		if !j.Enabled || p == nil {
			continue
		}
		if r, ok := interrupted[j.ID]; ok {
			if j.catchUp() == CatchUpOnce {
				s.log.Warn("cron job was interrupted by the gateway stopping; running it again", "job", j.ID, "name", j.Name, "runId", r.RunID)
				e.next = now
				catchUps = append(catchUps, e)
				continue
			}
			s.log.Warn("cron job was interrupted by the gateway stopping; catchUp is skip, so it waits for its next time", "job", j.ID, "runId", r.RunID)
		}
		if j.State.NextRunAtMs != nil && *j.State.NextRunAtMs < now.UnixMilli() {
			catchUps = append(catchUps, e)
			e.next = time.UnixMilli(*j.State.NextRunAtMs)
			continue
		}
		s.schedule(e, now)
	}
	s.mu.Unlock()
	for _, e := range catchUps {
		s.catchUp(ctx, e, now)
	}
	s.wg.Add(1)
	go s.loop()
	return nil
}

// catchUp settles a job whose time passed while the gateway was down:
// once → it runs now; skip → the missed time is recorded as skipped.
func (s *Service) catchUp(ctx context.Context, e *entry, now time.Time) {
	s.mu.Lock()
	missedAt := e.next
	missed := 0
	if e.plan.kind == KindAt {
		missed = 1
	} else {
		for t, last := missedAt, e.lastScheduled; !t.After(now) && missed < 1000; missed++ {
			n, ok := e.plan.next(t, last)
			if !ok {
				missed++
				break
			}
			t, last = n, t
		}
	}
	job := e.job
	policy := job.catchUp()
	if job.CatchUp == "" && s.opts.SkipMissed != nil && s.opts.SkipMissed() {
		policy = CatchUpSkip
	}
	s.mu.Unlock()
	if missedAt.Equal(now) { // interrupted, not missed: Start logged it
		s.mu.Lock()
		s.fireLocked(e, now, "catch-up")
		s.mu.Unlock()
		return
	}
	what := fmt.Sprintf("missed %d run(s) from %s while the gateway was down", missed, missedAt.UTC().Format(time.RFC3339))
	if policy == CatchUpSkip {
		s.log.Warn("cron job "+what+"; catchUp is skip", "job", job.ID, "name", job.Name)
		s.mu.Lock()
		e.lastScheduled = missedAt
		s.schedule(e, now)
		next := e.job.State.NextRunAtMs
		e.job.State.ConsecutiveSkipped++
		e.job.State.LastRunStatus, e.job.State.LastStatus = StatusSkipped, StatusSkipped
		job = e.job
		s.mu.Unlock()
		entry := RunEntry{TS: now.UnixMilli(), JobID: job.ID, JobName: job.Name, Action: "finished", Status: StatusSkipped,
			Summary: what + " (catchUp skip)", RunID: "skip-" + uuid.NewString(), RunAtMs: now.UnixMilli(),
			NextRunAtMs: next, Trigger: "catch-up", ScheduledAtMs: missedAt.UnixMilli(), DeliveryStatus: "not-requested"}
		if err := s.db.tx(ctx, func(c store.Conn) error {
			if err := finishRun(ctx, c, entry); err != nil {
				return err
			}
			return saveJob(ctx, c, job, missedAt.UnixMilli())
		}); err != nil {
			s.log.Error("record a skipped cron run", "job", job.ID, "err", err)
		}
		s.broadcast(map[string]any{"jobId": job.ID, "action": "finished", "status": StatusSkipped, "summary": entry.Summary, "nextRunAtMs": next})
		return
	}
	s.log.Warn("cron job "+what+"; running it once now", "job", job.ID, "name", job.Name)
	s.mu.Lock()
	e.next = missedAt
	s.fireLocked(e, now, "catch-up")
	s.mu.Unlock()
}

// Stop stops firing and waits for running runs to end (their contexts
// are cancelled). A run cut short this way stays "running" in the
// store, so the next start treats it as interrupted and runs it again.
func (s *Service) Stop(ctx context.Context) {
	s.mu.Lock()
	if s.cancel == nil || s.stopping {
		s.mu.Unlock()
		return
	}
	s.stopping = true
	s.mu.Unlock()
	s.cancel()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		s.log.Warn("cron runs still going at shutdown; they will be run again at the next start")
	}
}

// schedule computes e's next time after now and queues it. s.mu held.
func (s *Service) schedule(e *entry, now time.Time) {
	if e.index >= 0 {
		heap.Remove(&s.queue, e.index)
	}
	e.next = time.Time{}
	e.job.State.NextRunAtMs = nil
	if !e.job.Enabled || e.plan == nil {
		return
	}
	after := now
	if !e.lastScheduled.IsZero() && e.lastScheduled.After(after) {
		after = e.lastScheduled
	}
	next, ok := e.plan.next(after, e.lastScheduled)
	if !ok {
		return
	}
	if e.plan.kind == KindAt && next.Before(now) {
		next = now // an at job added a moment late runs at once
	}
	e.next = next
	ms := next.UnixMilli()
	e.job.State.NextRunAtMs = &ms
	heap.Push(&s.queue, e)
	s.wake()
}

// wake makes the loop look at the queue again.
func (s *Service) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// loop sleeps until the earliest job is due, fires what is due, and
// repeats. One timer for all jobs: idle cost does not grow with them.
func (s *Service) loop() {
	defer s.wg.Done()
	for {
		s.mu.Lock()
		var timer Timer
		var fire <-chan time.Time
		if len(s.queue) > 0 {
			timer = s.opts.Clock.TimerAt(s.queue[0].next)
			fire = timer.C()
		}
		s.mu.Unlock()
		select {
		case <-s.ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return
		case <-s.kick:
			if timer != nil {
				timer.Stop()
			}
		case <-fire:
			s.fireDue()
		}
	}
}

// fireDue starts every job whose time has come.
func (s *Service) fireDue() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for len(s.queue) > 0 && !s.queue[0].next.After(now) {
		e := heap.Pop(&s.queue).(*entry)
		if !s.enabled() {
			// cron.enabled false: the time passes unrun; the next start
			// after enabling catches nothing up, by design.
			e.lastScheduled = e.next
			s.schedule(e, now)
			continue
		}
		s.fireLocked(e, now, "schedule")
	}
}

// fireLocked claims one run of e: the next time is computed first, the
// "running" row and the job's state are stored, then the run starts. A
// job still running from its last time gets a skipped entry instead.
// s.mu held.
func (s *Service) fireLocked(e *entry, now time.Time, trigger string) {
	scheduled := e.next
	if e.index >= 0 {
		heap.Remove(&s.queue, e.index)
	}
	e.lastScheduled = scheduled
	if e.plan.kind == KindAt {
		e.next, e.job.State.NextRunAtMs = time.Time{}, nil
	} else {
		s.schedule(e, now)
	}
	job := e.job
	ctx := s.ctx
	if e.running {
		e.job.State.ConsecutiveSkipped++
		job = e.job
		entry := RunEntry{TS: now.UnixMilli(), JobID: job.ID, JobName: job.Name, Action: "finished", Status: StatusSkipped,
			Summary: "skipped: the previous run of this job is still going", RunID: "skip-" + uuid.NewString(),
			RunAtMs: now.UnixMilli(), NextRunAtMs: job.State.NextRunAtMs, Trigger: trigger,
			ScheduledAtMs: scheduled.UnixMilli(), DeliveryStatus: "not-requested"}
		s.log.Warn("cron job still running at its next time; this time is skipped", "job", job.ID, "name", job.Name)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.persist(func(c store.Conn) error {
				if err := finishRun(ctx, c, entry); err != nil {
					return err
				}
				return saveJob(ctx, c, job, scheduled.UnixMilli())
			})
			s.broadcast(map[string]any{"jobId": job.ID, "action": "finished", "runId": entry.RunID, "status": StatusSkipped,
				"summary": entry.Summary, "nextRunAtMs": job.State.NextRunAtMs})
		}()
		return
	}
	e.running = true
	ms := now.UnixMilli()
	e.job.State.RunningAtMs = &ms
	job = e.job
	runID := fmt.Sprintf("cron-%s-%d", job.ID, scheduled.UnixMilli())
	if trigger == "manual" {
		runID = fmt.Sprintf("cron-%s-manual-%s", job.ID, uuid.NewString()[:8])
	}
	info := RunInfo{RunID: runID, Trigger: trigger, ScheduledAt: scheduled}
	s.wg.Add(1)
	go s.run(job, info, now)
}

// entryHeap orders entries by next time.
type entryHeap []*entry

func (h entryHeap) Len() int           { return len(h) }
func (h entryHeap) Less(i, j int) bool { return h[i].next.Before(h[j].next) }
func (h entryHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *entryHeap) Push(x any) {
	e := x.(*entry)
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *entryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	e.index = -1
	*h = old[:len(old)-1]
	return e
}
