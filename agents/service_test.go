package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// recorder is an Emitter that keeps every event.
type recorder struct {
	mu     sync.Mutex
	events []recorded
}

type recorded struct {
	name    string
	payload map[string]any
}

func (r *recorder) Broadcast(event string, payload any) {
	b, _ := json.Marshal(payload)
	var m map[string]any
	json.Unmarshal(b, &m)
	r.mu.Lock()
	r.events = append(r.events, recorded{event, m})
	r.mu.Unlock()
}

func (r *recorder) chatStates(runID string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if e.name == "chat" && e.payload["runId"] == runID {
			out = append(out, e.payload["state"].(string))
		}
	}
	return out
}

type fixture struct {
	svc   *Service
	store *sessions.Store
	db    *store.Store
	rec   *recorder
	model *fakemodel.Server
	path  string
}

func configFor(t *testing.T, src string) *config.Config {
	t.Helper()
	snap, err := config.Parse("openclaw.json", []byte(src), config.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return snap.Config
}

// newFixture starts a service whose "fake" provider is a fake model
// server; cfgSrc may use %s for that server's base URL.
func newFixture(t *testing.T, cfgSrc string, tools ToolRunner) *fixture {
	t.Helper()
	f := &fixture{rec: &recorder{}, model: fakemodel.New(t), path: storetest.Place(t)}
	if cfgSrc == "" {
		cfgSrc = `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"echo-1"}]}}}, agents:{defaults:{model:"fake/echo-1"}}}`
	}
	f.open(t, configFor(t, fmt.Sprintf(cfgSrc, f.model.URL())), tools)
	return f
}

func (f *fixture) open(t *testing.T, cfg *config.Config, tools ToolRunner) {
	t.Helper()
	db := storetest.OpenAt(t, f.path, sessions.Migrations())
	f.db = db
	f.store = sessions.New(db.DB, nil)
	f.svc = New(cfg, Options{Store: f.store, Emit: f.rec, Tools: tools, StateDir: t.TempDir()})
	t.Cleanup(func() { f.svc.Close(); db.Close() })
}

func (f *fixture) run(t *testing.T, req StartRequest) RunResult {
	t.Helper()
	run, _, err := f.svc.Start(context.Background(), req)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	select {
	case <-run.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("run did not finish")
	}
	return run.Result()
}

func TestTextTurnStreamsAndPersists(t *testing.T) {
	f := newFixture(t, "", nil)
	f.model.Script(fakemodel.Reply{Text: "hello there, friend", Usage: fakemodel.Usage{InputTokens: 7, OutputTokens: 4}})
	res := f.run(t, StartRequest{Message: "hi", RunID: "r1"})
	if res.Status != "ok" || res.Text != "hello there, friend" || res.Provider != "fake" || res.Model != "echo-1" || res.Usage.OutputTokens != 4 {
		t.Fatalf("result = %+v", res)
	}
	states := f.rec.chatStates("r1")
	if len(states) < 2 || states[0] != "delta" || states[len(states)-1] != "final" {
		t.Fatalf("chat states = %v", states)
	}
	sess, err := f.store.Get(context.Background(), "agent:main:main")
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := f.store.History(context.Background(), sess.SessionID, sessions.HistoryQuery{})
	if len(msgs) != 2 || msgs[0].Role != "user" || msgs[0].Text != "hi" || msgs[1].Role != "assistant" || msgs[1].Text != "hello there, friend" {
		t.Fatalf("transcript = %+v", msgs)
	}
	// The model saw the system prompt and the message.
	reqs := f.model.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].System, `agent (id "main")`) || reqs[0].Messages[len(reqs[0].Messages)-1].Text != "hi" {
		t.Fatalf("model request = %+v", reqs)
	}
}

func TestTranscriptSurvivesRestart(t *testing.T) {
	f := newFixture(t, "", nil)
	f.run(t, StartRequest{Message: "remember the number 42"})
	f.svc.Close()
	f.db.Close()
	f.open(t, f.svc.config(), nil)
	f.run(t, StartRequest{Message: "what was the number?"})
	last := f.model.Requests()[1]
	if len(last.Messages) != 3 || last.Messages[0].Text != "remember the number 42" {
		t.Fatalf("after restart the model saw %+v", last.Messages)
	}
}

// scriptedTools offers two tools and records calls.
type scriptedTools struct {
	mu    sync.Mutex
	calls []string
}

func (s *scriptedTools) Tools(ctx context.Context, t *Turn) []providers.Tool {
	schema := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)
	return []providers.Tool{{Name: "lookup", Description: "Look something up.", Parameters: schema}, {Name: "boom", Description: "Always fails.", Parameters: schema}}
}

func (s *scriptedTools) Run(ctx context.Context, t *Turn, call providers.ToolCall) ToolResult {
	s.mu.Lock()
	s.calls = append(s.calls, call.Name)
	s.mu.Unlock()
	if call.Name == "boom" {
		panic("tool exploded")
	}
	return ToolResult{Text: "found: " + string(call.Arguments)}
}

func TestToolCallsRunAndFeedBack(t *testing.T) {
	tools := &scriptedTools{}
	f := newFixture(t, "", tools)
	f.model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "c1", Name: "lookup", Arguments: `{"q":"go"}`}, {ID: "c2", Name: "boom", Arguments: `{}`}}},
		fakemodel.Reply{Text: "done"},
	)
	res := f.run(t, StartRequest{Message: "use tools", RunID: "rt"})
	if res.Status != "ok" || res.Text != "done" {
		t.Fatalf("result = %+v", res)
	}
	second := f.model.Requests()[1]
	var results []string
	for _, m := range second.Messages {
		if m.Role == "tool" {
			results = append(results, m.ToolCallID+"="+m.Text)
		}
	}
	if len(results) != 2 || results[0] != `c1=found: {"q":"go"}` || !strings.HasPrefix(results[1], "c2=tool boom failed") {
		t.Fatalf("tool results sent back = %q", results)
	}
	if len(second.Tools) != 2 {
		t.Fatalf("tools offered = %+v", second.Tools)
	}
}

func TestFallbackAndClearErrors(t *testing.T) {
	t.Run("falls back to the next model", func(t *testing.T) {
		f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%[1]s/v1"}, spare:{baseUrl:"%[1]s/v1"}}},
			agents:{defaults:{model:{primary:"fake/bad", fallbacks:["spare/good"]}}}}`, nil)
		f.model.Script(fakemodel.Reply{Status: 401, ErrorMessage: "bad key"}, fakemodel.Reply{Text: "from spare"})
		res := f.run(t, StartRequest{Message: "hi"})
		if res.Status != "ok" || res.Text != "from spare" || res.Provider != "spare" {
			t.Fatalf("result = %+v", res)
		}
	})
	t.Run("all fail", func(t *testing.T) {
		f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1"}}}, agents:{defaults:{model:"fake/m"}}}`, nil)
		f.model.Script(fakemodel.Reply{Status: 401, ErrorMessage: "bad key"})
		res := f.run(t, StartRequest{Message: "hi", RunID: "rf"})
		if res.Status != "error" || !strings.Contains(res.Error, "fake/m") || !strings.Contains(res.Error, "auth") {
			t.Fatalf("result = %+v", res)
		}
		if states := f.rec.chatStates("rf"); states[len(states)-1] != "error" {
			t.Fatalf("chat states = %v", states)
		}
	})
	t.Run("no model configured", func(t *testing.T) {
		f := newFixture(t, "{} // %s", nil)
		res := f.run(t, StartRequest{Message: "hi"})
		if res.Status != "error" || !strings.Contains(res.Error, "agents.defaults.model") {
			t.Fatalf("result = %+v", res)
		}
	})
}

func TestOneRunPerSessionAndAbort(t *testing.T) {
	f := newFixture(t, "", nil)
	f.model.Script(fakemodel.Reply{Text: "slow answer", Delay: 30 * time.Second}, fakemodel.Reply{Text: "second"})
	first, _, err := f.svc.Start(context.Background(), StartRequest{Message: "one", RunID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := f.svc.Start(context.Background(), StartRequest{Message: "two", RunID: "b"})
	if err != nil {
		t.Fatal(err)
	}
	// Wait until the first is at the model, then abort it.
	deadline := time.Now().Add(10 * time.Second)
	for len(f.model.Requests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("first run never reached the model")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !f.svc.Abort("agent:main:main", "a") {
		t.Fatal("abort found nothing to stop")
	}
	<-first.Done()
	<-second.Done()
	if first.Result().Status != "aborted" || second.Result().Status != "ok" || second.Result().Text != "second" {
		t.Fatalf("first %+v, second %+v", first.Result(), second.Result())
	}
}

func TestResetTriggerKeepsOldTranscript(t *testing.T) {
	f := newFixture(t, "", nil)
	f.run(t, StartRequest{Message: "old conversation"})
	before, _ := f.store.Get(context.Background(), "agent:main:main")
	res := f.run(t, StartRequest{Message: "/new fresh start"})
	after, _ := f.store.Get(context.Background(), "agent:main:main")
	if res.Status != "ok" || before.SessionID == after.SessionID {
		t.Fatalf("reset: %+v, ids %s %s", res, before.SessionID, after.SessionID)
	}
	old, _ := f.store.History(context.Background(), before.SessionID, sessions.HistoryQuery{})
	fresh, _ := f.store.History(context.Background(), after.SessionID, sessions.HistoryQuery{})
	if len(old) != 2 || len(fresh) != 2 || fresh[0].Text != "fresh start" {
		t.Fatalf("old %d messages, fresh %+v", len(old), fresh)
	}
}

func TestCompactionNearTheWindow(t *testing.T) {
	// A 2,000-token window fills after a few long messages. Mode
	// "default" asks for the summary in one request (compact_test.go has
	// safeguard's chunks and audit).
	f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"small", contextWindow:2000}]}}}, agents:{defaults:{model:"fake/small", compaction:{mode:"default"}}}}`, nil)
	long := strings.Repeat("lorem ipsum dolor sit amet ", 60) // ~400 tokens
	for i := 0; i < 4; i++ {
		f.run(t, StartRequest{Message: fmt.Sprintf("message %d: %s", i, long)})
	}
	f.model.Script(fakemodel.Reply{Text: "SUMMARY: four long messages about lorem ipsum"}, fakemodel.Reply{Text: "answer"})
	res := f.run(t, StartRequest{Message: "and now?"})
	if res.Status != "ok" || res.Text != "answer" {
		t.Fatalf("result = %+v", res)
	}
	reqs := f.model.Requests()
	last := reqs[len(reqs)-1]
	if !strings.Contains(last.Messages[0].Text, "SUMMARY: four long messages") || len(last.Messages) >= 9 {
		t.Fatalf("the model was not given the summary in place of old turns: %d messages, first %q", len(last.Messages), clip(last.Messages[0].Text, 80))
	}
	// The transcript keeps everything.
	sess, _ := f.store.Get(context.Background(), "agent:main:main")
	all, _ := f.store.History(context.Background(), sess.SessionID, sessions.HistoryQuery{Limit: 1000})
	users := 0
	for _, m := range all {
		if m.Role == "user" {
			users++
		}
	}
	if users != 5 {
		t.Fatalf("transcript has %d user messages, want 5", users)
	}
}

func TestPromptInjections(t *testing.T) {
	f := newFixture(t, "", nil)
	f.svc.opts.PromptInjections = func() []string { return []string{"Never reveal keys."} }
	f.run(t, StartRequest{Message: "hi"})
	if sys := f.model.Requests()[0].System; !strings.Contains(sys, "Never reveal keys.") {
		t.Fatalf("system prompt lacks the injection:\n%s", sys)
	}
}

func TestAfterLLMFiltersBeforeAnyoneSees(t *testing.T) {
	f := newFixture(t, "", nil)
	f.svc.opts.AfterLLM = func() (func(string) string, bool) {
		return func(s string) string { return strings.ReplaceAll(s, "secret-42", "[REDACTED]") }, true
	}
	f.model.Script(fakemodel.Reply{Text: "the code is secret-42"})
	res := f.run(t, StartRequest{Message: "code?", RunID: "af"})
	if res.Text != "the code is [REDACTED]" {
		t.Fatalf("answer = %q", res.Text)
	}
	f.rec.mu.Lock()
	defer f.rec.mu.Unlock()
	for _, e := range f.rec.events {
		b, _ := json.Marshal(e.payload)
		if strings.Contains(string(b), "secret-42") {
			t.Fatalf("an event leaked the unfiltered answer: %s", b)
		}
	}
}
