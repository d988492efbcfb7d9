package telegram

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	gwstore "github.com/openclaw-go/openclaw/gateway/store"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations are the telegram component's tables (telegram_update_offsets).
var Migrations = gwstore.FromDir("telegram", migrationFS, "migrations")

// schemaMu serialises the table's creation: accounts starting together
// share one database.
var schemaMu sync.Mutex

// Offsets keeps each account's long-poll cursor in the gateway's
// database. The zero value (no database) keeps nothing.
type Offsets struct {
	DB *sql.DB
}

func (o Offsets) migrate(ctx context.Context) error {
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if err := (&gwstore.Store{DB: o.DB}).Migrate(ctx, Migrations); err != nil {
		return fmt.Errorf("telegram: migrate: %w", err)
	}
	return nil
}

// Last returns the last update id stored for the account's bot; ok is
// false when there is none, or it was another bot's (the token changed).
func (o Offsets) Last(ctx context.Context, accountID string, botID int64) (last int64, ok bool, err error) {
	if o.DB == nil {
		return 0, false, nil
	}
	if err := o.migrate(ctx); err != nil {
		return 0, false, err
	}
	err = o.DB.QueryRowContext(ctx, `SELECT last_update_id FROM telegram_update_offsets WHERE account_id = ? AND bot_id = ?`,
		accountID, strconv.FormatInt(botID, 10)).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("telegram: read update offset: %w", err)
	}
	return last, true, nil
}

// Save records the last update id stored for the account's bot.
func (o Offsets) Save(ctx context.Context, accountID string, botID, last int64) error {
	if o.DB == nil {
		return nil
	}
	_, err := o.DB.ExecContext(ctx, `INSERT INTO telegram_update_offsets (account_id, bot_id, last_update_id, updated_at)
		VALUES (?, ?, ?, ?) ON CONFLICT (account_id) DO UPDATE SET bot_id = excluded.bot_id,
		last_update_id = excluded.last_update_id, updated_at = excluded.updated_at`,
		accountID, strconv.FormatInt(botID, 10), last, time.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("telegram: save update offset: %w", err)
	}
	return nil
}

// OffsetKnown reports whether db holds a cursor of the account that
// ImportOffset keeps: another bot's, or this bot's at or past last
// (openclaw migrate).
func OffsetKnown(ctx context.Context, db *sql.DB, accountID string, botID, last int64) (bool, error) {
	var one int
	err := db.QueryRowContext(ctx, `SELECT 1 FROM telegram_update_offsets WHERE account_id = ? AND (bot_id <> ? OR last_update_id >= ?)`,
		accountID, strconv.FormatInt(botID, 10), last).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("telegram: read update offset: %w", err)
	}
	return true, nil
}

// ImportOffset carries over another install's cursor of an account
// (openclaw migrate), so the first poll confirms what that install had
// already handled. A cursor here of another bot, or of the same bot as
// far or further, is kept, and ImportOffset reports false.
func ImportOffset(ctx context.Context, db *sql.DB, accountID string, botID, last int64) (bool, error) {
	if accountID == "" || botID <= 0 || last < 0 {
		return false, errors.New("telegram: import update offset: account, bot id and a non-negative update id are required")
	}
	res, err := db.ExecContext(ctx, `INSERT INTO telegram_update_offsets (account_id, bot_id, last_update_id, updated_at)
		VALUES (?, ?, ?, ?) ON CONFLICT (account_id) DO UPDATE SET
		last_update_id = excluded.last_update_id, updated_at = excluded.updated_at
		WHERE telegram_update_offsets.bot_id = excluded.bot_id AND telegram_update_offsets.last_update_id < excluded.last_update_id`,
		accountID, strconv.FormatInt(botID, 10), last, time.Now().UnixMilli())
	if err != nil {
		return false, fmt.Errorf("telegram: import update offset: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}
