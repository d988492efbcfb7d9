// Package sessions keeps the agent's conversations: session keys, the
// session rows and transcripts in the gateway's database, the per-session
// run queue, the reset policy and the compaction split.
//
// # Keys
//
// A session key names a conversation bucket the way OpenClaw does:
// agent:<agentId>:<mainKey> for an agent's main session, peer keys built
// from session.dmScope and session.groupScope (PeerKey), thread and topic
// suffixes, cron:<jobId>, hook:<uuid>, sub-agent keys (SubagentKey) and the
// special keys global and unknown. Parse reads any of them; keys are
// case-insensitive and kept lower-case.
//
// # Store
//
// A Store holds one row per key (Session) and the transcripts
// (Message). A session's SessionID names its current transcript; Reset
// gives the key a fresh id and keeps the old transcript, readable by its
// id, so a reset never deletes data. Append numbers messages 1, 2, 3, ...
// per session id in one transaction and returns only after the commit.
// Compaction never rewrites history: AppendSummary records a summary and
// Context returns that summary followed by the messages after it.
//
//	st := sessions.New(db, log)
//	s, _, err := st.Ensure(ctx, sessions.MainKey("main", ""), sessions.Init{})
//	err = st.Append(ctx, s.SessionID, sessions.Message{Role: sessions.RoleUser, Text: "hi"})
//	msgs, err := st.History(ctx, s.SessionID, sessions.HistoryQuery{Limit: 50})
//
// # Runs
//
// A Queue runs one job at a time per session key, in order, and different
// keys concurrently (optionally capped by MaxConcurrent). Abort cancels a
// running job's context or drops a queued one; Wait blocks until a job is
// done; Close cancels everything and waits for the goroutines to exit.
//
// # Concurrency
//
// Store and Queue are safe for concurrent use. The Store serialises its
// own writes; other components may write the same database concurrently.
// The key, reset-policy and compaction functions are pure and do no I/O.
package sessions
