package providers_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// outcome is one scripted answer of a stubProvider: text streamed, then
// err if set.
type outcome struct {
	text string
	err  *providers.Error
}

// stubProvider is an in-memory Provider that answers from a script, for
// tests of Chain's decisions without HTTP.
type stubProvider struct {
	name string

	mu     sync.Mutex
	script []outcome
	models []string // the model of each call
	tools  []int    // how many tools each call was offered
}

func (s *stubProvider) Name() string { return s.name }

func (s *stubProvider) Complete(ctx context.Context, req providers.Request, hooks providers.Hooks) (*providers.Response, error) {
	s.mu.Lock()
	s.models = append(s.models, req.Model)
	s.tools = append(s.tools, len(req.Tools))
	if len(s.script) == 0 {
		s.mu.Unlock()
		return &providers.Response{Text: "default"}, nil
	}
	o := s.script[0]
	s.script = s.script[1:]
	s.mu.Unlock()
	if o.text != "" && hooks.OnDelta != nil {
		hooks.OnDelta(o.text)
	}
	if o.err != nil {
		e := *o.err
		e.Provider, e.Model = s.name, req.Model
		return nil, &e
	}
	return &providers.Response{Text: o.text, StopReason: providers.StopEnd}, nil
}

func (s *stubProvider) calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.models)
}

func fail(kind providers.ErrorKind, msg string) outcome {
	return outcome{err: &providers.Error{Kind: kind, Message: msg}}
}

// sleeps records the waits a Chain asks for, without waiting.
type sleeps struct{ got []time.Duration }

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.got = append(s.got, d)
	return ctx.Err()
}

func refs(attempts []providers.Attempt) []string {
	out := make([]string, len(attempts))
	for i, a := range attempts {
		out[i] = a.Ref
	}
	return out
}

func TestChain(t *testing.T) {
	rateLimited := outcome{err: &providers.Error{Kind: providers.KindRateLimit, Message: "slow down", RetryAfter: 3 * time.Second}}
	tests := []struct {
		name       string
		a, b       []outcome
		retries    int
		wantText   string
		wantRefs   []string
		wantSleeps []time.Duration
		wantKind   providers.ErrorKind // of the error, when one is expected
		wantErr    string              // exact error text, when set
		restarts   int
	}{
		{
			name:       "retry then succeed",
			a:          []outcome{fail(providers.KindUnavailable, "down"), rateLimited, {text: "hi"}},
			wantText:   "hi",
			wantRefs:   []string{"a/m1", "a/m1", "a/m1"},
			wantSleeps: []time.Duration{500 * time.Millisecond, 3 * time.Second},
		},
		{
			name:     "auth falls back at once",
			a:        []outcome{fail(providers.KindAuth, "bad key")},
			b:        []outcome{{text: "from b"}},
			wantText: "from b",
			wantRefs: []string{"a/m1", "b/m2"},
		},
		{
			name:     "bad request falls back at once",
			a:        []outcome{fail(providers.KindBadRequest, "no such model")},
			wantText: "default",
			wantRefs: []string{"a/m1", "b/m2"},
		},
		{
			name:       "retries exhausted, then fallback",
			a:          []outcome{fail(providers.KindTimeout, "slow"), fail(providers.KindTimeout, "slow"), fail(providers.KindTimeout, "slow")},
			wantText:   "default",
			wantRefs:   []string{"a/m1", "a/m1", "a/m1", "b/m2"},
			wantSleeps: []time.Duration{500 * time.Millisecond, time.Second},
		},
		{
			name:     "context length is returned at once",
			a:        []outcome{fail(providers.KindContextLength, "prompt is too long")},
			wantRefs: []string{"a/m1"},
			wantKind: providers.KindContextLength,
		},
		{
			name:     "retry-after past a minute skips the step",
			a:        []outcome{{err: &providers.Error{Kind: providers.KindRateLimit, Message: "quota", RetryAfter: time.Hour}}},
			wantText: "default",
			wantRefs: []string{"a/m1", "b/m2"},
		},
		{
			name:     "streamed then failed restarts",
			a:        []outcome{{text: "partial ", err: &providers.Error{Kind: providers.KindUnavailable, Message: "dropped"}}, {text: "whole"}},
			wantText: "whole",
			wantRefs: []string{"a/m1", "a/m1"},
			restarts: 1,
			// the one retry waits the first backoff
			wantSleeps: []time.Duration{500 * time.Millisecond},
		},
		{
			name:     "all fail",
			retries:  -1,
			a:        []outcome{fail(providers.KindUnavailable, "down")},
			b:        []outcome{fail(providers.KindAuth, "bad key")},
			wantRefs: []string{"a/m1", "b/m2"},
			wantKind: providers.KindAuth,
			wantErr:  "a/m1: unavailable: down; b/m2: auth: bad key",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &stubProvider{name: "a", script: tt.a}
			b := &stubProvider{name: "b", script: tt.b}
			sl := &sleeps{}
			c := &providers.Chain{
				Steps:   []providers.Step{{Provider: a, Model: "m1"}, {Provider: b, Model: "m2"}},
				Retries: tt.retries,
				Sleep:   sl.sleep,
			}
			rec := &recorder{}
			resp, attempts, err := c.Complete(context.Background(), userRequest("ignored", "hi"), rec.hooks())

			if got := refs(attempts); !slices.Equal(got, tt.wantRefs) {
				t.Errorf("attempts = %v, want %v", got, tt.wantRefs)
			}
			if !slices.Equal(sl.got, tt.wantSleeps) {
				t.Errorf("sleeps = %v, want %v", sl.got, tt.wantSleeps)
			}
			if len(rec.restarts) != tt.restarts {
				t.Errorf("OnRestart called %d times, want %d", len(rec.restarts), tt.restarts)
			}
			for _, m := range append(a.calls(), b.calls()...) {
				if m == "ignored" {
					t.Error("a step was called with the request's model, not its own")
				}
			}
			if tt.wantKind != "" || tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Complete = %+v, want an error", resp)
				}
				if k := providers.KindOf(err); k != tt.wantKind {
					t.Errorf("KindOf = %s, want %s (%v)", k, tt.wantKind, err)
				}
				if tt.wantErr != "" && err.Error() != tt.wantErr {
					t.Errorf("error = %q, want %q", err.Error(), tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Text != tt.wantText {
				t.Errorf("Text = %q, want %q", resp.Text, tt.wantText)
			}
			last := tt.wantRefs[len(tt.wantRefs)-1]
			if got := resp.Provider + "/" + resp.Model; got != last {
				t.Errorf("answered by %s, want %s", got, last)
			}
			if attempts[len(attempts)-1].Err != nil {
				t.Errorf("last attempt has error %v", attempts[len(attempts)-1].Err)
			}
		})
	}
}

func TestChainErrorShape(t *testing.T) {
	c := &providers.Chain{
		Steps: []providers.Step{{Provider: &stubProvider{name: "a", script: []outcome{fail(providers.KindAuth, "bad key")}}, Model: "m"}},
	}
	_, attempts, err := c.Complete(context.Background(), userRequest("", "hi"), providers.Hooks{})
	var ce *providers.ChainError
	if !errors.As(err, &ce) {
		t.Fatalf("error %T %v, want *ChainError", err, err)
	}
	if len(ce.Attempts) != 1 || len(attempts) != 1 {
		t.Errorf("attempts %d / %d, want 1", len(ce.Attempts), len(attempts))
	}
	var pe *providers.Error
	if !errors.As(err, &pe) || pe.Provider != "a" {
		t.Errorf("Unwrap does not reach the last *Error: %v", err)
	}
}

func TestChainNotConfigured(t *testing.T) {
	_, attempts, err := (&providers.Chain{}).Complete(context.Background(), userRequest("m", "hi"), providers.Hooks{})
	pe := asError(t, err)
	want := `no model configured: set agents.defaults.model ("provider/model") and models.providers.<name>`
	if pe.Kind != providers.KindNotConfigured || pe.Message != want {
		t.Errorf("got %s %q, want not_configured %q", pe.Kind, pe.Message, want)
	}
	if len(attempts) != 0 {
		t.Errorf("attempts = %v, want none", attempts)
	}
}

func TestChainCancelStopsRetries(t *testing.T) {
	a := &stubProvider{name: "a", script: []outcome{fail(providers.KindUnavailable, "down"), {text: "never"}}}
	b := &stubProvider{name: "b"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &providers.Chain{
		Steps: []providers.Step{{Provider: a, Model: "m1"}, {Provider: b, Model: "m2"}},
		// The caller gives up while the chain waits to retry.
		Sleep: func(ctx context.Context, _ time.Duration) error { cancel(); return ctx.Err() },
	}
	_, attempts, err := c.Complete(ctx, userRequest("m", "hi"), providers.Hooks{})
	if k := providers.KindOf(err); k != providers.KindCanceled || !errors.Is(err, context.Canceled) {
		t.Errorf("got %s %v, want canceled wrapping context.Canceled", k, err)
	}
	if len(attempts) != 1 || len(a.calls()) != 1 || len(b.calls()) != 0 {
		t.Errorf("attempts %v, calls a=%v b=%v; want one call of a only", refs(attempts), a.calls(), b.calls())
	}
}

func TestChainDefaultBackoff(t *testing.T) {
	var script []outcome
	for range 6 {
		script = append(script, fail(providers.KindUnavailable, "down"))
	}
	a := &stubProvider{name: "a", script: append(script, outcome{text: "up"})}
	sl := &sleeps{}
	c := &providers.Chain{Steps: []providers.Step{{Provider: a, Model: "m"}}, Retries: 6, Sleep: sl.sleep}
	if _, _, err := c.Complete(context.Background(), userRequest("m", "hi"), providers.Hooks{}); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second}
	if !slices.Equal(sl.got, want) {
		t.Errorf("sleeps = %v, want %v", sl.got, want)
	}
}

func TestChainCustomBackoffYieldsToRetryAfter(t *testing.T) {
	a := &stubProvider{name: "a", script: []outcome{
		{err: &providers.Error{Kind: providers.KindRateLimit, RetryAfter: 20 * time.Second}},
		{err: &providers.Error{Kind: providers.KindRateLimit, RetryAfter: time.Millisecond}},
	}}
	sl := &sleeps{}
	c := &providers.Chain{
		Steps:   []providers.Step{{Provider: a, Model: "m"}},
		Backoff: func(int) time.Duration { return time.Second },
		Sleep:   sl.sleep,
	}
	if _, _, err := c.Complete(context.Background(), userRequest("m", "hi"), providers.Hooks{}); err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{20 * time.Second, time.Second}; !slices.Equal(sl.got, want) {
		t.Errorf("sleeps = %v, want %v", sl.got, want)
	}
}

// End to end: a real OpenAI client against a failing fake, falling back to
// a real Anthropic client against a healthy one; the first streamed text
// and then died, so the caller is told to start over.
func TestChainOverFakeServers(t *testing.T) {
	bad, good := fakemodel.New(t), fakemodel.New(t)
	bad.Script(
		fakemodel.Reply{Status: 500},
		fakemodel.Reply{Status: 503, RetryAfter: "1"},
		fakemodel.Reply{Text: "half an answer here", FailMidStream: true},
	)
	good.Script(fakemodel.Reply{Text: "full answer"})
	sl := &sleeps{}
	c := &providers.Chain{
		Steps: []providers.Step{
			{Provider: providers.NewOpenAI(providers.Options{Name: "local", BaseURL: bad.URL() + "/v1"}), Model: "llama"},
			{Provider: providers.NewAnthropic(providers.Options{Name: "anthropic", BaseURL: good.URL()}), Model: "claude"},
		},
		Sleep: sl.sleep,
	}
	rec := &recorder{}
	resp, attempts, err := c.Complete(context.Background(), userRequest("", "hi"), rec.hooks())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "full answer" || resp.Provider != "anthropic" || resp.Model != "claude" {
		t.Errorf("got %q from %s/%s", resp.Text, resp.Provider, resp.Model)
	}
	if want := []string{"local/llama", "local/llama", "local/llama", "anthropic/claude"}; !slices.Equal(refs(attempts), want) {
		t.Errorf("attempts = %v, want %v", refs(attempts), want)
	}
	if len(rec.restarts) != 1 || providers.KindOf(rec.restarts[0]) != providers.KindUnavailable {
		t.Errorf("restarts = %v, want one after the dropped stream", rec.restarts)
	}
	if want := []time.Duration{500 * time.Millisecond, time.Second}; !slices.Equal(sl.got, want) {
		t.Errorf("sleeps = %v, want %v", sl.got, want)
	}
	if got := good.Requests()[0].Model; got != "claude" {
		t.Errorf("fallback asked for model %q, want claude", got)
	}
}

// A step retried with the same failure is reported once with its count,
// and a skipped model once with its reason; a chain of only skipped
// models says why none could be called.
func TestChainReportsEachFailureOnce(t *testing.T) {
	sl := &sleeps{}
	down := fail(providers.KindUnavailable, "connection refused")
	c := &providers.Chain{
		Steps:   []providers.Step{{Provider: &stubProvider{name: "local", script: []outcome{down, down, down}}, Model: "llama"}},
		Skipped: []providers.Skip{{Ref: "openai/gpt-4o", Reason: "no API key: OPENAI_API_KEY is not set"}},
		Sleep:   sl.sleep,
	}
	_, attempts, err := c.Complete(context.Background(), userRequest("", "hi"), providers.Hooks{})
	if len(attempts) != 3 {
		t.Fatalf("attempts = %v, want 3 on the one step tried", refs(attempts))
	}
	want := "local/llama: unavailable: connection refused (3 attempts); openai/gpt-4o: skipped: no API key: OPENAI_API_KEY is not set"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}

	_, attempts, err = (&providers.Chain{Skipped: c.Skipped}).Complete(context.Background(), userRequest("", "hi"), providers.Hooks{})
	pe := asError(t, err)
	if pe.Kind != providers.KindNotConfigured || !strings.Contains(pe.Message, "OPENAI_API_KEY is not set") || len(attempts) != 0 {
		t.Errorf("only skipped models: %s %q, %d attempts", pe.Kind, pe.Message, len(attempts))
	}
}

// TestChainNoTools: a step marked NoTools (compat.supportsTools false) is
// sent no tool definitions, while the other steps of the chain are.
func TestChainNoTools(t *testing.T) {
	a := &stubProvider{name: "a", script: []outcome{fail(providers.KindAuth, "bad key")}}
	b := &stubProvider{name: "b", script: []outcome{{text: "plain answer"}}}
	ch := &providers.Chain{Steps: []providers.Step{{Provider: a, Model: "tools"}, {Provider: b, Model: "textonly", NoTools: true}}}
	req := userRequest("", "hi")
	req.Tools = []providers.Tool{{Name: "read"}, {Name: "write"}}
	resp, _, err := ch.Complete(context.Background(), req, providers.Hooks{})
	if err != nil || resp.Text != "plain answer" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	if !slices.Equal(a.tools, []int{2}) || !slices.Equal(b.tools, []int{0}) {
		t.Errorf("tools offered: a %v b %v; want [2] and [0]", a.tools, b.tools)
	}
}
