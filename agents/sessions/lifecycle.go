package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Patch changes a session's settings. Nil fields are left alone; a pointer
// to "" clears a string setting (the RPC's null).
type Patch struct {
	Label           *string
	DisplayName     *string
	Model           *string
	Thinking        *string
	Verbose         *string // on, full, off or "" (the default)
	SendPolicy      *string // allow, deny or "" (inherit)
	GroupActivation *string // mention, always or ""
	Archived        *bool
	Pinned          *bool
	Origin          *Origin
}

// Patch applies p to the session with the given key and returns the
// result. It does not touch UpdatedAt, which tracks activity.
func (s *Store) Patch(ctx context.Context, key string, p Patch) (*Session, error) {
	k, err := Parse(key)
	if err != nil {
		return nil, err
	}
	if err := checkValues(deref(p.Label), deref(p.SendPolicy), deref(p.GroupActivation)); err != nil {
		return nil, err
	}
	if !ValidVerbose(deref(p.Verbose)) {
		return nil, fmt.Errorf("%w: verbose level %q (want on, full or off)", ErrInvalid, deref(p.Verbose))
	}
	var sess *Session
	err = s.write(ctx, func(tx conn) error {
		cur, err := s.get(ctx, tx, `key=?`, k.Raw)
		if err != nil {
			return err
		}
		var sets []string
		var args []any
		set := func(col string, v any) {
			sets = append(sets, col+"=?")
			args = append(args, v)
		}
		if p.Label != nil {
			if err := labelFree(ctx, tx, cur.AgentID, *p.Label, k.Raw); err != nil {
				return err
			}
			set("label", *p.Label)
		}
		for col, v := range map[string]*string{"display_name": p.DisplayName, "model_override": p.Model,
			"thinking_level": p.Thinking, "verbose_level": p.Verbose, "send_policy": p.SendPolicy, "group_activation": p.GroupActivation} {
			if v != nil {
				set(col, *v)
			}
		}
		now := s.now().UnixMilli()
		if p.Archived != nil {
			set("archived_at", flagTime(*p.Archived, cur.ArchivedAt, now))
		}
		if p.Pinned != nil {
			set("pinned_at", flagTime(*p.Pinned, cur.PinnedAt, now))
		}
		if p.Origin != nil {
			b, _ := json.Marshal(p.Origin)
			set("origin", string(b))
		}
		if len(sets) > 0 {
			args = append(args, k.Raw)
			if _, err := tx.ExecContext(ctx, `UPDATE sessions SET `+strings.Join(sets, ", ")+` WHERE key=?`, args...); err != nil {
				return err
			}
		}
		sess, err = s.get(ctx, tx, `key=?`, k.Raw)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("patch session %q: %w", k.Raw, err)
	}
	return sess, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// flagTime keeps the time a flag was first set, or clears it.
func flagTime(on bool, was time.Time, now int64) int64 {
	switch {
	case !on:
		return 0
	case !was.IsZero():
		return was.UnixMilli()
	}
	return now
}

// Reset starts a new transcript for the key: the session gets a new
// SessionID and zeroed counters and keeps its settings. The old transcript
// stays readable by the old id (Session.PreviousID, Past). reason is
// recorded (new, reset, daily, idle, ...).
func (s *Store) Reset(ctx context.Context, key, reason string) (*Session, error) {
	k, err := Parse(key)
	if err != nil {
		return nil, err
	}
	var sess *Session
	err = s.write(ctx, func(tx conn) error {
		cur, err := s.get(ctx, tx, `key=?`, k.Raw)
		if err != nil {
			return err
		}
		now := s.now().UnixMilli()
		if err := retire(ctx, tx, cur, now, reason); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET session_id=?, previous_session_id=?, started_at=?,
			updated_at=?, last_reset_at=?, last_message_at=0, input_tokens=0, output_tokens=0, message_count=0,
			compaction_count=0 WHERE key=?`, uuid.NewString(), cur.SessionID, now, now, now, k.Raw); err != nil {
			return err
		}
		sess, err = s.get(ctx, tx, `key=?`, k.Raw)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reset session %q: %w", k.Raw, err)
	}
	s.log.Info("session reset", "session", k.Raw, "reason", reason,
		"previousSessionId", sess.PreviousID, "sessionId", sess.SessionID)
	return sess, nil
}

func retire(ctx context.Context, tx conn, cur *Session, now int64, reason string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO retired_sessions (session_id, key, agent_id, started_at, retired_at, reason)
		VALUES (?,?,?,?,?,?)`, cur.SessionID, cur.Key, cur.AgentID, cur.StartedAt.UnixMilli(), now, reason)
	return err
}

// Delete removes the session with the given key and reports whether there
// was one. Without deleteTranscript its transcripts stay, readable by id;
// with it, the transcripts of every id the key has had are deleted too.
func (s *Store) Delete(ctx context.Context, key string, deleteTranscript bool) (bool, error) {
	k, err := Parse(key)
	if err != nil {
		return false, err
	}
	deleted := false
	err = s.write(ctx, func(tx conn) error {
		cur, err := s.get(ctx, tx, `key=?`, k.Raw)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		deleted = true
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE key=?`, k.Raw); err != nil {
			return err
		}
		if !deleteTranscript {
			return retire(ctx, tx, cur, s.now().UnixMilli(), "deleted")
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM transcript_messages WHERE session_id=?
			OR session_id IN (SELECT session_id FROM retired_sessions WHERE key=?)`, cur.SessionID, k.Raw); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM retired_sessions WHERE key=?`, k.Raw)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("delete session %q: %w", k.Raw, err)
	}
	if deleted {
		s.log.Info("session deleted", "session", k.Raw, "transcript", deleteTranscript)
	}
	return deleted, nil
}

// PastSession is a session id a key used before: retired by a reset, or
// kept after the key was deleted.
type PastSession struct {
	SessionID string    `json:"sessionId"`
	Key       string    `json:"key"`
	AgentID   string    `json:"agentId"`
	StartedAt time.Time `json:"startedAt"`
	RetiredAt time.Time `json:"retiredAt"`
	Reason    string    `json:"reason,omitempty"`
}

// Past lists the session ids the key used before, newest first.
func (s *Store) Past(ctx context.Context, key string) ([]PastSession, error) {
	k, err := Parse(key)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT session_id, key, agent_id, started_at, retired_at, reason
		FROM retired_sessions WHERE key=? ORDER BY retired_at DESC, rowid DESC`, k.Raw)
	if err != nil {
		return nil, fmt.Errorf("list past sessions of %q: %w", k.Raw, err)
	}
	defer rows.Close()
	var out []PastSession
	for rows.Next() {
		var p PastSession
		var started, retired int64
		if err := rows.Scan(&p.SessionID, &p.Key, &p.AgentID, &started, &retired, &p.Reason); err != nil {
			return nil, fmt.Errorf("list past sessions of %q: %w", k.Raw, err)
		}
		p.StartedAt, p.RetiredAt = msTime(started), msTime(retired)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list past sessions of %q: %w", k.Raw, err)
	}
	return out, nil
}

// ValidVerbose says whether v is a verbose level a session may keep: on,
// full, off, or "" for the default.
func ValidVerbose(v string) bool {
	switch v {
	case "", "on", "full", "off":
		return true
	}
	return false
}
