package sessions

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"

	"github.com/google/uuid"
)

// Job is one agent run for a session.
type Job struct {
	// ID names the run (its runId); Enqueue makes one if empty.
	ID string
	// Run does the work. Its ctx is cancelled by Abort and Close; Run
	// should return soon after.
	Run func(ctx context.Context)
}

// Queue runs one job at a time per session key, in the order enqueued.
// Jobs of different keys run concurrently, at most MaxConcurrent at once
// when that is above 0. The zero Queue is ready to use; set the fields
// before the first Enqueue. It is safe for concurrent use.
type Queue struct {
	// MaxConcurrent caps running jobs across all keys; 0 means no cap.
	MaxConcurrent int
	// Log receives panics recovered from jobs; nil discards them.
	Log *slog.Logger

	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	slots  chan struct{} // nil when uncapped
	wg     sync.WaitGroup

	mu     sync.Mutex
	closed bool
	lanes  map[string]*lane
	jobs   map[string]*queued // queued and running, by ID
	done   map[string]error   // finished: nil, ErrAborted, ErrQueueClosed or a panic
	order  []string           // finished IDs, oldest first, to bound done
}

// keepDone is how many finished jobs Wait still knows about.
const keepDone = 4096

type lane struct {
	current *queued
	pending []*queued
}

type queued struct {
	id, key string
	run     func(ctx context.Context)
	ctx     context.Context
	cancel  context.CancelFunc
	aborted bool
	err     error         // how it ended, set before fin closes
	fin     chan struct{} // closed when finished
}

func (q *Queue) init() {
	q.once.Do(func() {
		q.ctx, q.cancel = context.WithCancel(context.Background())
		if q.MaxConcurrent > 0 {
			q.slots = make(chan struct{}, q.MaxConcurrent)
		}
		if q.Log == nil {
			q.Log = slog.New(slog.DiscardHandler)
		}
		q.lanes = map[string]*lane{}
		q.jobs = map[string]*queued{}
		q.done = map[string]error{}
	})
}

// Enqueue adds job to key's lane and returns its position: how many jobs
// are ahead of it there (0: it starts now, or as soon as a slot frees).
// Enqueueing an ID that is queued or running again changes nothing and
// returns its position. After Close it returns -1 and the job never runs.
func (q *Queue) Enqueue(key string, job Job) (position int) {
	q.init()
	if job.ID == "" {
		job.ID = uuid.NewString()
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		q.finish(&queued{id: job.ID, fin: make(chan struct{})}, ErrQueueClosed)
		return -1
	}
	if j, ok := q.jobs[job.ID]; ok {
		return q.position(j)
	}
	ctx, cancel := context.WithCancel(q.ctx)
	j := &queued{id: job.ID, key: key, run: job.Run, ctx: ctx, cancel: cancel, fin: make(chan struct{})}
	q.jobs[j.id] = j
	delete(q.done, j.id)
	l := q.lanes[key]
	if l == nil {
		l = &lane{}
		q.lanes[key] = l
	}
	if l.current == nil {
		l.current = j
		q.wg.Add(1)
		go q.drain(key, l)
		return 0
	}
	l.pending = append(l.pending, j)
	return len(l.pending)
}

// position returns how many jobs are ahead of j in its lane. q.mu is held.
func (q *Queue) position(j *queued) int {
	l := q.lanes[j.key]
	if l == nil || l.current == j {
		return 0
	}
	for i, p := range l.pending {
		if p == j {
			return i + 1
		}
	}
	return 0
}

// drain runs a lane's jobs until it is empty.
func (q *Queue) drain(key string, l *lane) {
	defer q.wg.Done()
	q.mu.Lock()
	j := l.current
	q.mu.Unlock()
	for j != nil {
		err := q.runOne(j)
		q.mu.Lock()
		q.finish(j, err)
		if len(l.pending) == 0 {
			l.current = nil
			delete(q.lanes, key)
			j = nil
		} else {
			j = l.pending[0]
			l.pending = l.pending[1:]
			l.current = j
		}
		q.mu.Unlock()
	}
}

// runOne waits for a slot and runs j, turning a panic into an error.
func (q *Queue) runOne(j *queued) (err error) {
	if q.slots != nil {
		select {
		case q.slots <- struct{}{}:
			defer func() { <-q.slots }()
		case <-j.ctx.Done():
			return q.abortErr(j)
		}
	}
	// Close cancels the root before the jobs: check both, or a job woken
	// by a slot freed during Close could start.
	if q.ctx.Err() != nil || j.ctx.Err() != nil {
		return q.abortErr(j)
	}
	defer func() {
		if r := recover(); r != nil {
			q.Log.Error("run panicked", "session", j.key, "runId", j.id, "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("run %s panicked: %v", j.id, r)
		}
	}()
	j.run(j.ctx)
	return q.abortErr(j)
}

// abortErr says how a job whose Run returned (or never started) ended.
func (q *Queue) abortErr(j *queued) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case j.aborted:
		return ErrAborted
	case q.ctx.Err() != nil || j.ctx.Err() != nil:
		return ErrQueueClosed
	}
	return nil
}

// finish records j's end and wakes its waiters. q.mu is held.
func (q *Queue) finish(j *queued, err error) {
	if j.cancel != nil {
		j.cancel()
	}
	if q.jobs[j.id] == j {
		delete(q.jobs, j.id)
	}
	q.done[j.id] = err
	q.order = append(q.order, j.id)
	if len(q.order) > keepDone {
		delete(q.done, q.order[0])
		q.order = q.order[1:]
	}
	j.err = err
	close(j.fin)
}

// Abort stops a job of key: with jobID "" or the running job's ID it
// cancels the running job's context; with a queued job's ID it drops that
// job. It reports whether it found a job to stop.
func (q *Queue) Abort(key, jobID string) bool {
	q.init()
	q.mu.Lock()
	defer q.mu.Unlock()
	l := q.lanes[key]
	if l == nil {
		return false
	}
	if jobID == "" || (l.current != nil && l.current.id == jobID) {
		if l.current == nil || l.current.aborted {
			return false
		}
		l.current.aborted = true
		l.current.cancel()
		return true
	}
	for i, j := range l.pending {
		if j.id == jobID {
			l.pending = append(l.pending[:i:i], l.pending[i+1:]...)
			j.aborted = true
			q.finish(j, ErrAborted)
			return true
		}
	}
	return false
}

// AbortAll cancels key's running job and drops its queued ones; it returns
// how many jobs it stopped.
func (q *Queue) AbortAll(key string) int {
	q.init()
	q.mu.Lock()
	defer q.mu.Unlock()
	l := q.lanes[key]
	if l == nil {
		return 0
	}
	n := 0
	for _, j := range l.pending {
		j.aborted = true
		q.finish(j, ErrAborted)
		n++
	}
	l.pending = nil
	if l.current != nil && !l.current.aborted {
		l.current.aborted = true
		l.current.cancel()
		n++
	}
	return n
}

// Running returns the ID of key's current job: running, or waiting for a
// slot under MaxConcurrent.
func (q *Queue) Running(key string) (jobID string, ok bool) {
	q.init()
	q.mu.Lock()
	defer q.mu.Unlock()
	if l := q.lanes[key]; l != nil && l.current != nil {
		return l.current.id, true
	}
	return "", false
}

// Pending returns how many jobs wait behind key's current one.
func (q *Queue) Pending(key string) int {
	q.init()
	q.mu.Lock()
	defer q.mu.Unlock()
	if l := q.lanes[key]; l != nil {
		return len(l.pending)
	}
	return 0
}

// Wait blocks until the job finishes and returns nil if it ran to the end,
// ErrAborted if it was aborted, ErrQueueClosed if Close stopped it, the
// panic as an error, ErrUnknownJob for an ID the queue does not know, or
// ctx's error if ctx ends first.
func (q *Queue) Wait(ctx context.Context, jobID string) error {
	q.init()
	q.mu.Lock()
	j, ok := q.jobs[jobID]
	if !ok {
		err, done := q.done[jobID]
		q.mu.Unlock()
		if !done {
			return fmt.Errorf("wait for run %s: %w", jobID, ErrUnknownJob)
		}
		return err
	}
	q.mu.Unlock()
	select {
	case <-j.fin:
		return j.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close cancels every job, drops the queued ones and waits for the running
// ones to return. Later Enqueues return -1.
func (q *Queue) Close() {
	q.init()
	q.mu.Lock()
	q.closed = true
	for _, l := range q.lanes {
		for _, j := range l.pending {
			q.finish(j, ErrQueueClosed)
		}
		l.pending = nil
	}
	q.mu.Unlock()
	q.cancel()
	q.wg.Wait()
}
