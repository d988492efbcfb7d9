// Package client is the Go client of the OpenClaw gateway protocol (v4).
// The CLI, the tests, the benchmarks and the node host all talk to a
// gateway through it.
//
// Usage:
//
//	c, err := client.Dial(ctx, client.Options{
//		URL:    "ws://127.0.0.1:18789",
//		Token:  token,
//		Scopes: []string{string(protocol.ScopeRead)},
//	})
//	if err != nil {
//		// A *protocol.Error means the gateway refused the connect;
//		// branch on its details code (AUTH_TOKEN_MISMATCH, PAIRING_REQUIRED, ...).
//		return err
//	}
//	defer c.Close()
//	var health map[string]any
//	err = c.Call(ctx, "health", nil, &health)
//
// Dial opens the WebSocket, waits for the connect.challenge event, sends the
// connect request (signed with the device key when Options.Identity is set)
// and returns once hello-ok has arrived. The context given to Dial bounds
// the handshake only; the connection lives until Close or until the gateway
// drops it.
//
// Concurrency: a Client is safe for use by many goroutines. Call and
// CallFinal may run concurrently; one reader goroutine matches responses to
// requests by id, and writes are serialized. Events are delivered on a
// bounded channel (Events); when it is full the oldest event is dropped, so
// a slow or absent consumer never stalls responses. After Close returns, the
// client has no goroutines left.
package client
