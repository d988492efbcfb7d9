package gateway

import (
	"context"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/gateway/client"
)

// calls is one scripted model reply making the given tool calls, each
// {id, name, arguments}; they run in the same step of the turn.
func calls(cs ...[3]string) fakemodel.Reply {
	r := fakemodel.Reply{}
	for _, c := range cs {
		r.ToolCalls = append(r.ToolCalls, fakemodel.ToolCall{ID: c[0], Name: c[1], Arguments: c[2]})
	}
	return r
}

// runTurn runs one agent turn to its end and returns what each tool call
// gave the model, by call id, as the turn's last model request carried it.
func runTurn(t *testing.T, c *client.Client, model *fakemodel.Server, message, key string) map[string]string {
	t.Helper()
	var final map[string]any
	if err := c.CallFinal(context.Background(), "agent", map[string]any{"message": message, "idempotencyKey": key}, &final); err != nil {
		t.Fatal(err)
	}
	return lastToolResults(model)
}

// lastToolResults are the tool results of the model's last turn request.
// One-shot calls a tool makes itself (a wiki compile) carry no tools and
// are skipped.
func lastToolResults(model *fakemodel.Server) map[string]string {
	reqs := model.Requests()
	out := map[string]string{}
	for i := len(reqs) - 1; i >= 0; i-- {
		if len(reqs[i].Tools) == 0 {
			continue
		}
		for _, m := range reqs[i].Messages {
			if m.Role == "tool" {
				out[m.ToolCallID] = m.Text
			}
		}
		break
	}
	return out
}

// oneShot is the request a tool made to the model with system prompt
// naming what, or fails.
func oneShot(t *testing.T, model *fakemodel.Server, what string) fakemodel.Recorded {
	t.Helper()
	for _, r := range model.Requests() {
		if len(r.Tools) == 0 && strings.Contains(r.System, what) {
			return r
		}
	}
	t.Fatalf("no model request with a system prompt saying %q", what)
	return fakemodel.Recorded{}
}

// says fails unless s holds every one of subs.
func says(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s: %q does not say %q", what, s, sub)
		}
	}
}
