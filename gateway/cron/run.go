package cron

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store"
)

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
