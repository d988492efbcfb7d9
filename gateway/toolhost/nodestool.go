package toolhost

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/openclaw-go/openclaw/nodes"
	"github.com/openclaw-go/openclaw/tools"
	nodestool "github.com/openclaw-go/openclaw/tools/nodes"
	"github.com/openclaw-go/openclaw/tools/shell"
)

// nodesTool builds the agents' nodes tool over the node registry.
func (h *Host) nodesTool(workspace func(tools.Who) (string, error), exec shell.Config) tools.Tool {
	return nodestool.Tool(nodeGateway{nodes: h.opts.Nodes, exec: exec}, workspace, nil)
}

// nodeGateway gives the nodes tool the node registry. The registry is
// read at call time: it is built after the tools. exec is exec's own
// configuration, so run takes exec host=node's path.
type nodeGateway struct {
	nodes func() *nodes.Registry
	exec  shell.Config
}

var (
	_ nodestool.Gateway       = nodeGateway{}
	_ nodestool.Pairing       = nodeGateway{}
	_ nodestool.CommandRunner = nodeGateway{}
	_ tools.GatewayDialer     = nodeGateway{}
)

// DialGateway lets the tool act on another gateway's nodes (gatewayUrl).
func (nodeGateway) DialGateway(ctx context.Context, url, token string) (tools.GatewayConn, error) {
	return gatewayDialer{}.DialGateway(ctx, url, token)
}

func (g nodeGateway) RunOnNode(ctx context.Context, c tools.Call, cmd nodestool.Command) (tools.Result, error) {
	return g.exec.RunArgvOnNode(ctx, c, shell.NodeArgv{Node: cmd.Node, Argv: cmd.Argv, Cwd: cmd.Cwd, Env: cmd.Env,
		CommandTimeout: cmd.CommandTimeout, InvokeTimeout: cmd.InvokeTimeout, NeedsScreenRecording: cmd.NeedsScreenRecording})
}

var errNodesOff = errors.New("the node registry is not running")

func (g nodeGateway) List(ctx context.Context) ([]nodestool.Node, error) {
	reg := g.nodes()
	if reg == nil {
		return nil, errNodesOff
	}
	list := reg.List(ctx)
	out := make([]nodestool.Node, len(list))
	for i, n := range list {
		out[i] = toolNode(n)
	}
	return out, nil
}

func (g nodeGateway) Describe(ctx context.Context, nodeID string) (nodestool.Node, error) {
	reg := g.nodes()
	if reg == nil {
		return nodestool.Node{}, errNodesOff
	}
	n, err := reg.Describe(ctx, nodeID)
	if err != nil {
		return nodestool.Node{}, err
	}
	return toolNode(n), nil
}

// Invoke goes through the same refusals as an operator's node.invoke
// (system.run only through exec approvals), then the registry's policy.
func (g nodeGateway) Invoke(ctx context.Context, nodeID, command string, params any, timeout time.Duration) (json.RawMessage, error) {
	reg := g.nodes()
	if reg == nil {
		return nil, errNodesOff
	}
	if perr := nodes.OperatorRefusal(command); perr != nil {
		return nil, perr
	}
	return reg.Invoke(ctx, nodeID, command, params, timeout)
}

// PendingPairings answers as node.pair.list does.
func (g nodeGateway) PendingPairings(ctx context.Context) (any, error) {
	return g.nodes().PendingPairings(ctx)
}

// ResolvePairing answers as node.pair.approve|reject do.
func (g nodeGateway) ResolvePairing(ctx context.Context, requestID string, approve bool) (any, error) {
	return g.nodes().ResolvePairing(ctx, requestID, approve)
}

func toolNode(n nodes.Node) nodestool.Node {
	return nodestool.Node{
		NodeID: n.NodeID, DisplayName: n.DisplayName, Platform: n.Platform, Version: n.Version,
		DeviceFamily: n.DeviceFamily, ModelIdentifier: n.ModelIdentifier, RemoteIP: n.RemoteIP,
		Caps: n.Caps, Commands: n.Commands, DeclaredCommands: n.DeclaredCommands,
		Paired: n.Paired, Connected: n.Connected, ConnectedAtMs: n.ConnectedAtMs,
		LastSeenAtMs: n.LastSeenAtMs, LastSeenReason: n.LastSeenReason,
	}
}
