package nodes

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// InvokeRequest is one command to run on a node.
type InvokeRequest struct {
	NodeID  string
	Command string
	// Params are marshalled to paramsJSON; a json.RawMessage is sent as
	// is. Nil sends no params.
	Params any
	// Timeout bounds the wait for the node's answer; zero means the
	// registry's default (30 s).
	Timeout time.Duration
	// IdempotencyKey joins a repeat to the invoke still in flight with the
	// same key on the same node; optional.
	IdempotencyKey string
}

// InvokeResult is a node's successful answer.
type InvokeResult struct {
	NodeID  string
	Command string
	// Payload is the node's result as JSON (null when it sent none).
	Payload json.RawMessage
	// PayloadJSON is the string the node sent, when it sent one.
	PayloadJSON *string
}

// invocation is an invoke waiting for its node.
type invocation struct {
	id      string
	nodeID  string
	command string
	key     string // inflight key, or ""
	waiters int    // callers waiting; guarded by Registry.mu
	s       *session
	done    chan struct{}
	res     *InvokeResult
	err     error
}

// Invoke runs command on a node and returns its payload. It applies the
// command policy but not the operator-facing refusals of node.invoke
// (system.run goes through here from the exec approval path). Errors are
// *protocol.Error with a details code: NOT_CONNECTED, TIMEOUT,
// COMMAND_NOT_ALLOWED or NODE_ERROR.
func (r *Registry) Invoke(ctx context.Context, nodeID, command string, params any, timeout time.Duration) (json.RawMessage, error) {
	res, err := r.Do(ctx, InvokeRequest{NodeID: nodeID, Command: command, Params: params, Timeout: timeout})
	if err != nil {
		return nil, err
	}
	return res.Payload, nil
}

// Do is Invoke with every option.
func (r *Registry) Do(ctx context.Context, req InvokeRequest) (*InvokeResult, error) {
	var paramsJSON *string
	if req.Params != nil {
		var b []byte
		if raw, ok := req.Params.(json.RawMessage); ok {
			if !json.Valid(raw) {
				return nil, protocol.Errorf(protocol.CodeInvalidRequest, "invoke %s: params are not valid JSON", req.Command)
			}
			b = raw
		} else {
			var err error
			if b, err = json.Marshal(req.Params); err != nil {
				return nil, protocol.Errorf(protocol.CodeInvalidRequest, "invoke %s: encode params: %v", req.Command, err)
			}
		}
		if string(b) != "null" {
			s := string(b)
			paramsJSON = &s
		}
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = r.opts.DefaultTimeout
	}

	r.mu.Lock()
	s := r.live[req.NodeID]
	if s == nil {
		r.mu.Unlock()
		return nil, errNotConnected(req.NodeID, "node not connected")
	}
	if d := r.opts.Policy().Decide(s.rec.Platform, req.Command, s.rec.Commands); !d.Allowed {
		r.mu.Unlock()
		return nil, errNotAllowed(req.NodeID, req.Command, d.Reason)
	}
	if !slices.Contains(s.rec.Approved.Commands, req.Command) {
		r.mu.Unlock()
		return nil, errNotAllowed(req.NodeID, req.Command, "not-approved")
	}
	inv := r.inflight[req.NodeID+"\x00"+req.IdempotencyKey]
	if req.IdempotencyKey == "" || inv == nil || inv.command != req.Command {
		inv = &invocation{id: uuid.NewString(), nodeID: req.NodeID, command: req.Command, s: s, done: make(chan struct{})}
		r.pending[inv.id] = inv
		if req.IdempotencyKey != "" {
			inv.key = req.NodeID + "\x00" + req.IdempotencyKey
			r.inflight[inv.key] = inv
		}
		ev := map[string]any{"id": inv.id, "nodeId": req.NodeID, "command": req.Command, "timeoutMs": timeout.Milliseconds()}
		if paramsJSON != nil {
			ev["paramsJSON"] = *paramsJSON
		}
		if req.IdempotencyKey != "" {
			ev["idempotencyKey"] = req.IdempotencyKey
		}
		// Sent under the lock so a result cannot overtake the registration.
		s.conn.SendEvent(EventInvokeRequest, ev)
	}
	inv.waiters++
	r.mu.Unlock()

	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-inv.done:
		return inv.res, inv.err
	case <-t.C:
		r.finish(inv, nil, protocol.Errorf(protocol.CodeUnavailable, "node invoke timed out after %v: %s on %s", timeout, req.Command, req.NodeID).
			WithDetails(map[string]any{"code": protocol.DetailTimeout, "nodeId": req.NodeID, "command": req.Command, "timeoutMs": timeout.Milliseconds()}))
	case <-ctx.Done():
		// The invoke is dropped when no other caller joined it by key.
		err := fmt.Errorf("invoke %s on %s: %w", req.Command, req.NodeID, ctx.Err())
		r.mu.Lock()
		inv.waiters--
		last := inv.waiters == 0
		r.mu.Unlock()
		if last {
			r.finish(inv, nil, err)
		}
		return nil, err
	}
	<-inv.done
	return inv.res, inv.err
}

// finish completes an invocation once; later calls do nothing.
func (r *Registry) finish(inv *invocation, res *InvokeResult, err error) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending[inv.id] != inv {
		return false
	}
	delete(r.pending, inv.id)
	if inv.key != "" && r.inflight[inv.key] == inv {
		delete(r.inflight, inv.key)
	}
	inv.res, inv.err = res, err
	close(inv.done)
	return true
}

// failPending fails every invoke waiting on a session that went away.
func (r *Registry) failPending(s *session, why string) {
	r.mu.Lock()
	var gone []*invocation
	for _, inv := range r.pending {
		if inv.s == s {
			gone = append(gone, inv)
		}
	}
	r.mu.Unlock()
	for _, inv := range gone {
		r.finish(inv, nil, errNotConnected(inv.nodeID, why))
	}
}

// ResultParams are the params of node.invoke.result.
type ResultParams struct {
	ID          string          `json:"id"`
	NodeID      string          `json:"nodeId"`
	OK          bool            `json:"ok"`
	Payload     json.RawMessage `json:"payload,omitempty"`
	PayloadJSON *string         `json:"payloadJSON,omitempty"`
	Error       *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// HandleResult delivers a node's node.invoke.result sent on conn. A result
// for an unknown id, or from a connection other than the one the request
// went to, is refused.
func (r *Registry) HandleResult(conn Conn, p ResultParams) error {
	if p.ID == "" || p.NodeID == "" {
		return protocol.Errorf(protocol.CodeInvalidRequest, "invalid node.invoke.result params: id and nodeId are required")
	}
	r.mu.Lock()
	inv := r.pending[p.ID]
	r.mu.Unlock()
	if inv == nil {
		return protocol.Errorf(protocol.CodeInvalidRequest, "unknown invoke id: %s", p.ID).
			WithDetails(map[string]any{"code": protocol.DetailUnknownInvoke, "id": p.ID})
	}
	if inv.s.conn != conn || inv.nodeID != p.NodeID {
		return protocol.Errorf(protocol.CodeForbidden, "invoke %s was not sent to this node", p.ID)
	}
	if !p.OK {
		code, msg := "", "node invoke failed"
		if p.Error != nil {
			code = p.Error.Code
			if p.Error.Message != "" {
				msg = p.Error.Message
			}
		}
		top := protocol.CodeUnavailable
		if code == protocol.CodeInvalidRequest {
			top = protocol.CodeInvalidRequest
		}
		r.finish(inv, nil, protocol.Errorf(top, "%s", msg).WithDetails(map[string]any{
			"code": protocol.DetailNodeError, "nodeId": inv.nodeID, "command": inv.command,
			"nodeError": map[string]string{"code": code, "message": msg},
		}))
		return nil
	}
	res := &InvokeResult{NodeID: inv.nodeID, Command: inv.command, Payload: json.RawMessage("null")}
	switch {
	case p.PayloadJSON != nil:
		res.PayloadJSON = p.PayloadJSON
		if json.Valid([]byte(*p.PayloadJSON)) {
			res.Payload = json.RawMessage(*p.PayloadJSON)
		} else {
			b, _ := json.Marshal(*p.PayloadJSON)
			res.Payload = b
		}
	case len(p.Payload) > 0:
		res.Payload = p.Payload
	}
	r.finish(inv, res, nil)
	return nil
}
