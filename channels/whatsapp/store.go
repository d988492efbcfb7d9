package whatsapp

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	wastore "go.mau.fi/whatsmeow/store"
	"go.mau.fi/whatsmeow/store/sqlstore"
	"go.mau.fi/whatsmeow/types"

	gwstore "github.com/openclaw-go/openclaw/gateway/store"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations are the whatsapp component's tables (whatsapp_accounts).
// The adapter applies them itself before first use; a gateway may also
// pass them to store.Open. whatsmeow's tables come from its own sqlstore.
var Migrations = gwstore.FromDir("whatsapp", migrationFS, "migrations")

// schemaMu serialises schema upgrades: accounts starting together share
// one database.
var schemaMu sync.Mutex

// OpenDeviceStore prepares db for WhatsApp devices: our migrations, then
// whatsmeow's (Container.Upgrade). db must have foreign keys on (the
// gateway's store opens with foreign_keys(1)); whatsmeow refuses
// otherwise. On PostgreSQL whatsmeow writes its own dialect, so its
// container works on the store's verbatim pool, which skips the rewrite
// from SQLite's.
func OpenDeviceStore(ctx context.Context, db *sql.DB, log *slog.Logger) (*sqlstore.Container, error) {
	if db == nil {
		return nil, errors.New("whatsapp: no database")
	}
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if err := (&gwstore.Store{DB: db}).Migrate(ctx, Migrations); err != nil {
		return nil, fmt.Errorf("whatsapp: migrate: %w", err)
	}
	dialect, wadb := "sqlite", db
	if gwstore.IsPostgres(db) {
		v, err := gwstore.Verbatim(db)
		if err != nil {
			return nil, fmt.Errorf("whatsapp: device store: %w", err)
		}
		dialect, wadb = "postgres", v
		// whatsmeow's upgrade asks information_schema whether its version
		// table exists in any schema, and would take another schema's
		// (another gateway's in the same database) for its own: it is
		// created here first, as whatsmeow would create it.
		if _, err := v.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS whatsmeow_version (version INTEGER, compat INTEGER)`); err != nil {
			return nil, fmt.Errorf("whatsapp: device store version table: %w", err)
		}
	}
	c := sqlstore.NewWithDB(wadb, dialect, newWALogger(log))
	if err := c.Upgrade(ctx); err != nil {
		return nil, fmt.Errorf("whatsapp: upgrade device store: %w", err)
	}
	return c, nil
}

// loadDevice returns account's linked device, or a new unlinked one when
// the account has none (never linked, or logged out since).
func loadDevice(ctx context.Context, c *sqlstore.Container, db *sql.DB, account string) (*wastore.Device, error) {
	var raw string
	err := db.QueryRowContext(ctx, `SELECT jid FROM whatsapp_accounts WHERE account_id=?`, account).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return c.NewDevice(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("whatsapp: load account %q: %w", account, err)
	}
	jid, err := types.ParseJID(raw)
	if err != nil {
		return nil, fmt.Errorf("whatsapp: account %q: stored jid %q: %w", account, raw, err)
	}
	dev, err := c.GetDevice(ctx, jid)
	if err != nil {
		return nil, fmt.Errorf("whatsapp: load device of account %q: %w", account, err)
	}
	if dev == nil {
		// whatsmeow deleted the device (logged out from the phone while
		// we were not running); the row is replaced by the next login.
		return c.NewDevice(), nil
	}
	return dev, nil
}

// rememberDevice records that account is linked as jid (the device JID,
// with its device part).
func rememberDevice(ctx context.Context, db *sql.DB, account string, jid types.JID) error {
	_, err := db.ExecContext(ctx, `INSERT INTO whatsapp_accounts(account_id, jid) VALUES (?, ?)
		ON CONFLICT(account_id) DO UPDATE SET jid=excluded.jid, linked_at=unixepoch()`, account, jid.String())
	if err != nil {
		return fmt.Errorf("whatsapp: remember device of account %q: %w", account, err)
	}
	return nil
}

func forgetDevice(ctx context.Context, db *sql.DB, account string) error {
	if _, err := db.ExecContext(ctx, `DELETE FROM whatsapp_accounts WHERE account_id=?`, account); err != nil {
		return fmt.Errorf("whatsapp: forget device of account %q: %w", account, err)
	}
	return nil
}
