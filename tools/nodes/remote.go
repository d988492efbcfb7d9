package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/tools"
)

// remoteGateway is another gateway's node registry, reached over its RPC
// methods (node.list, node.describe, node.invoke, node.pair.*) with the
// token the call gave. That gateway's own policy decides what its nodes
// may run.
type remoteGateway struct{ conn tools.GatewayConn }

// Remote is the node registry of the gateway at the other end of conn,
// as a Gateway with the Pairing capability.
func Remote(conn tools.GatewayConn) Gateway { return remoteGateway{conn} }

var (
	_ Gateway = remoteGateway{}
	_ Pairing = remoteGateway{}
)

func (r remoteGateway) List(ctx context.Context) ([]Node, error) {
	var out struct {
		Nodes []Node `json:"nodes"`
	}
	if err := r.conn.Call(ctx, "node.list", map[string]any{}, &out); err != nil {
		return nil, err
	}
	return out.Nodes, nil
}

func (r remoteGateway) Describe(ctx context.Context, nodeID string) (Node, error) {
	var n Node
	err := r.conn.Call(ctx, "node.describe", map[string]any{"nodeId": nodeID}, &n)
	return n, err
}

func (r remoteGateway) Invoke(ctx context.Context, nodeID, command string, params any, timeout time.Duration) (json.RawMessage, error) {
	p := map[string]any{"nodeId": nodeID, "command": command, "idempotencyKey": uuid.NewString()}
	if params != nil {
		p["params"] = params
	}
	if timeout > 0 {
		p["timeoutMs"] = timeout.Milliseconds()
	}
	var out struct {
		Payload     json.RawMessage `json:"payload"`
		PayloadJSON *string         `json:"payloadJSON"`
	}
	if err := r.conn.Call(ctx, "node.invoke", p, &out); err != nil {
		return nil, err
	}
	if len(out.Payload) > 0 && string(out.Payload) != "null" {
		return out.Payload, nil
	}
	if out.PayloadJSON != nil {
		if !json.Valid([]byte(*out.PayloadJSON)) {
			return nil, fmt.Errorf("node.invoke %s: the gateway's payloadJSON is not JSON", command)
		}
		return json.RawMessage(*out.PayloadJSON), nil
	}
	return json.RawMessage("null"), nil
}

func (r remoteGateway) PendingPairings(ctx context.Context) (any, error) {
	var out json.RawMessage
	err := r.conn.Call(ctx, "node.pair.list", map[string]any{}, &out)
	return out, err
}

func (r remoteGateway) ResolvePairing(ctx context.Context, requestID string, approve bool) (any, error) {
	method := "node.pair.reject"
	if approve {
		method = "node.pair.approve"
	}
	var out json.RawMessage
	err := r.conn.Call(ctx, method, map[string]any{"requestId": requestID}, &out)
	return out, err
}

// errRemoteRun is run's answer for another gateway: its commands go
// through that gateway's exec approvals, which a call from here cannot
// take part in.
var errRemoteRun = errors.New("run with gatewayUrl: commands on another gateway's nodes go through that gateway's exec approvals; run them from an agent of that gateway")
