package toolhost

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
	"github.com/openclaw-go/openclaw/tools"
)

// announced records the ids of announced approval requests.
type announced chan string

func (a announced) NotifyApproval(e tools.ApprovalEvent) {
	if e.Settled == nil {
		a <- e.Request.ID
	}
}

// TestWaitDecisionWakesOnTheDecision: exec.approval.waitDecision answers
// with the decision as soon as it is made, well inside its timeout, and
// says pending (decision null) when the timeout passes first.
func TestWaitDecisionWakesOnTheDecision(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t, tools.Migrations())
	seen := make(announced, 1)
	ap, err := tools.NewApprovals(ctx, st.DB, seen, nil, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	h := &Host{approvals: ap}
	req := &rpc.Request{Method: "exec.approval.waitDecision"}

	var pe *protocol.Error
	if _, err := h.handleWaitDecision(ctx, req, waitParams{ID: "nope"}); !errors.As(err, &pe) || pe.Code != protocol.CodeApprovalNotFound {
		t.Fatalf("unknown id: %v", err)
	}
	go ap.Approve(ctx, tools.ApprovalRequest{Tool: "exec"})
	id := <-seen
	res, err := h.handleWaitDecision(ctx, req, waitParams{ID: id, TimeoutMs: 1})
	if err != nil || res.Status != "pending" || res.Decision != nil {
		t.Fatalf("timed out wait: %+v %v", res, err)
	}
	done := make(chan approvalStatus, 1)
	go func() {
		// An hour: only the decision can end this wait.
		res, err := h.handleWaitDecision(ctx, req, waitParams{ID: id, TimeoutMs: time.Hour.Milliseconds()})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	if err := ap.Resolve(ctx, id, tools.DecisionDeny); err != nil {
		t.Fatal(err)
	}
	if got := <-done; got.Status != "denied" || got.Decision == nil || *got.Decision != tools.DecisionDeny {
		t.Fatalf("wait after the decision: %+v", got)
	}
}
