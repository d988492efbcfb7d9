package cron

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestEveryFiresOnItsRhythm(t *testing.T) {
	h := newHarness(t)
	j := h.add(`{"name":"tick","schedule":{"kind":"every","everyMs":600000},"payload":{"kind":"agentTurn","message":"check"}}`)
	if j.SessionTarget != TargetIsolated || j.WakeMode != WakeNow || !j.Enabled {
		t.Fatalf("defaults: %+v", j)
	}
	if got := *j.State.NextRunAtMs; got != t0.Add(10*time.Minute).UnixMilli() {
		t.Fatalf("next = %d, want t0+10m", got)
	}
	h.clock.advance(9 * time.Minute)
	h.noCall()
	h.clock.advance(time.Minute)
	c := h.nextCall()
	if !c.At.Equal(t0.Add(10*time.Minute)) || c.Info.Trigger != "schedule" || !c.Info.ScheduledAt.Equal(t0.Add(10*time.Minute)) {
		t.Fatalf("first run: %+v", c)
	}
	h.finished(j.ID)
	// A late wake-up (the machine slept 25 min) runs once, then keeps
	// the rhythm from the anchor: the next is at +40m, not +35m.
	h.clock.advance(25 * time.Minute)
	c = h.nextCall()
	if !c.Info.ScheduledAt.Equal(t0.Add(20 * time.Minute)) {
		t.Fatalf("late run scheduled at %s", c.Info.ScheduledAt)
	}
	h.finished(j.ID)
	got, _ := h.svc.Get(j.ID)
	if *got.State.NextRunAtMs != t0.Add(40*time.Minute).UnixMilli() {
		t.Fatalf("next after the late run = %s", time.UnixMilli(*got.State.NextRunAtMs).UTC())
	}
	runs := h.runs(j.ID)
	if len(runs) != 2 || runs[0].Status != StatusOK || runs[0].Summary != "did tick" || runs[1].Trigger != "schedule" {
		t.Fatalf("runs: %s", mustJSON(runs))
	}
	if got.State.LastRunStatus != StatusOK || got.State.ConsecutiveErrors != 0 || got.State.LastRunAtMs == nil {
		t.Fatalf("state: %+v", got.State)
	}
}

func TestAtRunsOnceThenGoes(t *testing.T) {
	h := newHarness(t)
	ok := h.add(`{"name":"remind","schedule":{"kind":"at","at":"30m"},"payload":{"kind":"systemEvent","text":"stretch"}}`)
	if ok.SessionTarget != TargetMain || !ok.DeleteAfterRun || ok.Schedule.At != t0.Add(30*time.Minute).Format(time.RFC3339Nano) {
		t.Fatalf("at job: %+v", ok)
	}
	failing := h.add(`{"name":"fails","schedule":{"kind":"at","at":"2026-01-10T12:30:00Z"},"payload":{"kind":"agentTurn","message":"x"}}`)
	h.exec.set(func(ctx context.Context, j Job, _ RunInfo) Outcome {
		if j.ID == failing.ID {
			return Outcome{Status: StatusError, Error: "model said no"}
		}
		return Outcome{Status: StatusOK}
	})
	h.clock.advance(30 * time.Minute)
	seen := map[string]bool{h.nextCall().Job.ID: true, h.nextCall().Job.ID: true}
	if !seen[ok.ID] || !seen[failing.ID] {
		t.Fatalf("runs: %v", seen)
	}
	h.finished(ok.ID)
	h.finished(failing.ID)
	if _, err := h.svc.Get(ok.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a one-shot that worked is deleted: %v", err)
	}
	kept, err := h.svc.Get(failing.ID)
	if err != nil || kept.Enabled || kept.State.LastError != "model said no" || kept.State.ConsecutiveErrors != 1 {
		t.Fatalf("a failed one-shot stays, disabled, with its error: %+v %v", kept, err)
	}
	h.clock.advance(24 * time.Hour)
	h.noCall()
	if runs := h.runs(failing.ID); len(runs) != 1 || runs[0].Error != "model said no" || runs[0].Status != StatusError {
		t.Fatalf("runs: %s", mustJSON(runs))
	}
	// The deleted job's history stays readable.
	if runs := h.runs(ok.ID); len(runs) != 1 || runs[0].Status != StatusOK {
		t.Fatalf("runs of the deleted one-shot: %s", mustJSON(runs))
	}
}

func TestCronInTimeZone(t *testing.T) {
	h := newHarness(t)
	// 09:00 in Berlin is 08:00 UTC in January; staggerMs 0 = exact.
	j := h.add(`{"name":"digest","schedule":{"kind":"cron","expr":"0 9 * * *","tz":"Europe/Berlin","staggerMs":0},"payload":{"kind":"agentTurn","message":"digest"}}`)
	want := time.Date(2026, 1, 11, 8, 0, 0, 0, time.UTC)
	if *j.State.NextRunAtMs != want.UnixMilli() {
		t.Fatalf("next = %s, want %s", time.UnixMilli(*j.State.NextRunAtMs).UTC(), want)
	}
	h.clock.set(want.Add(-time.Second))
	h.noCall()
	h.clock.set(want)
	if c := h.nextCall(); !c.At.Equal(want) {
		t.Fatalf("ran at %s", c.At)
	}
	h.finished(j.ID)
	got, _ := h.svc.Get(j.ID)
	if *got.State.NextRunAtMs != want.Add(24*time.Hour).UnixMilli() {
		t.Fatalf("next = %s", time.UnixMilli(*got.State.NextRunAtMs).UTC())
	}
}

func TestTopOfHourIsStaggeredWithinFiveMinutes(t *testing.T) {
	h := newHarness(t)
	offsets := map[int64]bool{}
	for i := range 20 {
		_ = i
		j := h.add(`{"name":"hourly","schedule":{"kind":"cron","expr":"0 * * * *"},"payload":{"kind":"agentTurn","message":"x"},"enabled":true}`)
		off := (*j.State.NextRunAtMs - t0.UnixMilli()) % time.Hour.Milliseconds()
		if off < 0 || off >= DefaultStagger.Milliseconds() {
			t.Fatalf("offset %d ms outside the stagger window", off)
		}
		offsets[off] = true
	}
	if len(offsets) < 10 {
		t.Fatalf("20 jobs share %d offsets: the stagger does not spread them", len(offsets))
	}
	exact := h.add(`{"name":"exact","schedule":{"kind":"cron","expr":"*/15 * * * *"},"payload":{"kind":"agentTurn","message":"x"}}`)
	if *exact.State.NextRunAtMs != t0.Add(15*time.Minute).UnixMilli() {
		t.Fatal("a non-top-of-hour expression is not staggered")
	}
}

func TestCatchUpAfterDowntime(t *testing.T) {
	h := newHarness(t)
	once := h.add(`{"name":"hourly","schedule":{"kind":"every","everyMs":3600000},"payload":{"kind":"agentTurn","message":"x"}}`)
	skip := h.add(`{"name":"news","catchUp":"skip","schedule":{"kind":"every","everyMs":3600000},"payload":{"kind":"agentTurn","message":"y"}}`)
	at := h.add(`{"name":"once","schedule":{"kind":"at","at":"2h"},"payload":{"kind":"agentTurn","message":"z"}}`)
	h.close()

	h.clock.advance(5*time.Hour + 30*time.Minute) // the gateway was down
	h.open()
	got := map[string]call{}
	for range 2 {
		c := h.nextCall()
		got[c.Job.ID] = c
	}
	for _, id := range []string{once.ID, at.ID} {
		c, ok := got[id]
		if !ok || c.Info.Trigger != "catch-up" || !c.At.Equal(h.clock.Now()) {
			t.Fatalf("job %s did not catch up once: %+v", id, got)
		}
	}
	if !got[once.ID].Info.ScheduledAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("catch-up names the first missed time: %s", got[once.ID].Info.ScheduledAt)
	}
	h.finished(once.ID)
	h.noCall() // five missed hours ran once, not five times; skip did not run
	runs := h.runs(skip.ID)
	if len(runs) != 1 || runs[0].Status != StatusSkipped || !strings.Contains(runs[0].Summary, "missed 5 run(s)") ||
		!strings.Contains(runs[0].Summary, "catchUp skip") {
		t.Fatalf("skip policy runs: %s", mustJSON(runs))
	}
	s, _ := h.svc.Get(skip.ID)
	if *s.State.NextRunAtMs != t0.Add(6*time.Hour).UnixMilli() || s.State.LastRunStatus != StatusSkipped {
		t.Fatalf("skip job state: %+v", s.State)
	}
	o, _ := h.svc.Get(once.ID)
	if *o.State.NextRunAtMs != t0.Add(6*time.Hour).UnixMilli() {
		t.Fatalf("after catching up the job keeps its rhythm: next %s", time.UnixMilli(*o.State.NextRunAtMs).UTC())
	}
	if r := h.runs(once.ID); len(r) != 1 || r[0].Trigger != "catch-up" {
		t.Fatalf("catch-up run: %s", mustJSON(r))
	}
}

func TestRunInterruptedByShutdownRunsAgain(t *testing.T) {
	h := newHarness(t)
	started := make(chan struct{}, 1)
	h.exec.set(func(ctx context.Context, j Job, _ RunInfo) Outcome {
		started <- struct{}{}
		<-ctx.Done()
		return Outcome{Status: StatusError, Error: ctx.Err().Error()}
	})
	j := h.add(`{"name":"long","schedule":{"kind":"every","everyMs":3600000},"payload":{"kind":"agentTurn","message":"x"}}`)
	h.clock.advance(time.Hour)
	h.nextCall()
	<-started
	h.close() // the shutdown cancels the run mid-way

	h.exec.set(nil)
	h.clock.advance(time.Minute)
	h.open()
	c := h.nextCall()
	if c.Job.ID != j.ID || c.Info.Trigger != "catch-up" {
		t.Fatalf("rerun: %+v", c)
	}
	h.finished(j.ID)
	runs := h.runs(j.ID)
	if len(runs) != 2 || runs[0].Status != StatusError || !strings.Contains(runs[0].Error, "interrupted") || runs[1].Status != StatusOK {
		t.Fatalf("runs: %s", mustJSON(runs))
	}
}

func TestOverlappingRunIsSkipped(t *testing.T) {
	h := newHarness(t)
	release := make(chan struct{})
	h.exec.set(func(ctx context.Context, j Job, _ RunInfo) Outcome {
		<-release
		return Outcome{Status: StatusOK}
	})
	j := h.add(`{"name":"slow","schedule":{"kind":"every","everyMs":60000},"payload":{"kind":"agentTurn","message":"x"}}`)
	h.clock.advance(time.Minute)
	h.nextCall()
	h.clock.advance(time.Minute) // still running
	ev := h.finished(j.ID)
	if ev["status"] != StatusSkipped {
		t.Fatalf("second time: %v", ev)
	}
	if _, ran, reason, _ := h.svc.RunNow(context.Background(), j.ID, RunForce); ran || reason != "already-running" {
		t.Fatalf("manual run while running: ran=%v reason=%q", ran, reason)
	}
	close(release)
	if ev := h.finished(j.ID); ev["status"] != StatusOK {
		t.Fatalf("first run: %v", ev)
	}
	runs := h.runs(j.ID)
	// In start order: the long run began first.
	if len(runs) != 2 || runs[0].Status != StatusOK || runs[1].Status != StatusSkipped || !strings.Contains(runs[1].Summary, "still going") {
		t.Fatalf("runs: %s", mustJSON(runs))
	}
}

func TestTimeouts(t *testing.T) {
	tests := []struct {
		name   string
		behave func(ctx context.Context, j Job, _ RunInfo) Outcome
	}{
		{"honours its context", func(ctx context.Context, j Job, _ RunInfo) Outcome {
			<-ctx.Done()
			return Outcome{Status: StatusError, Error: "aborted"}
		}},
		{"ignores its context", func(ctx context.Context, j Job, _ RunInfo) Outcome {
			select {} // hangs for good; the scheduler abandons it
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.exec.set(tt.behave)
			// A real-time timeout of 20 ms: the clock that matters here
			// is the run's context, not the schedule's.
			j := h.add(`{"name":"hangs","schedule":{"kind":"every","everyMs":3600000},"payload":{"kind":"agentTurn","message":"x","timeoutSeconds":0.02}}`)
			h.clock.advance(time.Hour)
			h.nextCall()
			ev := h.finished(j.ID)
			if ev["status"] != StatusError || !strings.Contains(ev["error"].(string), "timed out after 20ms") {
				t.Fatalf("event: %v", ev)
			}
			got, _ := h.svc.Get(j.ID)
			if got.State.RunningAtMs != nil || got.State.ConsecutiveErrors != 1 {
				t.Fatalf("state after timeout: %+v", got.State)
			}
			// The job is free to run again.
			h.exec.set(nil)
			if _, ran, _, err := h.svc.RunNow(context.Background(), j.ID, RunForce); !ran || err != nil {
				t.Fatalf("run after timeout: %v %v", ran, err)
			}
		})
	}
}

func TestPanickingRunIsAnError(t *testing.T) {
	h := newHarness(t)
	h.exec.set(func(ctx context.Context, j Job, _ RunInfo) Outcome { panic("boom") })
	j := h.add(`{"name":"p","schedule":{"kind":"every","everyMs":60000},"payload":{"kind":"agentTurn","message":"x"}}`)
	h.clock.advance(time.Minute)
	if ev := h.finished(j.ID); ev["status"] != StatusError || !strings.Contains(ev["error"].(string), "panicked: boom") {
		t.Fatalf("event: %v", ev)
	}
}

func TestRunModes(t *testing.T) {
	h := newHarness(t)
	j := h.add(`{"name":"m","schedule":{"kind":"every","everyMs":3600000},"payload":{"kind":"agentTurn","message":"x"}}`)
	ctx := context.Background()
	if _, ran, reason, _ := h.svc.RunNow(ctx, j.ID, RunDue); ran || reason != "not-due" {
		t.Fatalf("due before its time: %v %q", ran, reason)
	}
	id, ran, _, err := h.svc.RunNow(ctx, j.ID, "")
	if !ran || err != nil || !strings.HasPrefix(id, "cron-"+j.ID+"-manual-") {
		t.Fatalf("force: %q %v %v", id, ran, err)
	}
	if c := h.nextCall(); c.Info.Trigger != "manual" {
		t.Fatalf("trigger %q", c.Info.Trigger)
	}
	h.finished(j.ID)
	got, _ := h.svc.Get(j.ID)
	if *got.State.NextRunAtMs != t0.Add(time.Hour).UnixMilli() {
		t.Fatal("a manual run moved the schedule")
	}
	if _, err := h.svc.Update(ctx, j.ID, []byte(`{"enabled":false}`)); err != nil {
		t.Fatal(err)
	}
	if _, ran, reason, _ := h.svc.RunNow(ctx, j.ID, RunIfEnabled); ran || reason != "disabled" {
		t.Fatalf("if-enabled on a disabled job: %v %q", ran, reason)
	}
	if _, _, _, err := h.svc.RunNow(ctx, "nope", RunForce); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	h.clock.advance(2 * time.Hour)
	h.noCall() // disabled jobs do not fire
}

func TestUpdateAndRemove(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	j := h.add(`{"name":"a","schedule":{"kind":"every","everyMs":3600000},"payload":{"kind":"agentTurn","message":"x","model":"m1"},"delivery":{"mode":"announce","channel":"telegram","to":"42"}}`)
	u, err := h.svc.Update(ctx, j.ID, []byte(`{"payload":{"message":"y"},"delivery":{"to":"43"},"schedule":{"kind":"cron","expr":"*/5 * * * *"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if u.Payload.Message != "y" || u.Payload.Model != "m1" || u.Delivery.Channel != "telegram" || u.Delivery.To != "43" {
		t.Fatalf("patch merges payload and delivery: %+v %+v", u.Payload, u.Delivery)
	}
	if *u.State.NextRunAtMs != t0.Add(5*time.Minute).UnixMilli() {
		t.Fatalf("new schedule applies at once: %s", time.UnixMilli(*u.State.NextRunAtMs).UTC())
	}
	for _, bad := range []string{`{"id":"x"}`, `{"state":{}}`, `{"schedule":{"kind":"cron","expr":"nope"}}`, `{"bogus":1}`} {
		if _, err := h.svc.Update(ctx, j.ID, []byte(bad)); err == nil {
			t.Errorf("patch %s accepted", bad)
		}
	}
	if err := h.svc.Remove(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	h.clock.advance(time.Hour)
	h.noCall()
	if err := h.svc.Remove(ctx, j.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second remove: %v", err)
	}
	// Survives a restart: nothing of it is scheduled.
	h.close()
	h.open()
	if jobs, total := h.svc.List(ListQuery{IncludeDisabled: true}); total != 0 {
		t.Fatalf("after restart: %v", jobs)
	}
}

func TestJobsSurviveRestart(t *testing.T) {
	h := newHarness(t)
	j := h.add(`{"name":"keep","schedule":{"kind":"cron","expr":"30 * * * * *"},"payload":{"kind":"agentTurn","message":"x"}}`)
	h.close()
	h.open()
	got, err := h.svc.Get(j.ID)
	if err != nil || got.Name != "keep" || *got.State.NextRunAtMs != *j.State.NextRunAtMs {
		t.Fatalf("after restart: %+v %v", got, err)
	}
	h.clock.advance(30 * time.Second)
	if c := h.nextCall(); c.Info.Trigger != "schedule" {
		t.Fatalf("trigger %q", c.Info.Trigger)
	}
}

func TestAddValidation(t *testing.T) {
	h := newHarness(t)
	tests := []struct{ job, want string }{
		{`{"schedule":{"kind":"cron","expr":"61 * * * *"},"payload":{"kind":"agentTurn","message":"x"}}`, "expr"},
		{`{"schedule":{"kind":"cron","expr":"0 9 * * *","tz":"Mars/Olympus"},"payload":{"kind":"agentTurn","message":"x"}}`, "tz"},
		{`{"schedule":{"kind":"at","at":"2020-01-01T00:00:00Z"},"payload":{"kind":"agentTurn","message":"x"}}`, "in the past"},
		{`{"schedule":{"kind":"at","at":"tomorrowish"},"payload":{"kind":"agentTurn","message":"x"}}`, "not a time"},
		{`{"schedule":{"kind":"every","everyMs":10},"payload":{"kind":"agentTurn","message":"x"}}`, "minimum"},
		{`{"schedule":{"kind":"on-exit","command":"x"},"payload":{"kind":"agentTurn","message":"x"}}`, "not supported"},
		{`{"schedule":{"kind":"every","everyMs":60000},"payload":{"kind":"command","argv":["rm"]}}`, "not supported"},
		{`{"schedule":{"kind":"every","everyMs":60000},"payload":{"kind":"agentTurn"}}`, "payload.message"},
		{`{"schedule":{"kind":"every","everyMs":60000},"payload":{"kind":"systemEvent","text":" "}}`, "payload.text"},
		{`{"schedule":{"kind":"every","everyMs":60000},"sessionTarget":"main","payload":{"kind":"agentTurn","message":"x"}}`, "agentTurn"},
		{`{"schedule":{"kind":"every","everyMs":60000},"sessionTarget":"elsewhere","payload":{"kind":"agentTurn","message":"x"}}`, "sessionTarget"},
		{`{"schedule":{"kind":"every","everyMs":60000},"payload":{"kind":"heartbeat"}}`, "heartbeat"},
		{`{"schedule":{"kind":"every","everyMs":60000},"payload":{"kind":"agentTurn","message":"x"},"delivery":{"mode":"webhook"}}`, "webhook"},
		{`{"schedule":{"kind":"every","everyMs":60000},"payload":{"kind":"agentTurn","message":"x"},"delivery":{"mode":"webhook","to":"file:///etc/passwd"}}`, "http(s) URL"},
		{`{"schedule":{"kind":"every","everyMs":60000},"payload":{"kind":"agentTurn","message":"x"},"catchUp":"always"}`, "catchUp"},
		{`{"schedule":{"kind":"every","everyMs":60000},"payload":{"kind":"agentTurn","message":"x"},"pacing":{}}`, "unknown field"},
		{`{"payload":{"kind":"agentTurn","message":"x"}}`, "schedule is required"},
		{`{"schedule":{"kind":"every","everyMs":60000},"payload":{"kind":"agentTurn","message":"x"},"owner":{"agentId":"x"}}`, "owner"},
	}
	for _, tt := range tests {
		_, err := h.svc.AddJSON(context.Background(), []byte(tt.job), nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want it to mention %q", tt.job, err, tt.want)
		}
	}
	if jobs, total := h.svc.List(ListQuery{IncludeDisabled: true}); total != 0 {
		t.Fatalf("a refused job was kept: %v", jobs)
	}
}

func TestOwnerBindsTheAgent(t *testing.T) {
	h := newHarness(t)
	owner := &Owner{AgentID: "ops", SessionKey: "agent:ops:telegram:direct:42"}
	ctx := context.Background()
	if _, err := h.svc.AddJSON(ctx, []byte(`{"agentId":"main","schedule":{"kind":"every","everyMs":60000},"payload":{"kind":"agentTurn","message":"x"}}`), owner); err == nil {
		t.Fatal("a conversation made a job for another agent")
	}
	j, err := h.svc.AddJSON(ctx, []byte(`{"sessionTarget":"current","schedule":{"kind":"every","everyMs":60000},"payload":{"kind":"agentTurn","message":"x"}}`), owner)
	if err != nil {
		t.Fatal(err)
	}
	if j.AgentID != "ops" || j.Owner == nil || j.Owner.SessionKey != owner.SessionKey || j.SessionKey != owner.SessionKey {
		t.Fatalf("owned job: %+v", j)
	}
	if _, err := h.svc.Update(ctx, j.ID, []byte(`{"owner":{"agentId":"main"}}`)); err == nil {
		t.Fatal("the owner was patched away")
	}
}

func TestSystemJobs(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	hb := Job{ID: "heartbeat-main", Name: "Heartbeat (main)", Enabled: true, AgentID: "main",
		Schedule: Schedule{Kind: KindEvery, EveryMs: 30 * 60000}, SessionTarget: TargetMain, WakeMode: WakeNow,
		Payload: Payload{Kind: PayloadHeartbeat}}
	if err := h.svc.SyncSystem(ctx, []Job{hb}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Update(ctx, hb.ID, []byte(`{"enabled":false}`)); err == nil {
		t.Fatal("a system job was edited")
	}
	if err := h.svc.Remove(ctx, hb.ID); err == nil {
		t.Fatal("a system job was removed over the bus")
	}
	if _, total := h.svc.List(ListQuery{}); total != 0 {
		t.Fatal("system jobs show in the default list")
	}
	if _, total := h.svc.List(ListQuery{IncludeDisabled: true}); total != 1 {
		t.Fatal("system jobs are missing from --all")
	}
	h.clock.advance(30 * time.Minute)
	if c := h.nextCall(); c.Job.Payload.Kind != PayloadHeartbeat {
		t.Fatalf("ran %+v", c.Job)
	}
	h.finished(hb.ID)
	if err := h.svc.SyncSystem(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Get(hb.ID); !errors.Is(err, ErrNotFound) {
		t.Fatal("a system job the config dropped is still there")
	}
}

func TestRunHistoryIsPruned(t *testing.T) {
	h := newHarness(t)
	j := h.add(`{"name":"p","schedule":{"kind":"every","everyMs":3600000},"payload":{"kind":"agentTurn","message":"x"}}`)
	h.clock.advance(time.Hour)
	h.nextCall()
	h.finished(j.ID)
	h.clock.advance(8 * 24 * time.Hour) // older than the retention when the next run ends
	h.nextCall()
	h.finished(j.ID)
	if runs := h.runs(j.ID); len(runs) != 1 {
		t.Fatalf("%d runs kept; the week-old one should be gone", len(runs))
	}
}
