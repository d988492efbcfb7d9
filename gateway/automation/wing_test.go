package automation

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/cron"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
	"github.com/openclaw-go/openclaw/tools"
)

// fakeAgents records what the wing asks of the agents; turns fail at
// once, as they would with no model.
type fakeAgents struct {
	mu     sync.Mutex
	queued map[string][]string // session key -> system events
}

func (a *fakeAgents) Start(ctx context.Context, req agents.StartRequest) (*agents.Run, bool, error) {
	return nil, false, errors.New("no model configured")
}
func (a *fakeAgents) Abort(sessionKey, runID string) bool  { return false }
func (a *fakeAgents) MainSessionKey(agentID string) string { return "agent:" + agentID + ":main" }
func (a *fakeAgents) EnqueueSystemEvent(sessionKey, text string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.queued == nil {
		a.queued = map[string][]string{}
	}
	a.queued[sessionKey] = append(a.queued[sessionKey], text)
}
func (a *fakeAgents) PendingSystemEvents(sessionKey string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.queued[sessionKey])
}
func (a *fakeAgents) HasModel(agentID string) bool             { return false }
func (a *fakeAgents) Workspace(agentID string) (string, error) { return "", errors.New("no workspace") }

// fakeChats is a channel manager with fixed routes that records sends.
type fakeChats struct {
	routes map[string]channels.Route // session key -> its chat
	last   map[string]channels.Route // agent -> its last chat
	status string                    // of every send; "" is sent
	sent   []channels.SendRequest
}

func (c *fakeChats) RouteOf(ctx context.Context, key string) (channels.Route, bool, error) {
	r, ok := c.routes[key]
	return r, ok, nil
}
func (c *fakeChats) RunRoute(ctx context.Context, key, runID string) (channels.Route, bool, error) {
	return c.RouteOf(ctx, key)
}
func (c *fakeChats) BindRoute(ctx context.Context, key string, r channels.Route) error {
	c.routes[key] = r
	return nil
}
func (c *fakeChats) LastRoute(ctx context.Context, agentID string) (channels.Route, bool, error) {
	r, ok := c.last[agentID]
	return r, ok, nil
}
func (c *fakeChats) ParseTarget(s string) (string, channels.Target, error) {
	return channels.Networks{{Name: "telegram", Aliases: []string{"tg"}}}.ParseTarget(s)
}
func (c *fakeChats) Send(ctx context.Context, req channels.SendRequest) (channels.SendResult, error) {
	c.sent = append(c.sent, req)
	return channels.SendResult{Status: cmp.Or(c.status, "sent")}, nil
}

type events struct {
	mu   sync.Mutex
	seen []string
}

func (e *events) Broadcast(event string, payload any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen = append(e.seen, event)
}

// newWing builds a wing over a fresh store and the given config; its
// background work runs at once, in the caller.
func newWing(t *testing.T, cfg *config.Config, chats Chats) (*Wing, *fakeAgents) {
	t.Helper()
	st := storetest.Open(t, cron.Migrations())
	var mu sync.Mutex
	live := cfg
	ag := &fakeAgents{}
	w, err := New(Options{
		Config: func() *config.Config { mu.Lock(); defer mu.Unlock(); return live },
		Agents: ag, Chats: chats, Events: &events{}, DB: st.DB, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Go: func(fn func(ctx context.Context)) { fn(context.Background()) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close(context.Background()) })
	return w, ag
}

func heartbeatEvery(t *testing.T, w *Wing, agentID string) int64 {
	t.Helper()
	j, err := w.cron.Get(heartbeatJobID(agentID))
	if err != nil {
		return 0
	}
	return j.Schedule.EveryMs
}

func withHeartbeat(every string) *config.Config {
	cfg := config.Defaults()
	cfg.Agents.Defaults.Heartbeat.Every = every
	return cfg
}

// TestPrepareIsAReloadTransaction: Prepare changes nothing, a bad
// interval is refused naming the agent, and commit schedules the new
// interval.
func TestPrepareIsAReloadTransaction(t *testing.T) {
	w, _ := newWing(t, withHeartbeat("30m"), nil)
	if got := heartbeatEvery(t, w, "main"); got != 1_800_000 {
		t.Fatalf("heartbeat at start every %d ms, want 30m", got)
	}

	if _, err := w.Prepare(&config.Snapshot{Config: withHeartbeat("soon")}); err == nil || !strings.Contains(err.Error(), "agent main: heartbeat.every") {
		t.Fatalf("Prepare of a bad interval: %v, want a refusal naming agent main's heartbeat.every", err)
	}
	commit, err := w.Prepare(&config.Snapshot{Config: withHeartbeat("1h")})
	if err != nil {
		t.Fatal(err)
	}
	if got := heartbeatEvery(t, w, "main"); got != 1_800_000 {
		t.Fatalf("Prepare alone moved the heartbeat to every %d ms", got)
	}
	commit()
	if got := heartbeatEvery(t, w, "main"); got != 3_600_000 {
		t.Fatalf("after commit every %d ms, want 1h", got)
	}
	commit, err = w.Prepare(&config.Snapshot{Config: withHeartbeat("0m")})
	if err != nil {
		t.Fatal(err)
	}
	commit()
	if _, err := w.cron.Get(heartbeatJobID("main")); err == nil {
		t.Fatal("heartbeats turned off, yet the job is still there")
	}
}

// TestWake: next-heartbeat only queues; now also runs a heartbeat turn
// in the background.
func TestWake(t *testing.T) {
	w, ag := newWing(t, withHeartbeat("30m"), nil)
	w.Wake("main", "", cron.WakeNextHeartbeat, "disk full")
	if got := ag.queued["agent:main:main"]; len(got) != 1 || got[0] != "disk full" {
		t.Fatalf("queued %v", got)
	}
	if w.beats.last != nil {
		t.Fatal("next-heartbeat ran a heartbeat")
	}
	w.Wake("main", "agent:main:telegram:direct:42", cron.WakeNow, "build done")
	if w.beats.last == nil || w.beats.last.Trigger != "wake" || w.beats.last.SessionKey != "agent:main:telegram:direct:42" {
		t.Fatalf("wake now: last heartbeat %+v", w.beats.last)
	}
	if w.beats.last.Status != hbFailed || !strings.Contains(w.beats.last.Reason, "no model") {
		t.Fatalf("the failed turn is not reported: %+v", w.beats.last)
	}
}

// TestDeliver: where an answer goes, and the chat a job made in a chat
// is held to.
func TestDeliver(t *testing.T) {
	tg42 := channels.Route{Channel: "telegram", AccountID: "default", ChatID: "42"}
	owner := &cron.Owner{AgentID: "main", SessionKey: "agent:main:telegram:direct:42"}
	tests := []struct {
		name    string
		chats   bool
		last    bool
		status  string
		target  deliveryTarget
		wantTo  string // chat id sent to
		wantErr string
	}{
		{name: "no channels", target: deliveryTarget{AgentID: "main"}, wantErr: "no channels are running"},
		{name: "last chat unknown", chats: true, target: deliveryTarget{AgentID: "main", Channel: "last"}, wantErr: "no chat to deliver to: agent main"},
		{name: "last chat", chats: true, last: true, target: deliveryTarget{AgentID: "main", Channel: "last"}, wantTo: "7"},
		{name: "owner's chat", chats: true, last: true, target: deliveryTarget{AgentID: "main", Owner: owner}, wantTo: "42"},
		{name: "explicit chat", chats: true, target: deliveryTarget{AgentID: "main", To: "telegram:99"}, wantTo: "99"},
		{name: "owner's job elsewhere", chats: true, target: deliveryTarget{AgentID: "main", Owner: owner, To: "telegram:43"},
			wantErr: "a job made in a telegram chat delivers only to that chat, not to telegram 43"},
		{name: "bad target", chats: true, target: deliveryTarget{AgentID: "main", To: " "}, wantErr: "delivery.to: target is empty"},
		{name: "send failed", chats: true, status: "failed", target: deliveryTarget{AgentID: "main", To: "telegram:99"}, wantErr: "send ended failed"},
		// The policy is asked with the chat the send resolved to: the
		// remembered last chat's channel and type, not the caller's words.
		{name: "policy denies the last chat", chats: true, last: true, target: deliveryTarget{AgentID: "main", Channel: "last",
			Allowed: func(_ context.Context, ch, kind string) bool { return !(ch == "telegram" && kind == "group") }}, wantErr: "session.sendPolicy"},
		{name: "policy denies the named chat", chats: true, target: deliveryTarget{AgentID: "main", To: "telegram:99",
			Allowed: func(_ context.Context, ch, _ string) bool { return ch != "telegram" }}, wantErr: "session.sendPolicy"},
		{name: "policy allows", chats: true, target: deliveryTarget{AgentID: "main", To: "telegram:99",
			Allowed: func(_ context.Context, ch, _ string) bool { return ch == "telegram" }}, wantTo: "99"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var chats *fakeChats
			var c Chats
			if tt.chats {
				chats = &fakeChats{routes: map[string]channels.Route{owner.SessionKey: tg42}, last: map[string]channels.Route{}, status: tt.status}
				if tt.last {
					chats.last["main"] = channels.Route{Channel: "telegram", ChatID: "7", ChatKind: channels.Group}
				}
				c = chats
			}
			w, _ := newWing(t, withHeartbeat("0m"), c)
			err := w.deliver(context.Background(), tt.target, "hello", "key-1")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("deliver: %v, want %q", err, tt.wantErr)
				}
				if chats != nil && tt.status == "" && len(chats.sent) != 0 {
					t.Fatalf("a refused delivery sent %+v", chats.sent)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(chats.sent) != 1 || chats.sent[0].To.ChatID != tt.wantTo || chats.sent[0].IdempotencyKey != "key-1" {
				t.Fatalf("sent %+v, want one message to chat %s", chats.sent, tt.wantTo)
			}
		})
	}
}

// TestSchedulerBeforeTheWing: the tool is built before the wing; until
// the wing exists every action says the scheduler is not running.
func TestSchedulerBeforeTheWing(t *testing.T) {
	s := NewScheduler(func() *Wing { return nil })
	ctx, who := context.Background(), tools.Who{AgentID: "main", SessionKey: "agent:main:main"}
	calls := map[string]func() (any, error){
		"status": func() (any, error) { return s.Status(ctx, who) },
		"list":   func() (any, error) { return s.List(ctx, who, true) },
		"add":    func() (any, error) { return s.Add(ctx, who, []byte(`{}`)) },
		"update": func() (any, error) { return s.Update(ctx, who, "x", []byte(`{}`)) },
		"remove": func() (any, error) { return s.Remove(ctx, who, "x") },
		"run":    func() (any, error) { return s.Run(ctx, who, "x", "force") },
		"runs":   func() (any, error) { return s.Runs(ctx, who, "", 10) },
		"wake":   func() (any, error) { return s.Wake(ctx, who, "now", "hi") },
	}
	for name, call := range calls {
		if _, err := call(); !errors.Is(err, errSchedulerOff) {
			t.Errorf("%s: %v, want %v", name, err, errSchedulerOff)
		}
	}
}

// TestSchedulerScopesToTheCaller: a conversation of one agent does not
// see another's jobs, nor a chat the operator's.
func TestSchedulerScopesToTheCaller(t *testing.T) {
	cfg := withHeartbeat("0m")
	cfg.Agents.Entries = map[string]config.AgentEntry{"main": {}, "ops": {}}
	chat := "agent:main:telegram:direct:42"
	chats := &fakeChats{routes: map[string]channels.Route{chat: {Channel: "telegram", ChatID: "42"}}, last: map[string]channels.Route{}}
	w, _ := newWing(t, cfg, chats)
	s := NewScheduler(func() *Wing { return w })
	ctx := context.Background()
	operator := tools.Who{AgentID: "main", SessionKey: "agent:main:main"}
	job := []byte(`{"name":"report","schedule":{"kind":"every","everyMs":3600000},"payload":{"kind":"agentTurn","message":"weekly"}}`)
	added, err := s.Add(ctx, operator, job)
	if err != nil {
		t.Fatal(err)
	}
	id := added.(cron.Job).ID

	for _, who := range []tools.Who{{AgentID: "ops", SessionKey: "agent:ops:main"}, {AgentID: "main", SessionKey: chat}} {
		list, err := s.List(ctx, who, true)
		if err != nil {
			t.Fatal(err)
		}
		if n := list.(map[string]any)["total"]; n != 0 {
			t.Errorf("%s sees %v jobs, want none", who.SessionKey, n)
		}
		var nf *cron.NotFoundError
		if _, err := s.Remove(ctx, who, id); !errors.As(err, &nf) {
			t.Errorf("%s removing the operator's job: %v, want not found", who.SessionKey, err)
		}
	}
	if _, err := s.Remove(ctx, operator, id); err != nil {
		t.Fatalf("the owner cannot remove its job: %v", err)
	}
}

// TestFailureAlert: the second failure in a row tells the job's chat,
// once per cooldown; a success starts the count afresh.
func TestFailureAlert(t *testing.T) {
	chats := &fakeChats{routes: map[string]channels.Route{}, last: map[string]channels.Route{}}
	w, _ := newWing(t, withHeartbeat("0m"), chats)
	job := cron.Job{ID: "j1", Name: "nightly", AgentID: "main", Delivery: &cron.Delivery{Mode: "announce", To: "telegram:99"}}
	fail := func(streak int) {
		job.State.ConsecutiveErrors = streak
		w.onCronFinish(job, cron.RunEntry{Status: cron.StatusError, Error: "boom", RunID: "r" + strconv.Itoa(streak)})
	}
	fail(1)
	if len(chats.sent) != 0 {
		t.Fatal("alerted after one failure")
	}
	fail(2)
	if len(chats.sent) != 1 || chats.sent[0].To.ChatID != "99" || !strings.Contains(chats.sent[0].Text, `Scheduled job "nightly" failed 2 times in a row. Last: boom`) {
		t.Fatalf("alert: %+v", chats.sent)
	}
	fail(3)
	if len(chats.sent) != 1 {
		t.Fatal("alerted again within the cooldown")
	}
	job.State.ConsecutiveErrors = 0
	w.onCronFinish(job, cron.RunEntry{Status: cron.StatusOK, RunID: "ok"})
	fail(2)
	if len(chats.sent) != 2 {
		t.Fatal("a new failure streak after a success did not alert")
	}
}

// OwnerRoute answers the owner's DM as the first "telegram:<id>" entry of
// owners names it.
func (f *fakeChats) OwnerRoute(_ context.Context, owners []string) (channels.Route, error) {
	for _, o := range owners {
		if id, ok := strings.CutPrefix(o, "telegram:"); ok {
			return channels.Route{Channel: "telegram", ChatID: id, ChatKind: channels.Direct}, nil
		}
	}
	return channels.Route{}, channels.ErrNoOwnerRoute
}
