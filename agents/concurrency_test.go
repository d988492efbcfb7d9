package agents

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/agents/sessions"
)

// runSessions is an Emitter that checks, as events arrive, that every
// event of a run names that run's session, and counts final chat events.
type runSessions struct {
	mu     sync.Mutex
	keyOf  map[string]string // runId -> sessionKey of its first event
	finals map[string]int
	wrong  []string
}

func (r *runSessions) Broadcast(event string, payload any) {
	p, ok := payload.(map[string]any)
	if !ok {
		return
	}
	runID, _ := p["runId"].(string)
	key, _ := p["sessionKey"].(string)
	r.mu.Lock()
	defer r.mu.Unlock()
	if first, seen := r.keyOf[runID]; !seen {
		r.keyOf[runID] = key
	} else if first != key && len(r.wrong) < 10 {
		r.wrong = append(r.wrong, fmt.Sprintf("%s event of run %s names %s, earlier ones %s", event, runID, key, first))
	}
	if event == eventChat && p["state"] == "final" {
		r.finals[runID]++
	}
}

// TestManySessionsNoCrossTalk: 200 sessions take 10 turns each at the
// same time, through one service and one fake model server over HTTP.
// Even sessions converse (each message waits for the answer to the one
// before); odd ones send all ten at once and let the session queue order
// them. Every transcript must hold exactly its own ten messages and ten
// answers, each answer from the run of its message and echoing it, in
// order; and every event of a run must name the run's session. -short
// runs 40 sessions.
func TestManySessionsNoCrossTalk(t *testing.T) {
	nSessions, perSession := 200, 10
	if testing.Short() {
		nSessions = 40
	}
	model, err := fakemodel.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(model.Close)
	events := &runSessions{keyOf: map[string]string{}, finals: map[string]int{}}
	svc, st := newTurnService(t, model.URL(), events)
	ctx := context.Background()

	keyOf := func(s int) string { return fmt.Sprintf("agent:main:crosstalk-%d", s) }
	textOf := func(s, m int) string { return fmt.Sprintf("session %d message %d", s, m) }
	runIDs := make([][]string, nSessions) // per session, in the order sent
	errs := make(chan error, nSessions*perSession)
	wait := func(run *Run) (RunResult, error) {
		select {
		case <-run.Done():
			return run.Result(), nil
		case <-time.After(2 * time.Minute):
			return RunResult{}, fmt.Errorf("run %s of %s did not finish", run.ID, run.SessionKey)
		}
	}

	start := time.Now()
	var wg sync.WaitGroup
	for s := range nSessions {
		wg.Go(func() {
			var runs []*Run
			for m := range perSession {
				run, _, err := svc.Start(ctx, StartRequest{SessionKey: keyOf(s), Message: textOf(s, m)})
				if err != nil {
					errs <- fmt.Errorf("%s: start message %d: %w", keyOf(s), m, err)
					return
				}
				runIDs[s] = append(runIDs[s], run.ID)
				if s%2 == 1 {
					runs = append(runs, run)
					continue
				}
				res, err := wait(run)
				switch {
				case err != nil:
					errs <- err
					return
				case res.Status != "ok" || res.Text != "echo: "+textOf(s, m):
					errs <- fmt.Errorf("%s message %d: ended %s with %q (%s)", keyOf(s), m, res.Status, res.Text, res.Error)
				}
			}
			for m, run := range runs {
				res, err := wait(run)
				switch {
				case err != nil:
					errs <- err
					return
				case res.Status != "ok" || res.Text != "echo: "+textOf(s, m):
					errs <- fmt.Errorf("%s message %d: ended %s with %q (%s)", keyOf(s), m, res.Status, res.Text, res.Error)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d sessions x %d turns in %v", nSessions, perSession, time.Since(start).Round(time.Millisecond))

	for s := range nSessions {
		sess, err := st.Get(ctx, keyOf(s))
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := st.History(ctx, sess.SessionID, sessions.HistoryQuery{Limit: sessions.MaxHistoryLimit})
		if err != nil {
			t.Fatal(err)
		}
		if why := checkTranscript(msgs, runIDs[s], func(m int) string { return textOf(s, m) }, s%2 == 0); why != "" {
			t.Errorf("%s: %s", keyOf(s), why)
		}
	}

	events.mu.Lock()
	defer events.mu.Unlock()
	for _, w := range events.wrong {
		t.Error(w)
	}
	for s, ids := range runIDs {
		for _, id := range ids {
			if got := events.keyOf[id]; got != keyOf(s) {
				t.Errorf("events of run %s name %q, want %s", id, got, keyOf(s))
			}
			if n := events.finals[id]; n != 1 {
				t.Errorf("run %s of %s had %d final chat events, want 1", id, keyOf(s), n)
			}
		}
	}
}

// checkTranscript says what is wrong with one session's transcript, or
// "": the user messages are text(0..n-1) with the given run ids in order,
// each followed (at once when strict, else later) by its run's answer,
// the answers in the same order, each echoing its own message (a queued
// run's context ends at its message), and nothing else.
func checkTranscript(msgs []sessions.Message, runIDs []string, text func(int) string, strict bool) string {
	if len(msgs) != 2*len(runIDs) {
		return fmt.Sprintf("%d messages, want %d", len(msgs), 2*len(runIDs))
	}
	var users, answers []sessions.Message
	userAt := map[string]int{}
	for i, m := range msgs {
		switch m.Role {
		case sessions.RoleUser:
			userAt[m.RunID] = i
			users = append(users, m)
		case sessions.RoleAssistant:
			if at, ok := userAt[m.RunID]; !ok || (strict && at != i-1) {
				return fmt.Sprintf("answer at %d (run %s) does not follow its message", i, m.RunID)
			}
			answers = append(answers, m)
		default:
			return fmt.Sprintf("unexpected %s message at %d", m.Role, i)
		}
	}
	if len(users) != len(runIDs) || len(answers) != len(runIDs) {
		return fmt.Sprintf("%d messages and %d answers, want %d of each", len(users), len(answers), len(runIDs))
	}
	for i, id := range runIDs {
		if users[i].RunID != id || users[i].Text != text(i) {
			return fmt.Sprintf("message %d is %q of run %s, want %q of run %s", i, users[i].Text, users[i].RunID, text(i), id)
		}
		if answers[i].RunID != id {
			return fmt.Sprintf("answer %d is of run %s, want %s", i, answers[i].RunID, id)
		}
		if answers[i].Text != "echo: "+text(i) {
			return fmt.Sprintf("answer %d is %q, want %q", i, answers[i].Text, "echo: "+text(i))
		}
	}
	return ""
}
