package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// Events a node reports through node.event that operators see again.
var rebroadcastEvents = map[string]bool{"exec.finished": true, "exec.denied": true}

// Register adds the node.* methods to the bus. Node-only methods use
// protocol.ScopeNode, so the dispatcher refuses operators with
// "unauthorized role: operator" before a handler runs.
func (r *Registry) Register(srv *rpc.Server) {
	srv.HandleFunc("node.list", r.handleList)
	srv.HandleFunc("node.describe", rpc.Typed(r.handleDescribe))
	srv.HandleFunc("node.rename", rpc.Typed(r.handleRename))
	srv.HandleFunc("node.invoke", rpc.Typed(r.handleInvoke))
	srv.HandleFunc("node.pair.list", r.handlePairList)
	srv.HandleFunc("node.pair.approve", rpc.Typed(r.handlePairApprove))
	srv.HandleFunc("node.pair.reject", rpc.Typed(r.handlePairReject))
	srv.HandleFunc("node.pair.remove", rpc.Typed(r.handlePairRemove))

	node := func(method string, h rpc.Handler) {
		srv.Handle(method, rpc.Route{Scope: protocol.ScopeNode, Handler: h})
	}
	node("node.invoke.result", rpc.Typed(r.handleResult))
	node("node.event", rpc.Typed(r.handleEvent))
	ack := func(ctx context.Context, req *rpc.Request) (any, error) {
		if s := r.sessionOf(req.Conn); s != nil {
			r.seen(ctx, s, req.Method)
		}
		return okResult{OK: true}, nil
	}
	for _, m := range []string{"node.invoke.progress", "node.runnerInventory.update", "node.skills.update", "node.pluginTools.update"} {
		node(m, ack)
	}
	node("skills.bins", func(ctx context.Context, req *rpc.Request) (any, error) {
		return struct {
			Bins []string `json:"bins"`
		}{[]string{}}, nil
	})
}

// okResult is the answer of a node's report that carries nothing back.
type okResult struct {
	OK bool `json:"ok"`
}

// listResult is the node.list answer.
type listResult struct {
	Ts    int64  `json:"ts"`
	Nodes []Node `json:"nodes"`
}

func (r *Registry) handleList(ctx context.Context, req *rpc.Request) (any, error) {
	return &listResult{Ts: r.opts.Now().UnixMilli(), Nodes: r.List(ctx)}, nil
}

type nodeIDParams struct {
	NodeID string `json:"nodeId"`
}

func (p *nodeIDParams) Validate() error {
	if strings.TrimSpace(p.NodeID) == "" {
		return errors.New("nodeId is required")
	}
	return nil
}

func (r *Registry) handleDescribe(ctx context.Context, req *rpc.Request, p nodeIDParams) (any, error) {
	return r.Describe(ctx, p.NodeID)
}

type renameParams struct {
	NodeID      string `json:"nodeId"`
	DisplayName string `json:"displayName"`
}

func (p *renameParams) Validate() error {
	p.DisplayName = strings.TrimSpace(p.DisplayName)
	if strings.TrimSpace(p.NodeID) == "" {
		return errors.New("nodeId is required")
	}
	if p.DisplayName == "" || len(p.DisplayName) > 256 {
		return errors.New("displayName must be 1 to 256 characters")
	}
	return nil
}

// renameResult is the node.rename answer: the name as stored (trimmed).
type renameResult struct {
	NodeID      string `json:"nodeId"`
	DisplayName string `json:"displayName"`
}

func (r *Registry) handleRename(ctx context.Context, req *rpc.Request, p renameParams) (*renameResult, error) {
	name := p.DisplayName
	if err := r.Rename(ctx, p.NodeID, name); err != nil {
		return nil, err
	}
	return &renameResult{NodeID: p.NodeID, DisplayName: name}, nil
}

// pairListResult is the node.pair.list answer.
type pairListResult struct {
	Pending []PairRequest `json:"pending"`
	Paired  []PairedNode  `json:"paired"`
}

func (r *Registry) handlePairList(ctx context.Context, req *rpc.Request) (any, error) {
	pending, err := r.Pending(ctx)
	if err != nil {
		return nil, err
	}
	paired, err := r.Paired(ctx)
	if err != nil {
		return nil, err
	}
	return &pairListResult{Pending: pending, Paired: paired}, nil
}

type requestIDParams struct {
	RequestID string `json:"requestId"`
}

func (p *requestIDParams) Validate() error {
	p.RequestID = strings.TrimSpace(p.RequestID)
	if p.RequestID == "" {
		return errors.New("requestId is required")
	}
	return nil
}

// pairDecision is the node.pair.approve and node.pair.reject answer; an
// approval carries the node as it is now, when it can be read.
type pairDecision struct {
	RequestID string `json:"requestId"`
	NodeID    string `json:"nodeId"`
	Decision  string `json:"decision"` // approved or rejected
	Node      *Node  `json:"node,omitempty"`
}

// handlePairApprove grants a pending request. Beside operator.pairing
// (checked by the dispatcher) it needs operator.write for a request with
// commands and operator.admin when they run programs or reach files.
func (r *Registry) handlePairApprove(ctx context.Context, req *rpc.Request, p requestIDParams) (*pairDecision, error) {
	q, err := r.Request(ctx, p.RequestID)
	if err != nil {
		return nil, err
	}
	if need := approveScope(q); need != protocol.ScopeNone && !req.Conn.Has(need) {
		return nil, protocol.MissingScope(need)
	}
	if q, err = r.Approve(ctx, p.RequestID); err != nil {
		return nil, err
	}
	res := &pairDecision{RequestID: q.RequestID, NodeID: q.NodeID, Decision: "approved"}
	if n, err := r.Describe(ctx, q.NodeID); err == nil {
		res.Node = &n
	}
	return res, nil
}

func (r *Registry) handlePairReject(ctx context.Context, req *rpc.Request, p requestIDParams) (*pairDecision, error) {
	q, err := r.Reject(ctx, p.RequestID)
	if err != nil {
		return nil, err
	}
	return &pairDecision{RequestID: q.RequestID, NodeID: q.NodeID, Decision: "rejected"}, nil
}

// removeResult is the node.pair.remove answer.
type removeResult struct {
	NodeID  string `json:"nodeId"`
	Removed bool   `json:"removed"`
}

func (r *Registry) handlePairRemove(ctx context.Context, req *rpc.Request, p nodeIDParams) (*removeResult, error) {
	if err := r.Forget(ctx, p.NodeID); err != nil {
		return nil, err
	}
	return &removeResult{NodeID: p.NodeID, Removed: true}, nil
}

// InvokeParams are the params of node.invoke.
type InvokeParams struct {
	NodeID         string          `json:"nodeId"`
	Command        string          `json:"command"`
	Params         json.RawMessage `json:"params,omitempty"`
	TimeoutMs      *int64          `json:"timeoutMs,omitempty"`
	IdempotencyKey string          `json:"idempotencyKey"`
	SessionKey     string          `json:"sessionKey,omitempty"`
}

// adminCommands reach files or the browser of the node's machine; they
// need operator.admin over node.invoke.
func adminCommand(command string) bool {
	return strings.HasPrefix(command, "browser.proxy") || command == "fs.listDir" || command == "terminal.upload"
}

// OperatorRefusal says why an operator may not call command through plain
// node.invoke, or nil. system.run and system.run.prepare go through exec
// approvals; system.execApprovals.* through exec.approvals.node.*.
func OperatorRefusal(command string) *protocol.Error {
	switch {
	case command == "system.run" || command == "system.run.prepare":
		return protocol.Errorf(protocol.CodeInvalidRequest, "%s is not invocable through node.invoke; it runs through exec approvals (exec host=node)", command).
			WithDetails(map[string]any{"code": protocol.DetailApprovalRequired, "command": command})
	case strings.HasPrefix(command, "system.execApprovals."):
		return protocol.Errorf(protocol.CodeInvalidRequest, "%s is not invocable through node.invoke; use exec.approvals.node.get/set", command).
			WithDetails(map[string]any{"code": protocol.DetailCommandNotAllowed, "command": command, "reason": "use-exec-approvals-node"})
	case privateCommand(command):
		return errNotAllowed("", command, "private")
	}
	return nil
}

// Validate trims the names and checks what node.invoke requires.
func (p *InvokeParams) Validate() error {
	p.NodeID, p.Command = strings.TrimSpace(p.NodeID), strings.TrimSpace(p.Command)
	switch {
	case p.NodeID == "" || p.Command == "":
		return errors.New("nodeId and command are required")
	case p.TimeoutMs != nil && *p.TimeoutMs < 0:
		return errors.New("timeoutMs must be >= 0")
	}
	return nil
}

// invokeResult is the node.invoke answer: payload is the node's result
// (null when it sent none), payloadJSON the string it sent, if any.
type invokeResult struct {
	OK          bool            `json:"ok"`
	NodeID      string          `json:"nodeId"`
	Command     string          `json:"command"`
	Payload     json.RawMessage `json:"payload"`
	PayloadJSON *string         `json:"payloadJSON"`
}

func (r *Registry) handleInvoke(ctx context.Context, req *rpc.Request, p InvokeParams) (*invokeResult, error) {
	need := protocol.ScopeWrite
	if adminCommand(p.Command) {
		need = protocol.ScopeAdmin
	}
	if !req.Conn.Has(need) {
		return nil, protocol.MissingScope(need)
	}
	if perr := OperatorRefusal(p.Command); perr != nil {
		return nil, perr
	}
	var params any
	if len(p.Params) > 0 {
		params = p.Params
	}
	var timeout time.Duration
	if p.TimeoutMs != nil {
		timeout = time.Duration(*p.TimeoutMs) * time.Millisecond
	}
	res, err := r.Do(ctx, InvokeRequest{NodeID: p.NodeID, Command: p.Command, Params: params, Timeout: timeout, IdempotencyKey: p.IdempotencyKey})
	if err != nil {
		return nil, err
	}
	return &invokeResult{OK: true, NodeID: res.NodeID, Command: res.Command, Payload: res.Payload, PayloadJSON: res.PayloadJSON}, nil
}

func (r *Registry) handleResult(ctx context.Context, req *rpc.Request, p ResultParams) (okResult, error) {
	if err := r.HandleResult(req.Conn, p); err != nil {
		return okResult{}, err
	}
	return okResult{OK: true}, nil
}

type eventParams struct {
	Event       string          `json:"event"`
	Payload     json.RawMessage `json:"payload,omitempty"`
	PayloadJSON *string         `json:"payloadJSON,omitempty"`
}

func (p *eventParams) Validate() error {
	if p.Event == "" {
		return errors.New("event is required")
	}
	if p.PayloadJSON != nil && !json.Valid([]byte(*p.PayloadJSON)) {
		return errors.New("payloadJSON is not JSON")
	}
	return nil
}

// eventResult is the node.event answer: whether the gateway acts on the
// event, and why not when it does not.
type eventResult struct {
	OK      bool   `json:"ok"`
	Event   string `json:"event"`
	Handled bool   `json:"handled"`
	Reason  string `json:"reason,omitempty"`
}

func (r *Registry) handleEvent(ctx context.Context, req *rpc.Request, p eventParams) (*eventResult, error) {
	payload := p.Payload
	if p.PayloadJSON != nil {
		payload = json.RawMessage(*p.PayloadJSON)
	}
	s := r.sessionOf(req.Conn)
	if s == nil {
		return &eventResult{OK: true, Event: p.Event, Handled: false, Reason: "node not registered"}, nil
	}
	r.seen(ctx, s, p.Event)
	handled := true
	switch {
	case p.Event == "node.host.stats":
		if len(payload) > 0 && len(payload) <= 64<<10 {
			r.mu.Lock()
			s.hostStats = append(json.RawMessage(nil), payload...)
			r.mu.Unlock()
		}
	case rebroadcastEvents[p.Event]:
		out := map[string]any{}
		if len(payload) > 0 {
			json.Unmarshal(payload, &out)
		}
		out["nodeId"] = s.rec.NodeID
		if r.opts.Notify != nil {
			r.opts.Notify.Broadcast(p.Event, out)
		}
	case strings.HasPrefix(p.Event, "node.presence."):
		// last-seen is all these carry for us
	default:
		handled = false
	}
	res := &eventResult{OK: true, Event: p.Event, Handled: handled}
	if !handled {
		res.Reason = "unsupported event"
	}
	return res, nil
}
