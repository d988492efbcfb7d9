// Package discord is the Discord channel adapter.
//
// The adapter keeps its own gateway connection (gateway.go) over
// gorilla/websocket and uses discordgo for the REST API and its request
// types. discordgo's own gateway loop is not used because it cannot be
// cancelled (its reconnect loop outlives Stop), does not read close codes
// (an invalid token, close 4004, is retried for ever), does not resume on
// resume_gateway_url and only notices a silent socket after five missed
// heartbeat ACKs. Ours identifies with the intents Guilds, GuildMessages,
// DirectMessages, MessageContent, GuildMessageReactions and
// DirectMessageReactions; resumes where Discord allows (op 7, dropped or
// silent sockets, ordinary close codes); re-identifies after op 9 or
// 4007/4009; and stops for good, reporting logged-out, on 4004 (or a 401
// from gateway/bot) and on the intent and shard close codes 4010-4014.
// A receive watchdog closes the socket when neither an event nor a
// heartbeat ACK arrived for two heartbeat intervals.
//
// # Delivery guarantees
//
// Every event is handed to Sink.Receive synchronously on the gateway
// reader, in order, and retried until it is stored; only then is the
// gateway sequence advanced (so a resume replays an event not yet stored)
// and, for interactions, the interaction acknowledged. Discord has no
// acknowledgement for messages: the sink deduplicates redeliveries on
// EventID (the message id for MESSAGE_CREATE). A message sent while the
// adapter was down (longer than Discord keeps a session resumable) is not
// replayed by Discord; that is a limitation of the network, not of the
// adapter, and catching up would mean reading channel history.
//
// # Process-wide state
//
// discordgo's REST endpoints are package variables. New points them at
// Options.APIBase (default https://discord.com/) with SetAPIBase, so every
// adapter in one process shares one API base: tests use one fake per test
// process, or run one after another.
//
// Formatting (format.go) is pure: FormatMarkdown turns an agent's
// Markdown into Discord's dialect and disarms mass pings.
package discord
