// Package mcp connects the gateway to Model Context Protocol servers and
// exposes the gateway's own tools as one.
//
// As a client, a [Manager] keeps one session per configured server (a
// child process over stdio, or a streamable HTTP endpoint). Each remote
// tool becomes a [tools.Tool] named "<server>__<tool>", dangerous unless
// the server annotates it readOnlyHint; the gateway puts
// [Manager.Tools] into its registry and refreshes it when the Manager's
// onChange callback fires. A server that fails to start or dies is state,
// not an error: it is restarted with exponential backoff and [Manager.Status]
// says where it is. Its tools stay listed while it reconnects and answer
// with an error result meanwhile, so the model's tool list does not churn
// on every crash. Package supervisor does the restarting, as it
// does for plugins/extproc; this package says how to connect to a server
// and list its tools.
//
// As a server, [Serve] lists and calls the tools of a [ToolSource]; the
// gateway backs that with its Runner so policy, guard and timeouts apply.
//
// # Concurrency
//
// All Manager methods are safe for concurrent use. onChange is called from
// the Manager's own goroutines, never concurrently with itself and never
// with a Manager lock held, so it may call [Manager.Tools]. Tools returned
// by Manager.Tools may be called concurrently and after the Manager closed
// (they then report the server is gone).
package mcp
