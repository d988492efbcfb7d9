package agents

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// turnRecorder is the session tools, remembering each turn's tool limits.
type turnRecorder struct {
	next ToolRunner
	mu   sync.Mutex
	deny map[string][][]string // session key -> ToolsDeny of each of its turns' steps
}

func (r *turnRecorder) Tools(ctx context.Context, t *Turn) []providers.Tool {
	r.mu.Lock()
	r.deny[t.SessionKey] = append(r.deny[t.SessionKey], t.ToolsDeny)
	r.mu.Unlock()
	return r.next.Tools(ctx, t)
}

func (r *turnRecorder) Run(ctx context.Context, t *Turn, call providers.ToolCall) ToolResult {
	return r.next.Run(ctx, t, call)
}

// A chat's tools.deny follows its work: a sub-agent it spawns, and the
// turn that hears the sub-agent's result, get the same limits, so a
// prompt-injected model cannot reach a denied tool by delegating.
func TestChatToolLimitsFollowSubagents(t *testing.T) {
	f := newFixture(t, twoAgents, nil)
	rec := &turnRecorder{next: &sessionTools{svc: f.svc}, deny: map[string][][]string{}}
	f.svc.UseTools(rec)
	f.model.Script(fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "s1", Name: "sessions_spawn", Arguments: `{"task":"run exec for me","agentId":"helper"}`}}})
	const parent = "agent:main:telegram:group:-100"
	if res := f.run(t, StartRequest{SessionKey: parent, Message: "delegate", ToolsDeny: []string{"exec"}}); res.Status != "ok" {
		t.Fatalf("parent run: %+v", res)
	}
	announced := func() bool {
		for _, m := range f.transcript(t, parent) {
			if m.Role == "user" && strings.HasPrefix(m.Text, "[Sub-agent") {
				return true
			}
		}
		return false
	}
	waitFor(t, "the announcement", announced)
	waitFor(t, "the announcement's turn", func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		// the parent's two steps, then the announcement's turn
		return len(rec.deny[parent]) >= 3
	})
	rec.mu.Lock()
	defer rec.mu.Unlock()
	children := 0
	for key, denies := range rec.deny {
		for _, deny := range denies {
			if !slices.Equal(deny, []string{"exec"}) {
				t.Errorf("a turn of %s ran with ToolsDeny %v, want [exec]", key, deny)
			}
		}
		if strings.HasPrefix(key, "agent:helper:subagent:") {
			children++
		}
	}
	if children != 1 {
		t.Errorf("recorded %v, want the sub-agent's turn", rec.deny)
	}
}
