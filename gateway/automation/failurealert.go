package automation

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/gateway/cron"
)

// failureAlerts tells a chat when a job keeps failing: jobs that fail
// quietly are what users of schedulers complain about most. The cooldown
// is kept in memory; a restart may send one alert sooner than it would.
type failureAlerts struct {
	mu   sync.Mutex
	last map[string]time.Time // job id -> last alert
}

// onCronFinish is the scheduler's OnFinish: after cron.failureAlert.after
// failures in a row (and not within the cooldown of the last alert) it
// sends one message to the alert's destination, by default the chat the
// job delivers to.
func (w *Wing) onCronFinish(job cron.Job, run cron.RunEntry) {
	failed := run.Status == cron.StatusError
	cfg := w.cfg().Cron.FailureAlert
	fa := job.FailureAlert
	if fa == nil {
		fa = &cron.FailureAlert{}
	}
	includeSkipped := fa.IncludeSkipped || cfg.IncludeSkipped
	if !failed && !(includeSkipped && run.Status == cron.StatusSkipped) {
		w.alerts.mu.Lock()
		delete(w.alerts.last, job.ID) // it works again: the next failure streak alerts afresh
		w.alerts.mu.Unlock()
		return
	}
	if job.System || fa.Off || !cfg.IsEnabled() {
		return
	}
	after := firstPositive(fa.After, cfg.After, 2)
	streak := job.State.ConsecutiveErrors
	if !failed {
		streak = job.State.ConsecutiveSkipped
	}
	if streak < after {
		return
	}
	cooldown := time.Duration(cfg.CooldownMs) * time.Millisecond
	if fa.CooldownMs != nil {
		cooldown = time.Duration(*fa.CooldownMs) * time.Millisecond
	}
	now := time.Now()
	w.alerts.mu.Lock()
	if last, ok := w.alerts.last[job.ID]; ok && now.Sub(last) < cooldown {
		w.alerts.mu.Unlock()
		return
	}
	if w.alerts.last == nil {
		w.alerts.last = map[string]time.Time{}
	}
	w.alerts.last[job.ID] = now
	w.alerts.mu.Unlock()

	t, ok := alertTarget(job, fa, cfg.Channel, cfg.To, cfg.AccountID)
	if !ok {
		w.log.Warn("cron job keeps failing and has no chat to tell", "job", job.ID, "name", job.Name, "failures", streak, "err", run.Error)
		return
	}
	what := "failed"
	reason := run.Error
	if !failed {
		what, reason = "was skipped", run.Summary
	}
	text := fmt.Sprintf("Scheduled job %q %s %d times in a row. Last: %s\n(openclaw cron runs --id %s)", job.Name, what, streak, clip(reason, 500), job.ID)
	w.goBG(func(bg context.Context) {
		ctx, cancel := context.WithTimeout(bg, 2*time.Minute)
		defer cancel()
		if err := w.deliver(ctx, t, text, "cron-alert:"+run.RunID); err != nil {
			w.log.Warn("cron failure alert not delivered", "job", job.ID, "err", err)
		}
	})
}

// alertTarget picks where an alert goes: the job's failureAlert, then
// cron.failureAlert, then the job's own delivery chat.
func alertTarget(job cron.Job, fa *cron.FailureAlert, channel, to, account string) (deliveryTarget, bool) {
	t := deliveryTarget{AgentID: job.AgentID, Owner: job.Owner}
	switch {
	case fa.Channel != "" || fa.To != "":
		t.Channel, t.To, t.AccountID = fa.Channel, fa.To, fa.AccountID
	case channel != "" || to != "":
		t.Channel, t.To, t.AccountID = channel, to, account
	case job.Delivery != nil && job.Delivery.Mode == "announce":
		d := job.Delivery
		t.Channel, t.To, t.AccountID, t.ThreadID = d.Channel, d.To, d.AccountID, d.Thread()
	case job.Owner != nil:
		// A job made in a chat reports there.
	default:
		return t, false
	}
	return t, true
}

func firstPositive(v ...int) int {
	for _, n := range v {
		if n > 0 {
			return n
		}
	}
	return 0
}
