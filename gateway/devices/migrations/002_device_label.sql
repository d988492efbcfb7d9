-- The name an operator gave a paired device (device.pair.rename); it
-- outlives re-pairing, which refreshes display_name from the client.
ALTER TABLE devices ADD COLUMN operator_label TEXT NOT NULL DEFAULT '';
