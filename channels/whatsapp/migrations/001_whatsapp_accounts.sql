-- Which whatsmeow device (whatsmeow_device.jid) each configured WhatsApp
-- account is linked to. whatsmeow's own tables are created by its sqlstore
-- (Container.Upgrade), not here.
CREATE TABLE whatsapp_accounts (
    account_id TEXT PRIMARY KEY,
    jid        TEXT NOT NULL,
    linked_at  INTEGER NOT NULL DEFAULT (unixepoch())
);
