// Package rpc is the gateway's WebSocket RPC bus: it upgrades HTTP
// connections (after the Origin gate and the pre-auth budget), runs the
// connect handshake (challenge, protocol range, shared-secret and device
// auth, pairing through the Pairing interface), and then dispatches
// requests to the handlers each part of the gateway registers, checking
// role and scope, replaying idempotent results, and supporting two-stage
// "accepted" answers.
//
// Concurrency: every connection has one reader goroutine and one writer
// goroutine. Requests run in their own goroutines, at most MaxInFlight per
// connection. Outgoing frames go through a per-connection queue whose size
// is capped at protocol.MaxBufferedBytes; a client that lets it fill is
// closed with 1008 "slow consumer", so a broadcast never blocks on one slow
// reader. Handlers may block; they get a context that ends when the
// connection closes or the server stops.
package rpc
