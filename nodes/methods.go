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
		return map[string]any{"ok": true}, nil
	}
	for _, m := range []string{"node.invoke.progress", "node.runnerInventory.update", "node.skills.update", "node.pluginTools.update"} {
		node(m, ack)
	}
	node("skills.bins", func(ctx context.Context, req *rpc.Request) (any, error) {
		return map[string]any{"bins": []string{}}, nil
	})
}

func (r *Registry) handleList(ctx context.Context, req *rpc.Request) (any, error) {
	return map[string]any{"ts": r.opts.Now().UnixMilli(), "nodes": r.List(ctx)}, nil
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

func (r *Registry) handleRename(ctx context.Context, req *rpc.Request, p renameParams) (any, error) {
	name := p.DisplayName
	if err := r.Rename(ctx, p.NodeID, name); err != nil {
		return nil, err
	}
	return map[string]any{"nodeId": p.NodeID, "displayName": name}, nil
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
	return map[string]any{"pending": pending, "paired": paired}, nil
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

// handlePairApprove grants a pending request. Beside operator.pairing
// (checked by the dispatcher) it needs operator.write for a request with
// commands and operator.admin when they run programs or reach files.
func (r *Registry) handlePairApprove(ctx context.Context, req *rpc.Request, p requestIDParams) (any, error) {
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
	res := map[string]any{"requestId": q.RequestID, "nodeId": q.NodeID, "decision": "approved"}
	if n, err := r.Describe(ctx, q.NodeID); err == nil {
		res["node"] = n
	}
	return res, nil
}

func (r *Registry) handlePairReject(ctx context.Context, req *rpc.Request, p requestIDParams) (any, error) {
	q, err := r.Reject(ctx, p.RequestID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"requestId": q.RequestID, "nodeId": q.NodeID, "decision": "rejected"}, nil
}

func (r *Registry) handlePairRemove(ctx context.Context, req *rpc.Request, p nodeIDParams) (any, error) {
	if err := r.Forget(ctx, p.NodeID); err != nil {
		return nil, err
	}
	return map[string]any{"nodeId": p.NodeID, "removed": true}, nil
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
			WithDetails(map[string]any{"code": DetailApprovalRequired, "command": command})
	case strings.HasPrefix(command, "system.execApprovals."):
		return protocol.Errorf(protocol.CodeInvalidRequest, "%s is not invocable through node.invoke; use exec.approvals.node.get/set", command).
			WithDetails(map[string]any{"code": DetailCommandNotAllowed, "command": command, "reason": "use-exec-approvals-node"})
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

func (r *Registry) handleInvoke(ctx context.Context, req *rpc.Request, p InvokeParams) (any, error) {
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
	return map[string]any{"ok": true, "nodeId": res.NodeID, "command": res.Command, "payload": res.Payload, "payloadJSON": res.PayloadJSON}, nil
}

func (r *Registry) handleResult(ctx context.Context, req *rpc.Request, p ResultParams) (any, error) {
	if err := r.HandleResult(req.Conn, p); err != nil {
		return nil, err
	}
	return map[string]any{"ok": true}, nil
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

func (r *Registry) handleEvent(ctx context.Context, req *rpc.Request, p eventParams) (any, error) {
	payload := p.Payload
	if p.PayloadJSON != nil {
		payload = json.RawMessage(*p.PayloadJSON)
	}
	s := r.sessionOf(req.Conn)
	if s == nil {
		return map[string]any{"ok": true, "event": p.Event, "handled": false, "reason": "node not registered"}, nil
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
	res := map[string]any{"ok": true, "event": p.Event, "handled": handled}
	if !handled {
		res["reason"] = "unsupported event"
	}
	return res, nil
}
