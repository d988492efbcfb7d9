// Package tools is the tool runtime: the Tool contract, the Registry every
// tool source feeds (built-ins, channels, plugins, MCP), and the Runner
// that every call goes through: lookup → policy → Tool Guard → approval
// wait → before-hooks → execute with the tool's timeout → after-hooks →
// truncation → audit. A failing or panicking tool becomes that call's
// error result, never the turn's.
//
// The Runner knows nothing of agents or channels: who is calling is a
// plain Who value, and the policy, the guard and the hooks are small
// interfaces the gateway wires in. Approvals and the audit log live in the
// gateway's database (component "tools").
package tools
