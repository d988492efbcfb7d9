package agents

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// holdTools offers one tool that waits until the test lets it go.
type holdTools struct {
	entered chan struct{}
	release chan struct{}
}

func (h *holdTools) Tools(ctx context.Context, t *Turn) []providers.Tool {
	return []providers.Tool{{Name: "wait", Description: "Wait.", Parameters: json.RawMessage(`{"type":"object"}`)}}
}

func (h *holdTools) Run(ctx context.Context, t *Turn, call providers.ToolCall) ToolResult {
	close(h.entered)
	<-h.release
	return ToolResult{Text: "waited"}
}

// TestSteerIntoRunningTurn: a message steered into a running turn
// reaches the model at its next call, in order after the tool results,
// and stays in the transcript; once the turn is over nothing can be
// steered into it.
func TestSteerIntoRunningTurn(t *testing.T) {
	tools := &holdTools{entered: make(chan struct{}), release: make(chan struct{})}
	f := newFixture(t, "", tools)
	f.model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "c1", Name: "wait", Arguments: `{}`}}},
		fakemodel.Reply{Text: "done, and noted the colour"},
	)
	if f.svc.Steer("agent:main:main", "nobody runs") {
		t.Fatal("steered into a session with no running turn")
	}
	run, _, err := f.svc.Start(context.Background(), StartRequest{Message: "book a table", RunID: "rs"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-tools.entered:
	case <-time.After(20 * time.Second):
		t.Fatal("tool not called")
	}
	if !f.svc.Steer("agent:main:main", "make it blue") {
		t.Fatal("the running turn refused a steered message")
	}
	close(tools.release)
	<-run.Done()
	if res := run.Result(); res.Status != "ok" || res.Text != "done, and noted the colour" {
		t.Fatalf("result %+v", res)
	}
	reqs := f.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	msgs := reqs[1].Messages
	if last := msgs[len(msgs)-1]; last.Role != "user" || last.Text != "make it blue" || msgs[len(msgs)-2].Role != "tool" {
		t.Fatalf("second call's messages %+v", msgs)
	}
	if f.svc.Steer("agent:main:main", "too late") {
		t.Error("steered into a finished turn")
	}
	sess, err := f.store.Get(context.Background(), "agent:main:main")
	if err != nil {
		t.Fatal(err)
	}
	if sess.MessageCount != 5 { // user, assistant(tool call), tool, steered user, assistant
		t.Errorf("transcript has %d messages, want 5", sess.MessageCount)
	}
}

// TestSteerInboxCloses: the inbox is bounded, and closes only when the
// loop finds it empty at its last step, so a message is taken or refused.
func TestSteerInboxCloses(t *testing.T) {
	var b steerInbox
	if b.push("x") {
		t.Fatal("a closed inbox took a message")
	}
	b.setOpen(true)
	for i := range maxSteered {
		if !b.push("m") {
			t.Fatalf("refused message %d under the bound", i)
		}
	}
	if b.push("over") {
		t.Error("the inbox grew past its bound")
	}
	if got := b.take(true); len(got) != maxSteered {
		t.Errorf("took %d", len(got))
	}
	if !b.push("late") {
		t.Error("an inbox with messages taken at the last step must stay open until found empty")
	}
	if got := b.take(true); len(got) != 1 {
		t.Errorf("took %v", got)
	}
	if got := b.take(true); len(got) != 0 || b.push("after") {
		t.Errorf("took %v; the inbox must close once found empty", got)
	}
}
