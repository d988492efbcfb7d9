package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Message roles.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool" // a tool result; ToolCallID names its call
	RoleSystem    = "system"
)

// ToolCall is a tool call made by an assistant message.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Usage is a model call's token count.
type Usage struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// Message is one transcript entry. Its JSON (without Seq) is what the
// store keeps, so fields may be added but never renamed.
type Message struct {
	// Seq numbers the messages of a session id from 1; the store sets it.
	Seq  int64  `json:"seq,omitempty"`
	Role string `json:"role"`
	Text string `json:"text,omitempty"`
	// ToolCalls are an assistant message's calls; a RoleTool message
	// answers one, named by ToolCallID and ToolName.
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
	ToolName   string     `json:"toolName,omitempty"`
	IsError    bool       `json:"isError,omitempty"`
	Provider   string     `json:"provider,omitempty"`
	Model      string     `json:"model,omitempty"`
	Usage      Usage      `json:"usage,omitzero"`
	StopReason string     `json:"stopReason,omitempty"`
	RunID      string     `json:"runId,omitempty"`
	// Summary marks a compaction summary (a system message) covering the
	// messages up to SummaryThrough.
	Summary        bool  `json:"summary,omitempty"`
	SummaryThrough int64 `json:"summaryThrough,omitempty"`
	// Ts is when the message was made; Append sets it if zero.
	Ts time.Time `json:"ts"`
}

func validRole(r string) bool {
	return r == RoleUser || r == RoleAssistant || r == RoleTool || r == RoleSystem
}

// Append adds msgs to the transcript of sessionID in one transaction,
// numbering them after the last seq, and updates the session's counters,
// token totals, UpdatedAt and LastMessageAt. It returns after the commit.
// A session id retired by a reset still takes messages (a run that
// started before the reset finishes into its own transcript), without
// touching any session row.
func (s *Store) Append(ctx context.Context, sessionID string, msgs ...Message) error {
	_, err := s.appendMsgs(ctx, sessionID, msgs, 0, nil)
	return err
}

// AppendMessage is Append for one message; it returns the message's seq.
func (s *Store) AppendMessage(ctx context.Context, sessionID string, m Message) (int64, error) {
	return s.appendMsgs(ctx, sessionID, []Message{m}, 0, nil)
}

// AppendSummary records a compaction summary of the messages up to and
// including throughSeq, as a system message. The transcript is kept whole;
// Context starts from the latest summary.
func (s *Store) AppendSummary(ctx context.Context, sessionID, summary string, throughSeq int64) error {
	if throughSeq < 1 {
		return fmt.Errorf("append summary to %s: %w: through seq %d", sessionID, ErrInvalid, throughSeq)
	}
	m := Message{Role: RoleSystem, Text: summary, Summary: true, SummaryThrough: throughSeq}
	_, err := s.appendMsgs(ctx, sessionID, []Message{m}, throughSeq, nil)
	return err
}

// appendMsgs appends; through > 0 marks a summary that must not reach
// past the transcript's end. also, when set, writes in the same
// transaction.
func (s *Store) appendMsgs(ctx context.Context, sessionID string, msgs []Message, through int64, also func(c conn) error) (int64, error) {
	if len(msgs) == 0 {
		return 0, nil
	}
	now := s.now()
	rows := make([][]byte, len(msgs))
	var in, out, lastAt int64
	for i, m := range msgs {
		if !validRole(m.Role) {
			return 0, fmt.Errorf("append to %s: %w: role %q", sessionID, ErrInvalid, m.Role)
		}
		if m.Ts.IsZero() {
			m.Ts = now
		}
		m.Seq = 0
		b, err := json.Marshal(m)
		if err != nil {
			return 0, fmt.Errorf("append to %s: encode message: %w", sessionID, err)
		}
		rows[i] = b
		in, out = in+m.Usage.Input, out+m.Usage.Output
		lastAt = max(lastAt, m.Ts.UnixMilli())
	}
	var last int64
	err := s.write(ctx, func(c conn) error {
		var err error
		if through > 0 {
			err = s.countSummary(ctx, c, sessionID, int64(len(msgs)))
		} else {
			err = s.countMessages(ctx, c, sessionID, int64(len(msgs)), in, out, lastAt)
		}
		if err != nil {
			return err
		}
		if err := c.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM transcript_messages WHERE session_id=?`,
			sessionID).Scan(&last); err != nil {
			return err
		}
		if through > last {
			return fmt.Errorf("%w: summary through seq %d past the last message %d", ErrInvalid, through, last)
		}
		for i, b := range rows {
			last++
			var summary any
			if through > 0 {
				summary = through
			}
			if _, err := c.ExecContext(ctx, `INSERT INTO transcript_messages (session_id, seq, role, content,
				summary_through, created_at) VALUES (?,?,?,?,?,?)`, sessionID, last, msgs[i].Role, string(b),
				summary, now.UnixMilli()); err != nil {
				return err
			}
		}
		if also != nil {
			return also(c)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("append to %s: %w", sessionID, err)
	}
	return last, nil
}

// countMessages updates the session row for n new messages. It runs first
// in the transaction so the write lock is taken before seq is read.
func (s *Store) countMessages(ctx context.Context, c conn, sessionID string, n, in, out, lastAt int64) error {
	res, err := c.ExecContext(ctx, `UPDATE sessions SET message_count=message_count+?, input_tokens=input_tokens+?,
		output_tokens=output_tokens+?, updated_at=?, last_message_at=MAX(last_message_at, ?) WHERE session_id=?`,
		n, in, out, s.now().UnixMilli(), lastAt, sessionID)
	if err != nil {
		return err
	}
	return mustExist(ctx, c, res, sessionID)
}

// countSummary updates the session row for a summary: a compaction, not
// activity, so UpdatedAt and LastMessageAt stay.
func (s *Store) countSummary(ctx context.Context, c conn, sessionID string, n int64) error {
	res, err := c.ExecContext(ctx, `UPDATE sessions SET message_count=message_count+?,
		compaction_count=compaction_count+1 WHERE session_id=?`, n, sessionID)
	if err != nil {
		return err
	}
	return mustExist(ctx, c, res, sessionID)
}

// mustExist accepts an update of no row only for a retired session id.
func mustExist(ctx context.Context, c conn, res sql.Result, sessionID string) error {
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return err
	}
	var one int
	err := c.QueryRowContext(ctx, `SELECT 1 FROM retired_sessions WHERE session_id=?`, sessionID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("session id %s: %w", sessionID, ErrNotFound)
	}
	return err
}

// History defaults and limits.
const (
	DefaultHistoryLimit = 200
	MaxHistoryLimit     = 1000
)

// HistoryQuery selects messages by seq. Zero bounds are open.
type HistoryQuery struct {
	// Limit is at most MaxHistoryLimit; 0 means DefaultHistoryLimit.
	Limit int
	// BeforeSeq and AfterSeq bound seq exclusively.
	BeforeSeq int64
	AfterSeq  int64
}

// History returns up to q.Limit messages of sessionID with AfterSeq < seq <
// BeforeSeq, in ascending seq. When more match, it keeps the newest,
// except when only AfterSeq is set: then it keeps the oldest, so a reader
// that passes the last seq it saw pages forward without gaps.
func (s *Store) History(ctx context.Context, sessionID string, q HistoryQuery) ([]Message, error) {
	limit := q.Limit
	switch {
	case limit <= 0:
		limit = DefaultHistoryLimit
	case limit > MaxHistoryLimit:
		limit = MaxHistoryLimit
	}
	query := `SELECT seq, role, content, summary_through FROM transcript_messages WHERE session_id=?`
	args := []any{sessionID}
	if q.AfterSeq > 0 {
		query += ` AND seq > ?`
		args = append(args, q.AfterSeq)
	}
	if q.BeforeSeq > 0 {
		query += ` AND seq < ?`
		args = append(args, q.BeforeSeq)
	}
	forward := q.AfterSeq > 0 && q.BeforeSeq <= 0
	if forward {
		query += ` ORDER BY seq LIMIT ?`
	} else {
		query += ` ORDER BY seq DESC LIMIT ?`
	}
	msgs, err := s.messages(ctx, query, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("read history of %s: %w", sessionID, err)
	}
	if !forward {
		slices.Reverse(msgs)
	}
	return msgs, nil
}

// Count returns how many messages the transcript of sessionID holds; as
// seq has no gaps, it is also the last seq.
func (s *Store) Count(ctx context.Context, sessionID string) (int64, error) {
	var n int64
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM transcript_messages WHERE session_id=?`, sessionID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count messages of %s: %w", sessionID, err)
	}
	return n, nil
}

// Context returns what a model should see of sessionID: the latest
// compaction summary (a system message), then the messages after the seq
// it covers, without older summaries. With no summary it is the whole
// transcript.
func (s *Store) Context(ctx context.Context, sessionID string) ([]Message, error) {
	summary, err := s.messages(ctx, `SELECT seq, role, content, summary_through FROM transcript_messages
		WHERE session_id=? AND summary_through IS NOT NULL ORDER BY seq DESC LIMIT 1`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("read context of %s: %w", sessionID, err)
	}
	var after int64
	if len(summary) == 1 {
		after = summary[0].SummaryThrough
	}
	rest, err := s.messages(ctx, `SELECT seq, role, content, summary_through FROM transcript_messages
		WHERE session_id=? AND seq > ? AND summary_through IS NULL ORDER BY seq`, sessionID, after)
	if err != nil {
		return nil, fmt.Errorf("read context of %s: %w", sessionID, err)
	}
	return append(summary, rest...), nil
}

func (s *Store) messages(ctx context.Context, query string, args ...any) ([]Message, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Message{}
	for rows.Next() {
		var m Message
		var seq int64
		var role, content string
		var through sql.NullInt64
		if err := rows.Scan(&seq, &role, &content, &through); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(content), &m); err != nil {
			return nil, fmt.Errorf("decode message %d: %w", seq, err)
		}
		m.Seq, m.Role = seq, role
		m.Summary, m.SummaryThrough = through.Valid, through.Int64
		out = append(out, m)
	}
	return out, rows.Err()
}

// HasUserMessage reports whether the transcript of sessionID holds a user
// message of runID: a run started again after a restart finds its message
// already stored and must not store it twice.
func (s *Store) HasUserMessage(ctx context.Context, sessionID, runID string) (bool, error) {
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM transcript_messages WHERE session_id = ? AND role = 'user'
		AND json_extract(content, '$.runId') = ? LIMIT 1`, sessionID, runID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}
