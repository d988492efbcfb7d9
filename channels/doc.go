// Package channels connects chat networks to agents. It owns the adapter
// contract (Adapter and its optional capabilities), the inbound pipeline
// (persist and dedupe, sender gate, DM and group policy, DM pairing,
// bindings routing, session keys), outbound delivery (chunking, retries,
// at-least-once with an idempotency key) and the channel RPCs. Each
// network is a package below this one that implements Adapter; adapters
// never import each other.
package channels
