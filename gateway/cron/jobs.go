package cron

import (
	"container/heap"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/gateway/store"
)

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
