// Package migrate imports the state of an OpenClaw install (the
// TypeScript original) into ours: `openclaw migrate --from DIR`. It is a
// command-line tool's library, not a part of the running gateway.
//
// Plan reads the source and our state and says, item by item, what an
// import would do; Apply does it. The source is never written: its
// database is opened read-only (mode=ro) and its files are only read.
// Everything is copied, never moved, and nothing of ours is overwritten,
// so a second run finds everything "already there" and changes nothing.
//
// What an OpenClaw 2026.9 install keeps, and where (DIR is its state
// directory, OPENCLAW_STATE_DIR, default ~/.openclaw):
//
//   - DIR/openclaw.json: the config (JSON5). Our gateway reads the same
//     file format at the same default place.
//   - DIR/state/openclaw.sqlite: the shared runtime database (SQLite,
//     tables STRICT). Paired devices are rows of device_pairing_paired,
//     one per device: device_id, public_key (base64url Ed25519), roles_json,
//     approved_scopes_json (scopes_json is what the device last asked for),
//     display_name, operator_label, platform, device_family, client_id,
//     client_mode, created_at_ms, approved_at_ms, last_seen_at_ms. Their
//     device tokens are in tokens_json, an object keyed by role of
//     {token, role, scopes, createdAtMs, revokedAtMs?}: the tokens are
//     kept in plaintext there (and in the client's own
//     state/openclaw.sqlite, table device_auth_tokens), so we can hash
//     them (SHA-256, as our devices store does) and the device's saved
//     token keeps working here.
//   - Node pairings are on the same device rows: node_surface_json holds
//     the command surface an operator approved with `nodes approve`
//     ({displayName, version, caps, commands, createdAtMs, approvedAtMs});
//     pending_node_surface_json a surface still waiting. The node id is the
//     device id. (The older separate node-pairing store was folded into
//     these rows by `openclaw doctor --fix`.)
//   - Exec approvals: the row config_key='current' of exec_approvals_config,
//     raw_json being the whole exec-approvals document ({version, socket,
//     defaults, agents}); older installs kept it in DIR/exec-approvals.json,
//     read when the row is missing. Ours is DIR/exec-approvals.json.
//   - Agent workspaces: DIR/workspace for the default agent and
//     DIR/workspace-<agentId> for the others, unless the config names a
//     workspace (then the path is in the config, which we read as is).
//   - Per-agent state: DIR/agents/<agentId>/agent/openclaw-agent.sqlite.
//     Sessions are rows of session_nodes (session_key, current_session_id,
//     entry_json with label, overrides and the last delivery target), their
//     transcripts rows of transcript_events (JSON events, zstd-compressed
//     when large; session_transcript_active_events orders the active
//     branch). Imported: each key with its current transcript (user,
//     assistant, tool-result messages and compaction summaries), and the
//     chat a channel session talks in. Its model auth profiles are not.
//   - Memory: the Markdown notes of each workspace (MEMORY.md, memory/*.md);
//     the memory_index_* tables of the agent database are an index of them,
//     which our memory_search rebuilds. Notes come with a copied workspace;
//     into one of ours that is kept, only the notes it lacks are copied.
//   - DM pairing: channel_pairing_allow_entries (channel_key, account_id,
//     entry: an approved sender) and channel_pairing_requests (request_id is
//     the sender, code, ISO times, meta_json; a request lives an hour).
//     Imported for Telegram, Discord, Slack and WhatsApp.
//   - Telegram's long-poll cursor: plugin_state_entries, namespace
//     telegram.update-offsets, key the account, value {lastUpdateId, botId}.
//     Imported as our cursor of that bot, so nothing handled is handled
//     again.
//   - Channel credentials: DIR/credentials/**, e.g. WhatsApp's Baileys
//     session in credentials/whatsapp/<accountId>/creds.json. That session
//     is bound to the Baileys library's key store, so it needs a new link.
//   - Cron jobs: rows of cron_jobs (job_json in the wire shape both
//     gateways share, state_json); their runs are task_runs rows of runtime
//     'cron' (detail_json is the run-log entry) and cron_run_receipts. Jobs
//     whose declaration_key names one of OpenClaw's own features
//     (heartbeat:, memory-core:, skill-collection-review:, claw:) are the
//     install's, not the user's, and stay behind; see cron.go.
package migrate
