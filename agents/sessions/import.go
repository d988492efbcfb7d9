package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/store"
)

// ImportedSession is a session carried over from another install
// (openclaw migrate): its key, its current session id and the messages of
// that transcript, oldest first. Times are unix milliseconds.
type ImportedSession struct {
	Key         string
	SessionID   string
	AgentID     string
	Label       string
	DisplayName string
	Model       string // model override, "provider/model"
	Thinking    string
	SpawnedBy   string
	Origin      Origin
	ArchivedAt  int64
	PinnedAt    int64
	CreatedAt   int64
	StartedAt   int64
	UpdatedAt   int64
	Compactions int64
	Messages    []Message
}

// Known reports whether db has a session with that key, or a transcript
// of that session id (current, retired or without a session): then
// Import leaves it alone.
func Known(ctx context.Context, db *sql.DB, key, sessionID string) (bool, error) {
	var one int
	err := db.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE key = ? OR session_id = ?
		UNION ALL SELECT 1 FROM retired_sessions WHERE session_id = ?
		UNION ALL SELECT 1 FROM transcript_messages WHERE session_id = ? LIMIT 1`, key, sessionID, sessionID, sessionID).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("look up session %q: %w", key, err)
	}
	return true, nil
}

// Import creates the session with its transcript in one transaction,
// keeping the other install's session id and times, so the session lists
// where it was and its next turn continues that transcript. A key or
// session id already here is left alone and Import reports false.
func Import(ctx context.Context, db *sql.DB, s ImportedSession) (bool, error) {
	k, err := Parse(s.Key)
	if err != nil {
		return false, fmt.Errorf("import session: %w", err)
	}
	if strings.TrimSpace(s.SessionID) == "" {
		return false, fmt.Errorf("import session %q: %w: no session id", k.Raw, ErrInvalid)
	}
	agent, err := initAgent(k, s.AgentID)
	if err != nil {
		return false, fmt.Errorf("import session %q: %w", k.Raw, err)
	}
	if err := checkValues(s.Label, "", ""); err != nil {
		return false, fmt.Errorf("import session %q: %w", k.Raw, err)
	}
	origin := s.Origin
	if origin == (Origin{}) {
		origin = keyOrigin(k)
	}
	originJSON, _ := json.Marshal(origin)
	spawnedBy, depth := s.SpawnedBy, k.Depth
	if spawnedBy == "" && k.Kind == KindSubagent {
		spawnedBy = k.Parent
	}
	rows := make([][]byte, 0, len(s.Messages))
	var in, out, lastAt, count int64
	for _, m := range s.Messages {
		if !validRole(m.Role) {
			return false, fmt.Errorf("import session %q: %w: role %q", k.Raw, ErrInvalid, m.Role)
		}
		m.Seq = 0
		b, err := json.Marshal(m)
		if err != nil {
			return false, fmt.Errorf("import session %q: encode message: %w", k.Raw, err)
		}
		rows = append(rows, b)
		in, out = in+m.Usage.Input, out+m.Usage.Output
		lastAt = max(lastAt, m.Ts.UnixMilli())
		if !m.Summary {
			count++
		}
	}
	created := s.CreatedAt
	if created == 0 {
		created = s.StartedAt
	}
	started := s.StartedAt
	if started == 0 {
		started = created
	}
	updated := max(s.UpdatedAt, lastAt, started)
	var done bool
	err = store.Immediate(ctx, db, func(tx store.Conn) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE key = ? OR session_id = ?
			UNION ALL SELECT 1 FROM retired_sessions WHERE session_id = ?
			UNION ALL SELECT 1 FROM transcript_messages WHERE session_id = ? LIMIT 1`, k.Raw, s.SessionID, s.SessionID, s.SessionID).Scan(&one)
		if err == nil {
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		label := s.Label
		if label != "" {
			// A label names one session of an agent; a clash keeps ours.
			if labelFree(ctx, tx, agent, label, k.Raw) != nil {
				label = ""
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO sessions (key, session_id, agent_id, kind, label, display_name,
			model_override, thinking_level, archived_at, pinned_at, spawned_by, depth, origin, created_at, started_at,
			updated_at, last_message_at, input_tokens, output_tokens, message_count, compaction_count)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			k.Raw, s.SessionID, agent, string(k.Kind), label, s.DisplayName, s.Model, s.Thinking, s.ArchivedAt, s.PinnedAt,
			spawnedBy, depth, string(originJSON), created, started, updated, lastAt, in, out, count, s.Compactions); err != nil {
			return err
		}
		for i, b := range rows {
			var through any
			if m := s.Messages[i]; m.Summary && m.SummaryThrough > 0 && m.SummaryThrough <= int64(i) {
				through = m.SummaryThrough
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO transcript_messages (session_id, seq, role, content, summary_through, created_at)
				VALUES (?,?,?,?,?,?)`, s.SessionID, i+1, s.Messages[i].Role, string(b), through, s.Messages[i].Ts.UnixMilli()); err != nil {
				return err
			}
		}
		done = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("import session %q: %w", k.Raw, err)
	}
	return done, nil
}
