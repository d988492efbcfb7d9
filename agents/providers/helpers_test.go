package providers_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// wire names one of the two protocols under test, so table tests can run
// every case against both.
type wire struct {
	name string
	make func(srv *fakemodel.Server, o providers.Options) providers.Provider
}

var wires = []wire{
	{"openai", func(srv *fakemodel.Server, o providers.Options) providers.Provider {
		o.BaseURL = srv.URL() + "/v1"
		return providers.NewOpenAI(o)
	}},
	{"anthropic", func(srv *fakemodel.Server, o providers.Options) providers.Provider {
		o.BaseURL = srv.URL()
		return providers.NewAnthropic(o)
	}},
}

// recorder collects what a completion streams.
type recorder struct {
	deltas   []string
	restarts []error
}

func (r *recorder) hooks() providers.Hooks {
	return providers.Hooks{
		OnDelta:   func(s string) { r.deltas = append(r.deltas, s) },
		OnRestart: func(err error) { r.restarts = append(r.restarts, err) },
	}
}

func userRequest(model, text string) providers.Request {
	return providers.Request{Model: model, Messages: []providers.Message{{Role: providers.RoleUser, Text: text}}}
}

// asError returns err as a *providers.Error or fails the test.
func asError(t *testing.T, err error) *providers.Error {
	t.Helper()
	var pe *providers.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *providers.Error", err, err)
	}
	return pe
}

// sameJSON reports whether two JSON documents are equal as values.
func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("bad JSON %q: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("bad JSON %q: %v", b, err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// toolTranscript is a conversation with a tool round trip: two parallel
// calls, their results (one an error), then a user follow-up.
func toolTranscript(model string) providers.Request {
	return providers.Request{
		Model:  model,
		System: "you are terse",
		Messages: []providers.Message{
			{Role: providers.RoleUser, Text: "weather in Paris and Oslo?"},
			{Role: providers.RoleAssistant, Text: "checking", ToolCalls: []providers.ToolCall{
				{ID: "call_a", Name: "weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
				{ID: "call_b", Name: "weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)},
			}},
			{Role: providers.RoleTool, ToolCallID: "call_a", ToolName: "weather", Text: "sunny"},
			{Role: providers.RoleTool, ToolCallID: "call_b", ToolName: "weather", Text: "no such city", IsError: true},
			{Role: providers.RoleUser, Text: "thanks"},
		},
		Tools: []providers.Tool{{
			Name:        "weather",
			Description: "current weather",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`),
		}},
	}
}

func completeOK(t *testing.T, p providers.Provider, req providers.Request, rec *recorder) *providers.Response {
	t.Helper()
	resp, err := p.Complete(context.Background(), req, rec.hooks())
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if got := strings.Join(rec.deltas, ""); got != resp.Text {
		t.Errorf("deltas join to %q, Text is %q", got, resp.Text)
	}
	return resp
}
