// Package agents runs agent turns: it resolves an agent and its model
// chain from config, assembles the system prompt from the agent's
// workspace files and tool list, and loops model → tool calls →
// observations → model until a final answer, streaming `agent` and `chat`
// events on the bus and recording every message in the session's
// transcript. One run at a time per session; messages that arrive
// meanwhile queue behind it.
//
// It also serves the bus methods of this domain: agent, agent.wait,
// chat.send, chat.history, chat.abort, agents.list, agent.identity.get,
// models.list and sessions.*.
//
// Concurrency: a Service is safe for concurrent use. Runs execute on the
// session queue's goroutines; event emission never blocks on a client.
package agents
