package channels

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the channels component's tables.
func Migrations() store.Migrations {
	return store.FromDir("channels", migrationFiles, "migrations")
}

// db wraps the channel tables. Writes take wmu: many chat lanes write at
// once, and queueing on a Go mutex is far cheaper than SQLite's busy
// handler, which sleeps in milliseconds.
type db struct {
	sql *sql.DB
	wmu *sync.Mutex
}

func newDB(s *sql.DB) db { return db{sql: s, wmu: &sync.Mutex{}} }

// exec runs one write statement.
func (d db) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	return d.sql.ExecContext(ctx, q, args...)
}

// tx runs fn in one immediate write transaction.
func (d db) tx(ctx context.Context, fn func(c store.Conn) error) error {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	return store.Immediate(ctx, d.sql, fn)
}

type inboundRow struct {
	ID int64
	In Inbound
	// gate is the verdict the row got when it queued in this process,
	// never stored: a row read back after a restart has none and is
	// gated afresh.
	gate *gated
}

// insertInbound stores an event unless its (channel, account, event id)
// is already there. inserted is false for a redelivery.
func (d db) insertInbound(ctx context.Context, in Inbound) (id int64, inserted bool, err error) {
	payload, err := json.Marshal(in)
	if err != nil {
		return 0, false, err
	}
	now := time.Now().UnixMilli()
	// RETURNING rather than LastInsertId: PostgreSQL's driver has no
	// LastInsertId, and both engines return no row for a redelivery.
	d.wmu.Lock()
	err = d.sql.QueryRowContext(ctx, `INSERT INTO channel_inbound (channel, account_id, event_id, chat_id, payload, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (channel, account_id, event_id) DO NOTHING RETURNING id`,
		in.Channel, in.AccountID, in.EventID, in.Chat.ID, string(payload), now, now).Scan(&id)
	d.wmu.Unlock()
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, fmt.Errorf("save inbound %s/%s event %s: %w", in.Channel, in.AccountID, in.EventID, err)
	}
	return id, true, nil
}

// pendingInbound returns unprocessed events after id, oldest first.
func (d db) pendingInbound(ctx context.Context, after int64, limit int) ([]inboundRow, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT id, payload FROM channel_inbound WHERE status = 'pending' AND id > ? ORDER BY id LIMIT ?`, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []inboundRow
	for rows.Next() {
		var r inboundRow
		var payload string
		if err := rows.Scan(&r.ID, &payload); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(payload), &r.In); err != nil {
			return nil, fmt.Errorf("inbound row %d: %w", r.ID, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// finishInbound records how an event ended when it produced no reply.
func (d db) finishInbound(ctx context.Context, id int64, status, reason, agentID, sessionKey string) error {
	_, err := d.exec(ctx, `UPDATE channel_inbound SET status = ?, reason = ?, agent_id = ?, session_key = ?, updated_at = ? WHERE id = ?`,
		status, reason, agentID, sessionKey, time.Now().UnixMilli(), id)
	return err
}

// inbound returns one stored event.
func (d db) inbound(ctx context.Context, id int64) (in Inbound, ok bool, err error) {
	var payload string
	err = d.sql.QueryRowContext(ctx, `SELECT payload FROM channel_inbound WHERE id = ?`, id).Scan(&payload)
	if errors.Is(err, sql.ErrNoRows) {
		return Inbound{}, false, nil
	}
	if err != nil {
		return Inbound{}, false, err
	}
	if err := json.Unmarshal([]byte(payload), &in); err != nil {
		return Inbound{}, false, fmt.Errorf("decode inbound %d: %w", id, err)
	}
	return in, true, nil
}

// answerInbound queues the replies and marks the event answered in one
// transaction: after a crash either both happened or neither, so an event
// is never answered twice nor left unanswered.
func (d db) answerInbound(ctx context.Context, id int64, agentID, sessionKey string, outs []outboundRow) error {
	return d.tx(ctx, func(tx store.Conn) error {
		for _, o := range outs {
			if _, err := insertOutbound(ctx, tx, o); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE channel_inbound SET status = 'answered', agent_id = ?, session_key = ?, updated_at = ? WHERE id = ?`,
			agentID, sessionKey, time.Now().UnixMilli(), id)
		return err
	})
}

type outboundRow struct {
	ID        int64
	Channel   string
	Out       Outbound
	InboundID int64
	Attempts  int
}

type execer interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

// insertOutbound queues a message; a repeat of its idempotency key is
// ignored and returns 0.
func insertOutbound(ctx context.Context, x execer, o outboundRow) (int64, error) {
	payload, err := json.Marshal(o.Out)
	if err != nil {
		return 0, err
	}
	now := time.Now().UnixMilli()
	var inbound any
	if o.InboundID != 0 {
		inbound = o.InboundID
	}
	var id int64
	err = x.QueryRowContext(ctx, `INSERT INTO channel_outbound (idem_key, channel, account_id, payload, inbound_id, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idem_key) DO NOTHING RETURNING id`,
		o.Out.IdempotencyKey, o.Channel, o.Out.AccountID, string(payload), inbound, now, now).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("queue message %s: %w", o.Out.IdempotencyKey, err)
	}
	return id, nil
}

// outboundByKey finds a queued message by its idempotency key.
func (d db) outboundByKey(ctx context.Context, key string) (status, messageID, lastErr string, err error) {
	err = d.sql.QueryRowContext(ctx, `SELECT status, message_id, last_error FROM channel_outbound WHERE idem_key = ?`, key).Scan(&status, &messageID, &lastErr)
	return
}

// dueOutbound returns pending messages whose next attempt is due.
func (d db) dueOutbound(ctx context.Context, now time.Time, limit int) ([]outboundRow, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT id, channel, payload, COALESCE(inbound_id, 0), attempts FROM channel_outbound
		WHERE status = 'pending' AND next_at <= ? ORDER BY id LIMIT ?`, now.UnixMilli(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []outboundRow
	for rows.Next() {
		var r outboundRow
		var payload string
		if err := rows.Scan(&r.ID, &r.Channel, &payload, &r.InboundID, &r.Attempts); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(payload), &r.Out); err != nil {
			return nil, fmt.Errorf("outbound row %d: %w", r.ID, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// nextOutboundAt is when the earliest pending message is due, or false.
func (d db) nextOutboundAt(ctx context.Context) (time.Time, bool) {
	var at sql.NullInt64
	if err := d.sql.QueryRowContext(ctx, `SELECT MIN(next_at) FROM channel_outbound WHERE status = 'pending'`).Scan(&at); err != nil || !at.Valid {
		return time.Time{}, false
	}
	return time.UnixMilli(at.Int64), true
}

func (d db) markSent(ctx context.Context, id int64, messageID string) error {
	_, err := d.exec(ctx, `UPDATE channel_outbound SET status = 'sent', message_id = ?, attempts = attempts + 1, last_error = '', updated_at = ? WHERE id = ?`,
		messageID, time.Now().UnixMilli(), id)
	return err
}

// errNotPending: the row was no longer pending when a send was to begin.
var errNotPending = errors.New("outbound row is no longer pending")

// markSending records, before the network call, that a send is under
// way. It is a write transaction, so on a shared store a gateway that
// lost its lease cannot begin a send its successor also makes; and a row
// found "sending" after a crash was possibly delivered, which
// recoverSending settles without sending it twice.
func (d db) markSending(ctx context.Context, id int64) error {
	return d.tx(ctx, func(c store.Conn) error {
		res, err := c.ExecContext(ctx, `UPDATE channel_outbound SET status = 'sending', updated_at = ? WHERE id = ? AND status = 'pending'`, time.Now().UnixMilli(), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return errNotPending
		}
		return nil
	})
}

// sendingUnknown is what a row left "sending" by a gateway that died says.
const sendingUnknown = "delivery unknown: the gateway stopped while sending it; not sent again, so that it is never sent twice"

// recoverSending settles the sends the last gateway left under way: the
// network may or may not have delivered them, and it has no way to ask
// (Telegram and Slack take no idempotency key), so they are marked
// "unknown" rather than sent a second time.
func (d db) recoverSending(ctx context.Context) (int64, error) {
	res, err := d.exec(ctx, `UPDATE channel_outbound SET status = 'unknown', last_error = ?, updated_at = ? WHERE status = 'sending'`, sendingUnknown, time.Now().UnixMilli())
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (d db) markRetry(ctx context.Context, id int64, next time.Time, lastErr string) error {
	_, err := d.exec(ctx, `UPDATE channel_outbound SET status = 'pending', attempts = attempts + 1, next_at = ?, last_error = ?, updated_at = ? WHERE id = ?`,
		next.UnixMilli(), lastErr, time.Now().UnixMilli(), id)
	return err
}

func (d db) markFailed(ctx context.Context, id int64, lastErr string) error {
	_, err := d.exec(ctx, `UPDATE channel_outbound SET status = 'failed', attempts = attempts + 1, last_error = ?, updated_at = ? WHERE id = ?`,
		lastErr, time.Now().UnixMilli(), id)
	return err
}

// Route is where a session's conversation lives.
type Route struct {
	Channel   string
	AccountID string
	ChatID    string
	ChatKind  ChatKind
	ThreadID  string
}

func (d db) setRoute(ctx context.Context, sessionKey string, r Route) error {
	_, err := d.exec(ctx, `INSERT INTO channel_session_routes (session_key, channel, account_id, chat_id, chat_kind, thread_id, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_key) DO UPDATE SET channel = excluded.channel, account_id = excluded.account_id,
		chat_id = excluded.chat_id, chat_kind = excluded.chat_kind, thread_id = excluded.thread_id, updated_at = excluded.updated_at`,
		sessionKey, r.Channel, r.AccountID, r.ChatID, string(r.ChatKind), r.ThreadID, time.Now().UnixMilli())
	return err
}

// route returns the chat a session belongs to; ok is false for sessions
// that did not come from a channel.
func (d db) route(ctx context.Context, sessionKey string) (r Route, ok bool, err error) {
	var kind string
	err = d.sql.QueryRowContext(ctx, `SELECT channel, account_id, chat_id, chat_kind, thread_id FROM channel_session_routes WHERE session_key = ?`, sessionKey).
		Scan(&r.Channel, &r.AccountID, &r.ChatID, &kind, &r.ThreadID)
	if errors.Is(err, sql.ErrNoRows) {
		return Route{}, false, nil
	}
	r.ChatKind = ChatKind(kind)
	return r, err == nil, err
}

// lastRoute returns the chat an agent's sessions talked in most
// recently (OpenClaw's "last" delivery target).
func (d db) lastRoute(ctx context.Context, agentID string) (r Route, ok bool, err error) {
	prefix := "agent:" + strings.ToLower(agentID) + ":"
	var kind string
	err = d.sql.QueryRowContext(ctx, `SELECT channel, account_id, chat_id, chat_kind, thread_id FROM channel_session_routes
		WHERE substr(session_key, 1, ?) = ? ORDER BY updated_at DESC, rowid DESC LIMIT 1`, len(prefix), prefix).
		Scan(&r.Channel, &r.AccountID, &r.ChatID, &kind, &r.ThreadID)
	if errors.Is(err, sql.ErrNoRows) {
		return Route{}, false, nil
	}
	r.ChatKind = ChatKind(kind)
	return r, err == nil, err
}
