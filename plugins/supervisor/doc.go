// Package supervisor keeps the gateway's external tool providers running:
// the processes of plugins/extproc and the sessions of plugins/mcp. It
// starts each one, restarts it with exponential backoff when it fails or
// dies, stops it, and says where it is. How to start a provider, talk to
// it and list its tools stays with the package that knows that kind.
//
// A [Unit] keeps one [Run] going. Run starts the process or session,
// calls ready once it is up, and returns when it ends; the Unit then
// waits out its backoff and runs it again, until it is stopped. A
// provider that fails is state, not an error: [Unit.Status] reports the
// [State], the last failure and the number of restarts, and nothing the
// provider does can end the gateway.
//
// A [Group] runs one Unit per name. [Group.Sync] makes the running set
// match the configured one (new and changed entries start, removed ones
// stop, unchanged ones keep running); [Group.Close] stops them all.
//
// # Concurrency
//
// All methods are safe for concurrent use. Run is called from the Unit's
// own goroutine, never concurrently with itself; it may call
// [Unit.Status] of its own Unit. The start function given to [NewGroup]
// is called with the Group's lock held, so it must not call the Group.
package supervisor
