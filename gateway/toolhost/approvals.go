package toolhost

import (
	"context"
	"errors"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/execapprovals"
)

// resolveParams name a pending request (its id or the short id a notice
// shows) and the decision.
type resolveParams struct {
	ID       string `json:"id"`
	Decision string `json:"decision"`
}

// resolveResult is what a resolve answers; Decision is absent when the
// request was no longer pending (plugin.approval.resolve's ok:false).
type resolveResult struct {
	OK       bool   `json:"ok"`
	ID       string `json:"id"`
	Decision string `json:"decision,omitempty"`
}

// approvalParams name one request.
type approvalParams struct {
	ID string `json:"id"`
}

// waitParams name a request and how long to wait for its decision.
type waitParams struct {
	ID        string `json:"id"`
	TimeoutMs int64  `json:"timeoutMs"`
}

// approvalStatus is how a request stands; Decision is null while none
// was made.
type approvalStatus struct {
	ID       string  `json:"id"`
	Status   string  `json:"status"`
	Decision *string `json:"decision"`
}

// approvalList is exec.approval.list's answer.
type approvalList struct {
	Approvals []tools.Pending `json:"approvals"`
}

// defaultWait is how long exec.approval.waitDecision waits without a
// timeoutMs.
const defaultWait = 30 * time.Second

// registerApprovals serves the approval methods: resolve in the exec,
// generic and plugin shapes, the lists, approval.get and
// exec.approval.waitDecision.
func (h *Host) registerApprovals(srv *rpc.Server) {
	resolve := rpc.Typed(h.handleResolve)
	srv.HandleFunc("exec.approval.resolve", resolve)
	srv.HandleFunc("approval.resolve", resolve)
	// The same requests in the plugin approval shape, which OpenClaw's
	// terminal UI lists and answers with its Allow/Deny prompt.
	srv.HandleFunc("plugin.approval.resolve", resolve)
	srv.HandleFunc("plugin.approval.list", rpc.Typed(func(ctx context.Context, req *rpc.Request, _ rpc.Empty) ([]any, error) {
		list, err := h.approvals.List(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]any, 0, len(list))
		for _, p := range list {
			out = append(out, p.PluginApproval())
		}
		return out, nil
	}))
	srv.HandleFunc("exec.approval.list", rpc.Typed(func(ctx context.Context, req *rpc.Request, _ rpc.Empty) (approvalList, error) {
		list, err := h.approvals.List(ctx)
		return approvalList{Approvals: list}, err
	}))
	srv.HandleFunc("exec.approval.waitDecision", rpc.Typed(h.handleWaitDecision))
	srv.Handle("approval.get", rpc.Route{Scope: protocol.ScopeApprovals, Handler: rpc.Typed(
		func(ctx context.Context, req *rpc.Request, p approvalParams) (approvalStatus, error) {
			st, decision, err := h.approvals.Status(ctx, p.ID)
			return statusOf(p.ID, st, decision, err)
		})})
}

func (h *Host) handleResolve(ctx context.Context, req *rpc.Request, p resolveParams) (resolveResult, error) {
	// The short id a notice shows (/approve) names the request too.
	id, err := h.approvals.Match(ctx, p.ID)
	if err == nil {
		p.ID = id
		err = h.approvals.Resolve(ctx, p.ID, p.Decision)
	}
	if err != nil {
		if errors.Is(err, tools.ErrUnknownApproval) {
			if req.Method == "plugin.approval.resolve" {
				// OpenClaw's clients read ok:false as "no longer
				// pending" and drop the prompt.
				return resolveResult{OK: false, ID: p.ID}, nil
			}
			return resolveResult{}, protocol.Errorf(protocol.CodeApprovalNotFound, "no pending approval %q", p.ID)
		}
		return resolveResult{}, protocol.InvalidParams(req.Method, err)
	}
	return resolveResult{OK: true, ID: p.ID, Decision: p.Decision}, nil
}

// handleWaitDecision answers once the request is decided, or as it
// stands (pending, decision null) when timeoutMs (default 30 s) passes.
// It wakes on the decision; nothing polls.
func (h *Host) handleWaitDecision(ctx context.Context, req *rpc.Request, p waitParams) (approvalStatus, error) {
	wait := defaultWait
	if p.TimeoutMs > 0 {
		wait = time.Duration(p.TimeoutMs) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	st, decision, err := h.approvals.Wait(ctx, p.ID)
	return statusOf(p.ID, st, decision, err)
}

// statusOf is a request's status on the wire; an unknown id is
// APPROVAL_NOT_FOUND.
func statusOf(id, status, decision string, err error) (approvalStatus, error) {
	if errors.Is(err, tools.ErrUnknownApproval) {
		return approvalStatus{}, protocol.Errorf(protocol.CodeApprovalNotFound, "no approval %q", id)
	}
	if err != nil {
		return approvalStatus{}, err
	}
	out := approvalStatus{ID: id, Status: status}
	if decision != "" {
		out.Decision = &decision
	}
	return out, nil
}

// execApprovalsSetParams replace the exec approvals file if it is still
// the one read (baseHash).
type execApprovalsSetParams struct {
	File     *execapprovals.File `json:"file"`
	BaseHash string              `json:"baseHash"`
}

// Validate implements rpc.Validator.
func (p execApprovalsSetParams) Validate() error {
	if p.File == nil {
		return errors.New("file is required")
	}
	return nil
}

// registerExecApprovals serves exec.approvals.get|set over the exec
// approvals file in the state folder, the same file exec's policy reads.
func (h *Host) registerExecApprovals(srv *rpc.Server) {
	srv.HandleFunc("exec.approvals.get", rpc.Typed(func(ctx context.Context, req *rpc.Request, _ rpc.Empty) (execapprovals.Snapshot, error) {
		return h.execFile.Get()
	}))
	srv.HandleFunc("exec.approvals.set", rpc.Typed(func(ctx context.Context, req *rpc.Request, p execApprovalsSetParams) (execapprovals.Snapshot, error) {
		snap, err := h.execFile.Set(*p.File, p.BaseHash)
		if errors.Is(err, execapprovals.ErrStale) {
			return snap, protocol.Errorf(protocol.CodeInvalidRequest, "%v", err).WithDetails(map[string]any{"code": protocol.DetailBaseHashMismatch, "hash": snap.Hash})
		}
		if err != nil {
			return snap, protocol.InvalidParams(req.Method, err)
		}
		return snap, nil
	}))
}
