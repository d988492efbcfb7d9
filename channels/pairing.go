package channels

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/gateway/store"
)

// Pairing limits, as OpenClaw sets them.
const (
	// PairingAlphabet has no 0/O or 1/I, so a code read aloud or typed
	// from a phone screen cannot be mistaken.
	PairingAlphabet   = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	PairingCodeLength = 8
	PairingTTL        = time.Hour
	// PairingMaxPending caps live requests per channel account, so a
	// stranger cannot flood an operator's list.
	PairingMaxPending = 3
)

// PairingRequest is a pending DM pairing request.
type PairingRequest struct {
	RequestID   string
	Channel     string
	AccountID   string
	SenderID    string
	SenderLabel string
	ChatID      string
	Code        string
	CreatedAt   time.Time
	LastSeenAt  time.Time
	ExpiresAt   time.Time
}

// Errors of pairing approval.
var (
	ErrPairingNotFound = errors.New("no pending pairing request with that code or id (it may have expired)")
)

func newPairingCode() string {
	b := make([]byte, PairingCodeLength)
	rand.Read(b) // never fails (crypto/rand panics instead)
	for i := range b {
		// 256 is a multiple of 32, so the modulo is unbiased.
		b[i] = PairingAlphabet[int(b[i])%len(PairingAlphabet)]
	}
	return string(b)
}

// pairingOutcome is what a DM from an unknown sender produced.
type pairingOutcome struct {
	Request *PairingRequest // the new request, nil when none was made
	Reason  string          // why the message was dropped
}

// requestPairing records a pairing request for a sender, unless one is
// already live (then only its last-seen time moves) or the account has
// PairingMaxPending live requests. Only a new request gets a reply.
func (d db) requestPairing(ctx context.Context, in Inbound, now time.Time) (pairingOutcome, error) {
	var out pairingOutcome
	err := d.tx(ctx, func(tx store.Conn) error {
		var err error
		out, err = requestPairingTx(ctx, tx, in, now)
		return err
	})
	return out, err
}

func requestPairingTx(ctx context.Context, tx store.Conn, in Inbound, now time.Time) (pairingOutcome, error) {
	nowMs := now.UnixMilli()
	if _, err := tx.ExecContext(ctx, `DELETE FROM channel_pairing_requests WHERE expires_at <= ?`, nowMs); err != nil {
		return pairingOutcome{}, err
	}
	res, err := tx.ExecContext(ctx, `UPDATE channel_pairing_requests SET last_seen_at = ? WHERE channel = ? AND account_id = ? AND sender_id = ?`,
		nowMs, in.Channel, in.AccountID, in.Sender.ID)
	if err != nil {
		return pairingOutcome{}, err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return pairingOutcome{Reason: "pairing requested already; waiting for approval"}, nil
	}
	var pending int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM channel_pairing_requests WHERE channel = ? AND account_id = ?`,
		in.Channel, in.AccountID).Scan(&pending); err != nil {
		return pairingOutcome{}, err
	}
	if pending >= PairingMaxPending {
		return pairingOutcome{Reason: fmt.Sprintf("pairing: %d requests already pending for this account", pending)}, nil
	}
	req := &PairingRequest{
		RequestID: uuid.NewString(), Channel: in.Channel, AccountID: in.AccountID,
		SenderID: in.Sender.ID, SenderLabel: senderLabel(in.Sender), ChatID: in.Chat.ID,
		CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(PairingTTL),
	}
	for range 5 { // a code collision within one account is rare; retry it
		req.Code = newPairingCode()
		_, err = tx.ExecContext(ctx, `INSERT INTO channel_pairing_requests
			(request_id, channel, account_id, sender_id, sender_label, chat_id, code, created_at, last_seen_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			req.RequestID, req.Channel, req.AccountID, req.SenderID, req.SenderLabel, req.ChatID, req.Code, nowMs, nowMs, req.ExpiresAt.UnixMilli())
		if err == nil || !strings.Contains(err.Error(), "UNIQUE") {
			break
		}
	}
	if err != nil {
		return pairingOutcome{}, fmt.Errorf("save pairing request: %w", err)
	}
	return pairingOutcome{Request: req, Reason: "pairing code sent"}, nil
}

func senderLabel(s Sender) string {
	switch {
	case s.Name != "" && s.Username != "":
		return s.Name + " (@" + s.Username + ")"
	case s.Username != "":
		return "@" + s.Username
	case s.Name != "":
		return s.Name
	}
	return s.ID
}

// pairingRequests lists live requests, optionally of one channel/account.
func (d db) pairingRequests(ctx context.Context, channel, accountID string, now time.Time) ([]PairingRequest, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT request_id, channel, account_id, sender_id, sender_label, chat_id, code, created_at, last_seen_at, expires_at
		FROM channel_pairing_requests WHERE expires_at > ? AND (? = '' OR channel = ?) AND (? = '' OR account_id = ?) ORDER BY created_at`,
		now.UnixMilli(), channel, channel, accountID, accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []PairingRequest
	for rows.Next() {
		var r PairingRequest
		var c, l, e int64
		if err := rows.Scan(&r.RequestID, &r.Channel, &r.AccountID, &r.SenderID, &r.SenderLabel, &r.ChatID, &r.Code, &c, &l, &e); err != nil {
			return nil, err
		}
		r.CreatedAt, r.LastSeenAt, r.ExpiresAt = time.UnixMilli(c), time.UnixMilli(l), time.UnixMilli(e)
		out = append(out, r)
	}
	return out, rows.Err()
}

// takePairing removes a live request named by its id or code (codes are
// case-insensitive) and, when approve is set, allows its sender's DMs.
// A request is single use: a second approval finds nothing.
func (d db) takePairing(ctx context.Context, channel, accountID, idOrCode string, approve bool, now time.Time) (PairingRequest, error) {
	var r PairingRequest
	err := d.tx(ctx, func(tx store.Conn) error {
		var err error
		r, err = takePairingTx(ctx, tx, channel, accountID, idOrCode, approve, now)
		return err
	})
	return r, err
}

func takePairingTx(ctx context.Context, tx store.Conn, channel, accountID, idOrCode string, approve bool, now time.Time) (PairingRequest, error) {
	var r PairingRequest
	var c, l, e int64
	err := tx.QueryRowContext(ctx, `SELECT request_id, channel, account_id, sender_id, sender_label, chat_id, code, created_at, last_seen_at, expires_at
		FROM channel_pairing_requests WHERE channel = ? AND (? = '' OR account_id = ?) AND (request_id = ? OR code = ?) AND expires_at > ?`,
		channel, accountID, accountID, idOrCode, strings.ToUpper(strings.TrimSpace(idOrCode)), now.UnixMilli()).
		Scan(&r.RequestID, &r.Channel, &r.AccountID, &r.SenderID, &r.SenderLabel, &r.ChatID, &r.Code, &c, &l, &e)
	if errors.Is(err, sql.ErrNoRows) {
		return PairingRequest{}, ErrPairingNotFound
	}
	if err != nil {
		return PairingRequest{}, err
	}
	r.CreatedAt, r.LastSeenAt, r.ExpiresAt = time.UnixMilli(c), time.UnixMilli(l), time.UnixMilli(e)
	if _, err := tx.ExecContext(ctx, `DELETE FROM channel_pairing_requests WHERE request_id = ?`, r.RequestID); err != nil {
		return PairingRequest{}, err
	}
	if approve {
		if _, err := tx.ExecContext(ctx, `INSERT INTO channel_pairing_allow_entries (channel, account_id, sender_id, approved_at) VALUES (?, ?, ?, ?)
			ON CONFLICT DO NOTHING`, r.Channel, r.AccountID, r.SenderID, now.UnixMilli()); err != nil {
			return PairingRequest{}, err
		}
	}
	return r, nil
}

// pairedSender reports whether an operator approved a sender's DMs.
func (d db) pairedSender(ctx context.Context, channel, accountID, senderID string) (bool, error) {
	var one int
	err := d.sql.QueryRowContext(ctx, `SELECT 1 FROM channel_pairing_allow_entries WHERE channel = ? AND account_id = ? AND sender_id = ?`,
		channel, accountID, senderID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}
