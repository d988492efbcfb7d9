package nodes

import "github.com/openclaw-go/openclaw/gateway/protocol"

// The detail codes (error.details.code) of node errors are in
// gateway/protocol's table; callers of [Registry.Invoke] branch on them
// with errors.As to *protocol.Error.

func errUnknownRequest(requestID string) *protocol.Error {
	return protocol.Errorf(protocol.CodeInvalidRequest, "unknown requestId: %s (unknown, expired or already resolved)", requestID).
		WithDetails(map[string]any{"code": protocol.DetailUnknownRequest, "requestId": requestID})
}

func errNotConnected(nodeID, why string) *protocol.Error {
	return protocol.Errorf(protocol.CodeUnavailable, "%s", why).WithDetails(map[string]any{
		"code": protocol.DetailNotConnected, "nodeId": nodeID,
	})
}

func errUnknownNode(nodeID string) *protocol.Error {
	return protocol.Errorf(protocol.CodeInvalidRequest, "unknown nodeId: %s", nodeID).WithDetails(map[string]any{
		"code": protocol.DetailUnknownNode, "nodeId": nodeID,
	})
}

func errNotAllowed(nodeID, command, reason string) *protocol.Error {
	msg := "node command not allowed: " + command
	switch reason {
	case "not-declared":
		msg = "node did not declare command: " + command
	case "dangerous":
		msg += " (dangerous; name it in gateway.nodes.commands.allow)"
	case "denied":
		msg += " (gateway.nodes.commands.deny)"
	case "not-allowlisted":
		msg += " (not in the platform defaults or gateway.nodes.commands.allow)"
	case "not-approved":
		msg = "node command not approved yet: " + command + " (approve the node's pending request with node.pair.approve)"
	}
	return protocol.Errorf(protocol.CodeInvalidRequest, "%s", msg).WithDetails(map[string]any{
		"code": protocol.DetailCommandNotAllowed, "nodeId": nodeID, "command": command, "reason": reason,
	})
}
