package admin

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the tables the wing owns: the gateway's identity. They
// keep the component name "gateway" they were first applied under.
func Migrations() store.Migrations {
	return store.FromDir("gateway", migrationFiles, "migrations")
}

// Identity is the gateway's own device identity.
type Identity struct {
	DeviceID  string `json:"deviceId"`
	PublicKey string `json:"publicKey"`
	CreatedAt int64  `json:"createdAtMs"`
}

// loadIdentity returns the stored identity, creating it on first start.
func loadIdentity(ctx context.Context, db *sql.DB) (Identity, error) {
	var id Identity
	err := db.QueryRowContext(ctx, `SELECT device_id, public_key, created_at FROM gateway_identity WHERE id=1`).
		Scan(&id.DeviceID, &id.PublicKey, &id.CreatedAt)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return id, fmt.Errorf("load gateway identity: %w", err)
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return id, fmt.Errorf("generate gateway identity: %w", err)
	}
	id = Identity{DeviceID: protocol.DeviceID(pub), PublicKey: protocol.EncodeKey(pub), CreatedAt: time.Now().UnixMilli()}
	_, err = db.ExecContext(ctx, `INSERT INTO gateway_identity(id, device_id, public_key, private_key, created_at) VALUES (1,?,?,?,?)
		ON CONFLICT(id) DO NOTHING`, id.DeviceID, id.PublicKey, protocol.EncodeKey(priv.Seed()), id.CreatedAt)
	if err != nil {
		return id, fmt.Errorf("save gateway identity: %w", err)
	}
	return loadIdentity(ctx, db)
}
