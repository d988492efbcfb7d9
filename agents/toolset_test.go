package agents

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers"
)

// emptyToolSet is a ToolRunner whose policy left the turn no tool.
type emptyToolSet struct{ err error }

func (e emptyToolSet) Tools(context.Context, *Turn) []providers.Tool { return nil }
func (e emptyToolSet) Run(context.Context, *Turn, providers.ToolCall) ToolResult {
	return ToolResult{Text: "no tools", IsError: true}
}
func (e emptyToolSet) CheckTools(context.Context, *Turn) error { return e.err }

// TestNoCallableToolsStopsBeforeTheModel: when the allow lists left the
// agent no tool, the run fails with a reply that says so and names the
// list, and the model is never called (OpenClaw stops such a run too).
func TestNoCallableToolsStopsBeforeTheModel(t *testing.T) {
	why := errors.New("no callable tools remain after applying the explicit tool allow lists (tools.allow: query_db)")
	f := newFixture(t, "", emptyToolSet{err: why})
	res := f.run(t, StartRequest{Message: "look it up", RunID: "r-empty"})
	if res.Status != "error" || !strings.Contains(res.Error, "tools.allow: query_db") || !strings.Contains(res.Error, "the model was not called") {
		t.Fatalf("result = %+v", res)
	}
	if reqs := f.model.Requests(); len(reqs) != 0 {
		t.Fatalf("the model was called %d times", len(reqs))
	}
	if states := f.rec.chatStates("r-empty"); len(states) == 0 || states[len(states)-1] != "error" {
		t.Fatalf("chat states = %v", states)
	}
	// With tools left, the same runner lets the model be called.
	f2 := newFixture(t, "", emptyToolSet{})
	if res := f2.run(t, StartRequest{Message: "hi"}); res.Status != "ok" || len(f2.model.Requests()) != 1 {
		t.Fatalf("result = %+v, model requests %d", res, len(f2.model.Requests()))
	}
}
