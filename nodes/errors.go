package nodes

import "github.com/openclaw-go/openclaw/gateway/protocol"

// Detail codes (error.details.code) of node errors. Callers of
// [Registry.Invoke] branch on them with errors.As to *protocol.Error.
const (
	// DetailNotConnected: the node is offline or went away during the
	// invoke. Retry once it reconnects.
	DetailNotConnected = protocol.DetailNotConnected
	// DetailTimeout: the node did not answer in time. The command may
	// still have run on the node.
	DetailTimeout = protocol.DetailTimeout
	// DetailCommandNotAllowed: the node did not declare the command or the
	// policy refuses it. Retrying does not help; change the config.
	DetailCommandNotAllowed = "COMMAND_NOT_ALLOWED"
	// DetailApprovalRequired: system.run goes through exec approvals, not
	// plain node.invoke.
	DetailApprovalRequired = "EXEC_APPROVAL_REQUIRED"
	// DetailUnknownNode: no node with that id has ever connected.
	DetailUnknownNode = "UNKNOWN_NODE"
	// DetailUnknownInvoke: a node.invoke.result for an id nobody waits on
	// (unknown, finished or timed out).
	DetailUnknownInvoke = "UNKNOWN_INVOKE"
	// DetailNodeError: the node answered ok:false; details.nodeError
	// holds its {code, message}.
	DetailNodeError = "NODE_ERROR"
	// DetailUnknownRequest: node.pair.approve/reject of a request id that
	// is unknown, expired or already resolved. List the pending requests
	// again; the node makes a new one when it reconnects.
	DetailUnknownRequest = "UNKNOWN_REQUEST"
)

func errUnknownRequest(requestID string) *protocol.Error {
	return protocol.Errorf(protocol.CodeInvalidRequest, "unknown requestId: %s (unknown, expired or already resolved)", requestID).
		WithDetails(map[string]any{"code": DetailUnknownRequest, "requestId": requestID})
}

func errNotConnected(nodeID, why string) *protocol.Error {
	return protocol.Errorf(protocol.CodeUnavailable, "%s", why).WithDetails(map[string]any{
		"code": DetailNotConnected, "nodeId": nodeID,
	})
}

func errUnknownNode(nodeID string) *protocol.Error {
	return protocol.Errorf(protocol.CodeInvalidRequest, "unknown nodeId: %s", nodeID).WithDetails(map[string]any{
		"code": DetailUnknownNode, "nodeId": nodeID,
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
		"code": DetailCommandNotAllowed, "nodeId": nodeID, "command": command, "reason": reason,
	})
}
