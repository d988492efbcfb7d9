package channels

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// What `openclaw migrate` carries over from another install: the senders
// an operator approved for DMs, the pairing requests still waiting, and
// where each session's conversation lives. Each Import leaves what is
// already here alone and reports whether it wrote anything, so a second
// import changes nothing.

// ImportedAllow is one approved DM sender of a channel account.
type ImportedAllow struct {
	Channel      string
	AccountID    string
	SenderID     string
	ApprovedAtMs int64
}

// AllowKnown reports whether db already lets the sender's DMs in.
func AllowKnown(ctx context.Context, db *sql.DB, a ImportedAllow) (bool, error) {
	return newDB(db).pairedSender(ctx, a.Channel, a.AccountID, a.SenderID)
}

// ImportAllow approves a sender's DMs as the other install had it.
func ImportAllow(ctx context.Context, db *sql.DB, a ImportedAllow) (bool, error) {
	if a.Channel == "" || a.AccountID == "" || a.SenderID == "" {
		return false, fmt.Errorf("import approved sender: channel, account and sender are required")
	}
	res, err := db.ExecContext(ctx, `INSERT INTO channel_pairing_allow_entries (channel, account_id, sender_id, approved_at)
		VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, a.Channel, a.AccountID, a.SenderID, a.ApprovedAtMs)
	if err != nil {
		return false, fmt.Errorf("import approved sender %s/%s: %w", a.Channel, a.AccountID, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// ImportedPairingRequest is a pending DM pairing request; its code stays
// the one the sender was told.
type ImportedPairingRequest struct {
	Channel      string
	AccountID    string
	SenderID     string
	SenderLabel  string
	ChatID       string
	Code         string
	CreatedAtMs  int64
	LastSeenAtMs int64
	ExpiresAtMs  int64
}

// PairingRequestKnown reports whether db has a request of that sender,
// or one with that code, in the account.
func PairingRequestKnown(ctx context.Context, db *sql.DB, r ImportedPairingRequest) (bool, error) {
	var one int
	err := db.QueryRowContext(ctx, `SELECT 1 FROM channel_pairing_requests WHERE channel = ? AND account_id = ? AND (sender_id = ? OR code = ?)`,
		r.Channel, r.AccountID, r.SenderID, r.Code).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("look up pairing request: %w", err)
	}
	return true, nil
}

// ImportPairingRequest records a pending request, so the operator can
// approve the code the sender already has. A request of the same sender
// or code already here wins.
func ImportPairingRequest(ctx context.Context, db *sql.DB, r ImportedPairingRequest) (bool, error) {
	if r.Channel == "" || r.AccountID == "" || r.SenderID == "" || r.Code == "" {
		return false, fmt.Errorf("import pairing request: channel, account, sender and code are required")
	}
	res, err := db.ExecContext(ctx, `INSERT INTO channel_pairing_requests
		(request_id, channel, account_id, sender_id, sender_label, chat_id, code, created_at, last_seen_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		uuid.NewString(), r.Channel, r.AccountID, r.SenderID, r.SenderLabel, r.ChatID, r.Code,
		r.CreatedAtMs, r.LastSeenAtMs, r.ExpiresAtMs)
	if err != nil {
		return false, fmt.Errorf("import pairing request %s/%s: %w", r.Channel, r.AccountID, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// RouteKnown reports whether db knows the chat of a session.
func RouteKnown(ctx context.Context, db *sql.DB, sessionKey string) (bool, error) {
	_, ok, err := newDB(db).route(ctx, sessionKey)
	return ok, err
}

// ImportRoute records the chat a session's conversation lives in, so
// replies and the message tool go back there; a route already here wins.
func ImportRoute(ctx context.Context, db *sql.DB, sessionKey string, r Route, updatedAtMs int64) (bool, error) {
	if r.Channel == "" || r.ChatID == "" {
		return false, fmt.Errorf("import route of %s: channel and chat are required", sessionKey)
	}
	if r.ChatKind == "" {
		r.ChatKind = Direct
	}
	res, err := db.ExecContext(ctx, `INSERT INTO channel_session_routes (session_key, channel, account_id, chat_id, chat_kind, thread_id, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_key) DO NOTHING`,
		sessionKey, r.Channel, r.AccountID, r.ChatID, string(r.ChatKind), r.ThreadID, updatedAtMs)
	if err != nil {
		return false, fmt.Errorf("import route of %s: %w", sessionKey, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}
