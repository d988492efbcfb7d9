// Package nodes is the gateway side of node hosts: the registry of
// connected nodes, the command policy that decides what may be invoked on
// them, the invoke round trip and the node.* methods of the bus.
//
// A node is a connection with role "node" (the real `openclaw node run`,
// the macOS app, a phone). It is keyed by its device id, or by its client
// id when it connected without a device identity. On connect the gateway
// records what the node declared (display name, platform, version, caps,
// commands, PATH) and remembers it in the database; on disconnect the live
// entry goes and the remembered one keeps its last-seen time.
//
// Invoke round trip:
//
//	operator ─ node.invoke {nodeId, command, params, timeoutMs, idempotencyKey}
//	gateway  ─ event node.invoke.request {id, nodeId, command, paramsJSON, timeoutMs, idempotencyKey} → that node only
//	node     ─ node.invoke.result {id, nodeId, ok, payload|payloadJSON, error}
//	gateway  ─ answers node.invoke {ok:true, nodeId, command, payload, payloadJSON}
//
// Command approval (the second pairing layer, after device pairing in
// gateway/devices): each node has an approved surface (commands, caps,
// granted permissions) in the nodes table. A node that connects declaring
// more gets one pending [PairRequest] (event node.pair.requested; a retry
// with the same surface keeps its id, a different surface supersedes it)
// unless the [PairingPolicy] approves it at once (a loopback node with
// gateway.nodes.pairing.autoApproveLocal, or an autoApproveCidrs range);
// nothing is broadcast then. Until an operator approves (node.pair.approve,
// which stores the surface and applies it to the live connection at once)
// only the previously approved commands stay invocable; a first-time node
// has none. node.pair.reject keeps the surface as it was; both broadcast
// node.pair.resolved. Requests expire [PendingTTL] after the node's last
// retry; they are dropped when read.
//
// A command is invocable only when the node declared it, it is within the
// approved surface and the [Policy] allows it: the platform's default list plus gateway.nodes.commands.allow,
// minus gateway.nodes.commands.deny (deny always wins). Dangerous commands
// (camera.snap, screen.record, sms.send, ...) are never in a default list
// and need to be named exactly in allow. system.run and system.run.prepare
// are refused over the plain node.invoke method: they go through exec
// approvals, which call [Registry.Invoke] directly.
//
// Concurrency: a Registry is safe for concurrent use. Connect and
// Disconnect are called from the bus's connection hooks; Invoke may be
// called by any number of goroutines and blocks until the node answers,
// the timeout passes, the node disconnects or ctx ends.
package nodes
