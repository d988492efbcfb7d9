package channels

import (
	"context"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
	"testing"
	"time"
)

// routeAgent answers each turn with the chat RunRoute gives its run.
// Ann's turn says it has started, then waits until Bob has become the
// session's last chat.
type routeAgent struct {
	m          func() *Manager
	annStarted chan struct{}
}

func (a routeAgent) Dispatch(ctx context.Context, d Dispatch) (Reply, error) {
	m := a.m()
	if d.SenderID == "ann" {
		close(a.annStarted)
		for ; ; time.Sleep(5 * time.Millisecond) {
			r, _, err := m.RouteOf(ctx, d.SessionKey)
			if err != nil {
				return Reply{}, err
			}
			if r.ChatID == "bob" {
				break
			}
		}
	}
	r, ok, err := m.RunRoute(ctx, d.SessionKey, d.RunID)
	if err != nil || !ok {
		return Reply{Text: "no route"}, err
	}
	return Reply{Text: "run chat " + r.ChatID}, nil
}

// TestRunRouteInASharedSession: Ann and Bob share one session (the
// default dmScope puts every DM in the main session). While Ann's turn
// runs, Bob writes, so the session's chat is Bob's; Ann's run must still
// be routed to Ann's chat (the message tool, approvals), and the reply to
// each message goes to the chat it came from.
func TestRunRouteInASharedSession(t *testing.T) {
	var h *harness
	agent := routeAgent{m: func() *Manager { return h.m }, annStarted: make(chan struct{})}
	h = newHarness(t, storetest.Place(t), AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}}, agent, nil)
	ann, bob := dmFrom("1", "ann", "hi"), dmFrom("2", "bob", "hello")
	ann.Sender.ID, bob.Sender.ID = "ann", "bob"
	h.ad.push(t, ann)
	<-agent.annStarted // Bob writes while Ann's turn runs
	h.ad.push(t, bob)
	got := map[string]string{}
	for _, o := range h.ad.waitSent(t, 2) {
		got[o.To.ChatID] = o.Text
	}
	if got["ann"] != "run chat ann" || got["bob"] != "run chat bob" {
		t.Fatalf("replies by chat %v: each run must be routed to its own chat", got)
	}
	if r, _, _ := h.m.RouteOf(context.Background(), "agent:main:main"); r.ChatID != "bob" {
		t.Fatalf("the shared session's chat is %q: the test did not make Bob the last to write", r.ChatID)
	}
	// Runs that are not channel turns keep the session's chat.
	if r, ok, err := h.m.RunRoute(context.Background(), "agent:main:main", "cron-run-1"); err != nil || !ok || r.ChatID != "bob" {
		t.Fatalf("RunRoute of another run = %+v %v %v", r, ok, err)
	}
}

func TestInboundOfRun(t *testing.T) {
	for _, tc := range []struct {
		runID string
		id    int64
		ok    bool
	}{
		{RunIDOf(42), 42, true},
		{"channel-in-7", 7, true},
		{"channel-in-", 0, false},
		{"channel-in-x", 0, false},
		{"channel-in--3", 0, false},
		{"channel-in-0", 0, false},
		{"chat-1", 0, false},
		{"", 0, false},
	} {
		if id, ok := InboundOfRun(tc.runID); ok != tc.ok || (ok && id != tc.id) {
			t.Errorf("InboundOfRun(%q) = %d, %v; want %d, %v", tc.runID, id, ok, tc.id, tc.ok)
		}
	}
}
