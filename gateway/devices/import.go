package devices

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ImportedDevice is a paired device carried over from another install
// (openclaw migrate), with its device tokens in plaintext as that install
// kept them.
type ImportedDevice struct {
	Device
	Tokens []ImportedToken
}

// ImportedToken is one device token of an ImportedDevice.
type ImportedToken struct {
	Role        string
	Token       string // plaintext; only its hash is stored
	Scopes      []string
	CreatedAtMs int64
	RevokedAtMs int64
}

// Paired reports whether a device is paired in db.
func Paired(ctx context.Context, db *sql.DB, deviceID string) (bool, error) {
	var one int
	err := db.QueryRowContext(ctx, `SELECT 1 FROM devices WHERE device_id=?`, deviceID).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("look up device %s: %w", deviceID, err)
	}
	return true, nil
}

// Import pairs d in db as the other install had it, keeping its key, roles,
// scopes and tokens, so the device reconnects without pairing again. Only
// the tokens' SHA-256 hashes are stored, as for tokens minted here. A
// device already paired here is left alone and Import reports false.
func Import(ctx context.Context, db *sql.DB, d ImportedDevice) (bool, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("import device %s: %w", d.DeviceID, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO devices(device_id, public_key, display_name, operator_label, platform,
		device_family, client_id, client_mode, roles, scopes, remote_ip, created_at, approved_at, last_seen_at)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(device_id) DO NOTHING`,
		d.DeviceID, d.PublicKey, d.DisplayName, d.OperatorLabel, d.Platform, d.DeviceFamily, d.ClientID, d.ClientMode,
		jsonList(d.Roles), jsonList(d.Scopes), d.RemoteIP, d.CreatedAtMs, d.ApprovedAtMs, d.LastSeenAtMs)
	if err != nil {
		return false, fmt.Errorf("import device %s: %w", d.DeviceID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	for _, t := range d.Tokens {
		if t.Token == "" || t.Role == "" {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO device_tokens(device_id, role, token_hash, scopes, issued_at, revoked_at)
			VALUES (?,?,?,?,?,?)`, d.DeviceID, t.Role, hashToken(t.Token), jsonList(t.Scopes), t.CreatedAtMs, t.RevokedAtMs); err != nil {
			return false, fmt.Errorf("import device %s token for %s: %w", d.DeviceID, t.Role, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("import device %s: %w", d.DeviceID, err)
	}
	return true, nil
}
