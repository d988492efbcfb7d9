-- Every inbound event an adapter handed over, written before the adapter
-- acknowledges it upstream. The unique key drops redeliveries.
CREATE TABLE channel_inbound (
    id          INTEGER PRIMARY KEY,
    channel     TEXT NOT NULL,
    account_id  TEXT NOT NULL,
    event_id    TEXT NOT NULL,
    chat_id     TEXT NOT NULL,
    payload     TEXT NOT NULL,          -- the Inbound as JSON
    status      TEXT NOT NULL DEFAULT 'pending', -- pending | dropped | answered | failed
    reason      TEXT NOT NULL DEFAULT '',
    agent_id    TEXT NOT NULL DEFAULT '',
    session_key TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    UNIQUE (channel, account_id, event_id)
);
CREATE INDEX channel_inbound_pending ON channel_inbound (status, id);

-- Messages to send. A row is written (with its idempotency key) before the
-- first attempt and marked sent after the network took it.
CREATE TABLE channel_outbound (
    id           INTEGER PRIMARY KEY,
    idem_key     TEXT NOT NULL UNIQUE,
    channel      TEXT NOT NULL,
    account_id   TEXT NOT NULL,
    payload      TEXT NOT NULL,         -- the Outbound as JSON
    status       TEXT NOT NULL DEFAULT 'pending', -- pending | sent | failed
    attempts     INTEGER NOT NULL DEFAULT 0,
    next_at      INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT NOT NULL DEFAULT '',
    message_id   TEXT NOT NULL DEFAULT '',
    inbound_id   INTEGER,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
);
CREATE INDEX channel_outbound_pending ON channel_outbound (status, next_at, id);

-- DM pairing: unknown senders ask with a code; an operator approves.
CREATE TABLE channel_pairing_requests (
    request_id   TEXT PRIMARY KEY,
    channel      TEXT NOT NULL,
    account_id   TEXT NOT NULL,
    sender_id    TEXT NOT NULL,
    sender_label TEXT NOT NULL DEFAULT '',
    chat_id      TEXT NOT NULL DEFAULT '',
    code         TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    UNIQUE (channel, account_id, code),
    UNIQUE (channel, account_id, sender_id)
);

-- Senders whose DMs an operator approved. DM access only, never groups.
CREATE TABLE channel_pairing_allow_entries (
    channel     TEXT NOT NULL,
    account_id  TEXT NOT NULL,
    sender_id   TEXT NOT NULL,
    approved_at INTEGER NOT NULL,
    PRIMARY KEY (channel, account_id, sender_id)
);

-- Where each session's conversation lives, so replies, the message tool
-- and send_file go back to the chat the session came from.
CREATE TABLE channel_session_routes (
    session_key TEXT PRIMARY KEY,
    channel     TEXT NOT NULL,
    account_id  TEXT NOT NULL,
    chat_id     TEXT NOT NULL,
    chat_kind   TEXT NOT NULL,
    thread_id   TEXT NOT NULL DEFAULT '',
    updated_at  INTEGER NOT NULL
);
