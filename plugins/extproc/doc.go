// Package extproc runs out-of-process plugins: executables, in any
// language, that register tools and tool hooks with the gateway over a
// small JSON-RPC 2.0 protocol on their stdin and stdout.
//
// # Plugins on disk
//
// A plugin is a folder holding openclaw.plugin.json:
//
//	{"id": "weather", "name": "Weather", "description": "...",
//	 "command": "./bin/weather", "args": [], "env": {"KEY": "value"}}
//
// id is 1 to 64 letters, digits, - or _. command is relative to the folder
// when it holds a slash, absolute, or a bare name looked up in PATH. The
// process runs in the folder with the gateway's environment plus env and
// OPENCLAW_PLUGIN_ID. [LoadManifest] reads one folder; [Discover] scans
// directories for them.
//
// # Protocol (version 1)
//
// One JSON-RPC 2.0 object per line, UTF-8, in both directions; stderr is
// logged line by line. Either side may have several requests in flight
// and answers may come in any order, so a plugin should serve each
// request on its own (a slow hook must not hold up a tool call).
//
// Gateway to plugin, requests:
//
//	initialize        {protocolVersion: 1, pluginId, config}
//	                  → {tools: [{name, description, parameters, readOnly?}],
//	                     hooks: [{on: "before_tool"|"after_tool", tool: "<name or glob>"}]}
//	tools/list        {} → {tools: [...]}
//	tools/call        {name, args, who: {agentId, sessionKey, senderIsOwner?}} → {text, isError}
//	hooks/before_tool {tool, args} → {action: "allow"|"block"|"rewrite", args?, message?}
//	hooks/after_tool  {tool, args, text, isError} → {text?}
//
// config is plugins.entries.<id>.config ({} when unset). parameters is a
// JSON Schema object (anything else becomes {"type":"object"}). A tool
// without readOnly: true is dangerous: a call for anyone but the owner
// waits for a person's approval unless a Tool Guard rule decides it.
// senderIsOwner is the gateway's own finding (operator.admin, or a chat
// sender in commands.ownerAllowFrom), for plugins that keep a tool to the
// owner. Hook tool
// globs match the gateway's tool names (e.g. "weather__forecast",
// "exec", "secret*"; "" means "*"); a plugin is asked once per call if any
// of its globs match. block stops the call with message; rewrite replaces
// the arguments (later plugins see them, and so do the Tool Guard and the
// person asked to approve: hooks run before both); an after_tool answer with text
// replaces the result's text, without it the result stands.
//
// Plugin to gateway, notification:
//
//	tools/changed     (no params) → the gateway sends tools/list
//
// A JSON-RPC error answer to tools/call becomes a tool error. Requests the
// plugin sends us are answered "method not found". Closing stdin asks the
// plugin to leave; a second later its whole process group (the plugin and
// whatever it started) gets SIGTERM, and SIGKILL two seconds after that.
//
// # Supervision
//
// A [Manager] runs one process per enabled plugin. Each tool becomes a
// [tools.Tool] named "<id>__<tool>" (sanitized, at most 64 characters),
// of tier extension in groups "group:plugins" and "plugin:<id>". A plugin
// that fails to start, or dies, is state rather than an error: in-flight
// calls fail with an error result, it is restarted with exponential
// backoff, [Manager.Status] says where it is, and its tools stay listed,
// answering that it is restarting, so the model's tool list does not
// churn on every crash. Package supervisor does the restarting, as it
// does for plugins/mcp; this package says how to start a plugin and talk
// to it.
//
// [Manager.Hooks] has the method set of tools.Hooks. Plugins are asked in
// id order; one that is down, errs, or takes longer than HookTimeout
// (2 s) is skipped and logged, so a broken plugin never blocks a tool
// call.
//
// # Concurrency
//
// All Manager methods are safe for concurrent use. onChange is called from
// the Manager's goroutines (and from Sync), never concurrently with itself
// and never with a Manager lock held, so it may call [Manager.Tools].
// Tools and Hooks may be used concurrently and after Close (tools then
// report the plugin stopped; hooks do nothing).
package extproc
