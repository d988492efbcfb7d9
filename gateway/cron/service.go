package cron

import (
	"container/heap"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
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

// persist runs one write, logging a failure (there is no caller to
// answer).
func (s *Service) persist(fn func(c store.Conn) error) {
	if err := s.db.tx(context.WithoutCancel(s.ctx), fn); err != nil {
		s.log.Error("cron: store write failed", "err", err)
	}
}

// run executes one claimed run and records its outcome.
func (s *Service) run(job Job, info RunInfo, claimed time.Time) {
	defer s.wg.Done()
	// Wait for a slot before recording the run as started: a run still
	// queued when the gateway stops is then simply missed (its time is
	// not stored as passed), and the next start catches it up.
	select {
	case s.sem <- struct{}{}:
	case <-s.ctx.Done():
		return
	}
	defer func() { <-s.sem }()
	ctx := context.WithoutCancel(s.ctx)
	if err := s.db.tx(ctx, func(c store.Conn) error {
		if err := startRun(ctx, c, info.RunID, job.ID, info.Trigger, info.ScheduledAt, claimed); err != nil {
			return err
		}
		return saveJob(ctx, c, job, info.ScheduledAt.UnixMilli())
	}); err != nil {
		s.log.Error("cron run not started: its record could not be stored", "job", job.ID, "err", err)
		s.mu.Lock()
		if e := s.jobs[job.ID]; e != nil {
			e.running = false
			e.job.State.RunningAtMs = nil
		}
		s.mu.Unlock()
		return
	}
	s.broadcast(map[string]any{"jobId": job.ID, "action": "started", "job": view(job), "runId": info.RunID, "runAtMs": claimed.UnixMilli()})
	start := s.now()
	out := s.execute(job, info)
	s.finish(job, info, start, out)
}

// execute calls the Executor under the job's timeout. An Executor that
// ignores its context past the timeout is abandoned (and logged), so a
// hung run cannot hold the job forever.
func (s *Service) execute(job Job, info RunInfo) Outcome {
	timeout := s.opts.DefaultTimeout
	if t := job.Payload.TimeoutSeconds; t > 0 {
		timeout = time.Duration(t * float64(time.Second))
	}
	ctx, cancel := context.WithTimeout(s.ctx, timeout)
	defer cancel()
	done := make(chan Outcome, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- Outcome{Status: StatusError, Error: fmt.Sprintf("the run panicked: %v", r)}
			}
		}()
		done <- s.opts.Exec.Execute(ctx, job, info)
	}()
	timedOut := func() Outcome {
		return Outcome{Status: StatusError, Error: fmt.Sprintf("timed out after %s", timeout), DeliveryStatus: "not-delivered"}
	}
	select {
	case out := <-done:
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			o := timedOut()
			o.SessionKey, o.SessionID, o.Model, o.Provider = out.SessionKey, out.SessionID, out.Model, out.Provider
			return o
		}
		return out
	case <-ctx.Done():
	}
	select {
	case out := <-done:
		if s.ctx.Err() == nil {
			o := timedOut()
			o.SessionKey, o.SessionID = out.SessionKey, out.SessionID
			return o
		}
		return out
	case <-time.After(s.opts.AbandonAfter):
		s.log.Error("cron run did not stop at its timeout; abandoning it", "job", job.ID, "runId", info.RunID)
		return timedOut()
	}
}

// finish records a run's outcome and settles the job: one-shots are
// deleted or disabled, failures counted.
func (s *Service) finish(job Job, info RunInfo, start time.Time, out Outcome) {
	s.mu.Lock()
	if s.stopping {
		// Cut short by the shutdown: leave the "running" row for the
		// next start to run again.
		s.mu.Unlock()
		return
	}
	now := s.now()
	if out.Status == "" {
		out.Status = StatusOK
		if out.Error != "" {
			out.Status = StatusError
		}
	}
	if out.DeliveryStatus == "" {
		out.DeliveryStatus = "not-requested"
	}
	e := s.jobs[job.ID]
	removed := e == nil
	deleteIt := false
	if e != nil {
		e.running = false
		st := &e.job.State
		st.RunningAtMs = nil
		startMs, dur := start.UnixMilli(), now.Sub(start).Milliseconds()
		st.LastRunAtMs, st.LastDurationMs = &startMs, &dur
		st.LastRunStatus, st.LastStatus, st.LastError = out.Status, out.Status, out.Error
		switch out.Status {
		case StatusError:
			st.ConsecutiveErrors++
		case StatusOK:
			st.ConsecutiveErrors, st.ConsecutiveSkipped = 0, 0
		}
		st.LastDeliveryStatus, st.LastDeliveryError = out.DeliveryStatus, out.DeliveryError
		delivered := out.DeliveryStatus == "delivered"
		st.LastDelivered = &delivered
		if e.plan != nil && e.plan.kind == KindAt && info.Trigger != "manual" {
			// A one-shot has had its time. Delete it when it worked and
			// that was asked; otherwise keep it, disabled, to be seen.
			if out.Status == StatusOK && e.job.DeleteAfterRun {
				deleteIt = true
			} else {
				e.job.Enabled = false
				e.job.UpdatedAtMs = now.UnixMilli()
			}
		}
		job = e.job
		if deleteIt {
			delete(s.jobs, job.ID)
			if e.index >= 0 {
				heap.Remove(&s.queue, e.index)
			}
		}
	}
	s.mu.Unlock()
	delivered := out.DeliveryStatus == "delivered"
	entry := RunEntry{TS: now.UnixMilli(), JobID: job.ID, JobName: job.Name, Action: "finished", Status: out.Status,
		Error: out.Error, Summary: out.Summary, Delivered: &delivered, DeliveryStatus: out.DeliveryStatus,
		DeliveryError: out.DeliveryError, SessionID: out.SessionID, SessionKey: out.SessionKey, RunID: info.RunID,
		RunAtMs: start.UnixMilli(), DurationMs: now.Sub(start).Milliseconds(), NextRunAtMs: job.State.NextRunAtMs,
		Model: out.Model, Provider: out.Provider, Usage: out.Usage, Trigger: info.Trigger,
		ScheduledAtMs: info.ScheduledAt.UnixMilli()}
	ctx := context.WithoutCancel(s.ctx)
	s.persist(func(c store.Conn) error {
		if err := finishRun(ctx, c, entry); err != nil {
			return err
		}
		var err error
		switch {
		case deleteIt:
			err = deleteJob(ctx, c, job.ID)
		case !removed:
			err = saveJob(ctx, c, job, info.ScheduledAt.UnixMilli())
		}
		if err != nil {
			return err
		}
		return pruneRuns(ctx, c, job.ID, now, s.agePruneDue(now))
	})
	if out.Status == StatusError {
		s.log.Warn("cron run failed", "job", job.ID, "name", job.Name, "runId", info.RunID, "err", out.Error)
	} else {
		s.log.Info("cron run finished", "job", job.ID, "name", job.Name, "runId", info.RunID, "status", out.Status)
	}
	ev := map[string]any{"jobId": job.ID, "action": "finished", "job": view(job), "runId": info.RunID, "status": out.Status,
		"runAtMs": entry.RunAtMs, "durationMs": entry.DurationMs, "nextRunAtMs": job.State.NextRunAtMs,
		"deliveryStatus": out.DeliveryStatus, "delivered": delivered}
	if out.Error != "" {
		ev["error"] = out.Error
	}
	if out.Summary != "" {
		ev["summary"] = out.Summary
	}
	s.broadcast(ev)
	if s.opts.OnFinish != nil {
		s.opts.OnFinish(view(job), entry)
	}
	if deleteIt {
		s.broadcast(map[string]any{"jobId": job.ID, "action": "removed", "job": view(job)})
	}
}

func (s *Service) broadcast(payload map[string]any) {
	if s.opts.Notify != nil {
		s.opts.Notify.Broadcast(EventCron, payload)
	}
}

// ErrNotFound is returned for an unknown job id.
var ErrNotFound = errors.New("cron job not found")

// NotFoundError names the job.
type NotFoundError struct{ ID string }

func (e *NotFoundError) Error() string {
	return "cron job not found: " + e.ID + " (openclaw cron list shows the current ids)"
}
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// Add validates and stores a new job, then schedules it. The job is in
// the store before Add returns.
func (s *Service) Add(ctx context.Context, in jobInput) (Job, error) {
	now := s.now()
	j, err := newJob(in, uuid.NewString(), now)
	if err != nil {
		return Job{}, err
	}
	p, err := compile(j.Schedule, j.ID, now, s.opts.Location)
	if err != nil {
		return Job{}, fmt.Errorf("schedule: %w", err)
	}
	if j.Schedule.Kind == KindAt {
		at := p.at.UTC().Format(time.RFC3339Nano)
		j.Schedule.At = at // relative times are fixed when the job is made
		p.at, _ = time.Parse(time.RFC3339Nano, at)
	}
	if j.Schedule.Kind == KindEvery && j.Schedule.AnchorMs == nil {
		a := now.UnixMilli()
		j.Schedule.AnchorMs = &a // keeps the rhythm across restarts
	}
	return s.put(ctx, j, p, now, "added")
}

// put stores j and (re)schedules it.
func (s *Service) put(ctx context.Context, j Job, p *plan, now time.Time, action string) (Job, error) {
	s.mu.Lock()
	e, ok := s.jobs[j.ID]
	if !ok {
		e = &entry{index: -1}
	}
	old := *e
	e.job, e.plan = j, p
	e.job.State = old.job.State
	if action != "added" && scheduleChanged(old.job.Schedule, j.Schedule) {
		e.lastScheduled = time.Time{}
	}
	s.schedule(e, now)
	j = e.job
	last := e.lastScheduled.UnixMilli()
	if e.lastScheduled.IsZero() {
		last = 0
	}
	s.mu.Unlock()
	err := s.db.tx(ctx, func(c store.Conn) error { return saveJob(ctx, c, j, last) })
	s.mu.Lock()
	if err != nil {
		// Not stored, so not scheduled: put back what was.
		if e.index >= 0 {
			heap.Remove(&s.queue, e.index)
		}
		if ok {
			*e = old
			e.index = -1
			if !old.next.IsZero() {
				heap.Push(&s.queue, e)
			}
		}
		s.mu.Unlock()
		return Job{}, fmt.Errorf("store cron job: %w", err)
	}
	s.jobs[j.ID] = e
	s.mu.Unlock()
	j = view(j)
	s.broadcast(map[string]any{"jobId": j.ID, "action": action, "job": j, "nextRunAtMs": j.NextRunAtMs})
	return j, nil
}

func scheduleChanged(a, b Schedule) bool {
	return a.Kind != b.Kind || a.At != b.At || a.EveryMs != b.EveryMs || a.Expr != b.Expr || a.TZ != b.TZ ||
		!sameMs(a.AnchorMs, b.AnchorMs) || !sameMs(a.StaggerMs, b.StaggerMs)
}

func sameMs(a, b *int64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// Get returns one job.
func (s *Service) Get(id string) (Job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.jobs[id]
	if !ok {
		return Job{}, &NotFoundError{ID: id}
	}
	return view(e.job), nil
}

// view is a job as it leaves the service.
func view(j Job) Job {
	j.NextRunAtMs = j.State.NextRunAtMs
	return j
}

// Update applies a patch. System jobs refuse it.
func (s *Service) Update(ctx context.Context, id string, patch []byte) (Job, error) {
	cur, err := s.Get(id)
	if err != nil {
		return Job{}, err
	}
	if cur.System {
		return Job{}, fmt.Errorf("job %s is the gateway's own (%s): change the config, not the job", id, cur.Name)
	}
	now := s.now()
	j, err := cur.patch(patch, now)
	if err != nil {
		return Job{}, err
	}
	created := time.UnixMilli(j.CreatedAtMs)
	p, err := compile(j.Schedule, j.ID, created, s.opts.Location)
	if err != nil {
		return Job{}, fmt.Errorf("schedule: %w", err)
	}
	if j.Schedule.Kind == KindAt && scheduleChanged(cur.Schedule, j.Schedule) {
		j.Schedule.At = p.at.UTC().Format(time.RFC3339Nano)
		if p.at.Before(now.Add(-time.Minute)) {
			return Job{}, fmt.Errorf("schedule: at %s is in the past", j.Schedule.At)
		}
	}
	if j.Schedule.Kind == KindEvery && j.Schedule.AnchorMs == nil {
		a := now.UnixMilli()
		j.Schedule.AnchorMs = &a
		p.anchor = now
	}
	return s.put(ctx, j, p, now, "updated")
}

// Remove deletes a job. A run in progress finishes and is recorded.
func (s *Service) Remove(ctx context.Context, id string) error {
	cur, err := s.Get(id)
	if err != nil {
		return err
	}
	if cur.System {
		return fmt.Errorf("job %s is the gateway's own (%s): change the config to stop it", id, cur.Name)
	}
	if err := s.db.tx(ctx, func(c store.Conn) error { return deleteJob(ctx, c, id) }); err != nil {
		return fmt.Errorf("remove cron job: %w", err)
	}
	s.forget(id)
	s.broadcast(map[string]any{"jobId": id, "action": "removed", "job": cur})
	return nil
}

// Run modes of cron.run.
const (
	RunForce     = "force"      // run now whatever its state
	RunDue       = "due"        // run only if its time has come
	RunIfEnabled = "if-enabled" // run now if enabled
)

// RunNow starts a run outside the schedule and returns its run id; ran
// is false (with a reason) when the mode declined.
func (s *Service) RunNow(ctx context.Context, id, mode string) (runID string, ran bool, reason string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.jobs[id]
	if !ok {
		return "", false, "", &NotFoundError{ID: id}
	}
	if s.stopping {
		return "", false, "", errors.New("the gateway is stopping")
	}
	now := s.now()
	switch mode {
	case "", RunForce:
	case RunIfEnabled:
		if !e.job.Enabled {
			return "", false, "disabled", nil
		}
	case RunDue:
		if e.next.IsZero() || e.next.After(now) {
			return "", false, "not-due", nil
		}
	default:
		return "", false, "", fmt.Errorf("mode %q is unknown (force, due or if-enabled)", mode)
	}
	if e.running {
		return "", false, "already-running", nil
	}
	if e.plan == nil {
		return "", false, "", fmt.Errorf("job %s has a schedule this gateway cannot run", id)
	}
	// A manual run leaves the schedule alone: the job keeps its next time.
	e.running = true
	ms := now.UnixMilli()
	e.job.State.RunningAtMs = &ms
	trigger := "manual"
	scheduled := now
	if mode == RunDue {
		trigger, scheduled = "schedule", e.next
		e.lastScheduled = e.next
		if e.plan.kind == KindAt {
			if e.index >= 0 {
				heap.Remove(&s.queue, e.index)
			}
			e.next, e.job.State.NextRunAtMs = time.Time{}, nil
		} else {
			s.schedule(e, now)
		}
	}
	runID = fmt.Sprintf("cron-%s-manual-%s", id, uuid.NewString()[:8])
	info := RunInfo{RunID: runID, Trigger: trigger, ScheduledAt: scheduled}
	s.wg.Add(1)
	go s.run(e.job, info, now)
	return runID, true, "", nil
}

// ListQuery is cron.list's filter.
type ListQuery struct {
	IncludeDisabled bool
	Enabled         string // all | enabled | disabled
	Query           string
	AgentID         string
	ScheduleKind    string
	LastRunStatus   string // ok | error | skipped | unknown (never ran) | all
	SortBy          string // nextRunAtMs | updatedAtMs | name
	Desc            bool
	Limit, Offset   int
}

// List returns the jobs that match, sorted, one page.
func (s *Service) List(q ListQuery) ([]Job, int) {
	jobs, total, _ := s.list(q)
	return jobs, total
}

// list is List plus the revision of the whole job set: clients paging
// through cron.list start over when it changes between pages.
func (s *Service) list(q ListQuery) ([]Job, int, string) {
	s.mu.Lock()
	var out []Job
	rev := sha256.New()
	ids := make([]string, 0, len(s.jobs))
	for id := range s.jobs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Fprintf(rev, "%s@%d;", id, s.jobs[id].job.UpdatedAtMs)
	}
	for _, e := range s.jobs {
		j := e.job
		switch q.Enabled {
		case "enabled":
			if !j.Enabled {
				continue
			}
		case "disabled":
			if j.Enabled {
				continue
			}
		case "all":
		default:
			if !j.Enabled && !q.IncludeDisabled {
				continue
			}
		}
		if j.System && !q.IncludeDisabled && q.Enabled != "all" {
			continue
		}
		if q.AgentID != "" && !strings.EqualFold(j.AgentID, q.AgentID) {
			continue
		}
		if q.ScheduleKind != "" && q.ScheduleKind != "all" && j.Schedule.Kind != q.ScheduleKind {
			continue
		}
		if q.Query != "" && !matchesQuery(j, q.Query) {
			continue
		}
		if st := j.State.LastRunStatus; q.LastRunStatus != "" && q.LastRunStatus != "all" &&
			st != q.LastRunStatus && (q.LastRunStatus != "unknown" || st != "") {
			continue
		}
		out = append(out, view(j))
	}
	s.mu.Unlock()
	sort.SliceStable(out, func(a, b int) bool {
		less := jobLess(out[a], out[b], q.SortBy)
		if q.Desc {
			return jobLess(out[b], out[a], q.SortBy)
		}
		return less
	})
	total := len(out)
	if q.Offset > len(out) {
		q.Offset = len(out)
	}
	out = out[q.Offset:]
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, total, "sha256:" + base64.RawURLEncoding.EncodeToString(rev.Sum(nil))
}

func matchesQuery(j Job, q string) bool {
	q = strings.ToLower(q)
	for _, f := range []string{j.ID, j.Name, j.Description, j.Payload.Message, j.Payload.Text} {
		if strings.Contains(strings.ToLower(f), q) {
			return true
		}
	}
	return false
}

func jobLess(a, b Job, by string) bool {
	switch by {
	case "name":
		return strings.ToLower(a.Name) < strings.ToLower(b.Name)
	case "updatedAtMs":
		return a.UpdatedAtMs < b.UpdatedAtMs
	}
	an, bn := int64(1<<62), int64(1<<62)
	if a.State.NextRunAtMs != nil {
		an = *a.State.NextRunAtMs
	}
	if b.State.NextRunAtMs != nil {
		bn = *b.State.NextRunAtMs
	}
	if an != bn {
		return an < bn
	}
	return a.CreatedAtMs < b.CreatedAtMs
}

// Status is cron.status's answer.
type Status struct {
	Enabled      bool   `json:"enabled"`
	Storage      string `json:"storage"`
	StorePath    string `json:"storePath,omitempty"`
	Jobs         int    `json:"jobs"`
	EnabledJobs  int    `json:"enabledJobs"`
	Running      int    `json:"running"`
	NextWakeAtMs *int64 `json:"nextWakeAtMs"`
}

// Status reports the scheduler.
func (s *Service) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Enabled: s.enabled(), Storage: "sqlite", StorePath: s.opts.StorePath}
	for _, e := range s.jobs {
		if e.job.System {
			continue
		}
		st.Jobs++
		if e.job.Enabled {
			st.EnabledJobs++
		}
		if e.running {
			st.Running++
		}
	}
	if len(s.queue) > 0 && st.Enabled {
		ms := s.queue[0].next.UnixMilli()
		st.NextWakeAtMs = &ms
	}
	return st
}

// SyncSystem makes the gateway's own jobs (heartbeats) what the config
// says: jobs in want are created or updated (keeping their state),
// system jobs not in want are removed.
func (s *Service) SyncSystem(ctx context.Context, want []Job) error {
	now := s.now()
	keep := map[string]bool{}
	for _, j := range want {
		j.System = true
		keep[j.ID] = true
		cur, err := s.Get(j.ID)
		action := "added"
		if err == nil {
			action = "updated"
			if !cur.System {
				return fmt.Errorf("job id %s is taken by a user job", j.ID)
			}
			j.CreatedAtMs, j.UpdatedAtMs = cur.CreatedAtMs, cur.UpdatedAtMs
			if scheduleChanged(cur.Schedule, j.Schedule) || cur.Enabled != j.Enabled || cur.Payload.Text != j.Payload.Text ||
				cur.AgentID != j.AgentID || cur.Name != j.Name {
				j.UpdatedAtMs = now.UnixMilli()
			} else {
				continue
			}
		} else {
			j.CreatedAtMs, j.UpdatedAtMs = now.UnixMilli(), now.UnixMilli()
		}
		if j.Schedule.Kind == KindEvery && j.Schedule.AnchorMs == nil {
			a := j.CreatedAtMs
			j.Schedule.AnchorMs = &a
		}
		if err := j.validate(now); err != nil {
			return fmt.Errorf("system job %s: %w", j.ID, err)
		}
		p, err := compile(j.Schedule, j.ID, time.UnixMilli(j.CreatedAtMs), s.opts.Location)
		if err != nil {
			return fmt.Errorf("system job %s: %w", j.ID, err)
		}
		if _, err := s.put(ctx, j, p, now, action); err != nil {
			return err
		}
	}
	s.mu.Lock()
	var stale []string
	for id, e := range s.jobs {
		if e.job.System && !keep[id] {
			stale = append(stale, id)
		}
	}
	s.mu.Unlock()
	for _, id := range stale {
		if err := s.db.tx(ctx, func(c store.Conn) error { return deleteJob(ctx, c, id) }); err != nil {
			return err
		}
		s.forget(id)
	}
	return nil
}

// forget drops a deleted job from the schedule.
func (s *Service) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.jobs[id]; ok {
		if e.index >= 0 {
			heap.Remove(&s.queue, e.index)
		}
		delete(s.jobs, id)
	}
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
