-- The long-poll cursor of each account: the last update id stored, and
-- the bot it belongs to (a new token of another bot starts afresh). The
-- first getUpdates after a start confirms everything up to it, so an
-- update handled before the restart (or by the install migrated from)
-- is not handled again.
CREATE TABLE telegram_update_offsets (
    account_id     TEXT PRIMARY KEY,
    bot_id         TEXT NOT NULL,
    last_update_id INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);
