// Package protocol holds the OpenClaw gateway wire protocol (version 4): the
// req/res/event frames, the connect handshake types, the hello-ok payload,
// roles and operator scopes, the method and event names this gateway serves,
// and the table of error codes.
//
// It is a leaf: it imports nothing of ours, so the server, the Go client, the
// CLI and the node host all share one definition of the wire.
package protocol
