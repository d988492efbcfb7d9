package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// AcceptedRun is a run an operator client was told was accepted and that
// has not ended: after a crash it is run again, so an acknowledged
// message is answered.
type AcceptedRun struct {
	RunID      string
	SessionKey string
	SessionID  string
	AgentID    string
	// Request is what the caller needs to start the run again (its
	// options, not the message: that is in the transcript).
	Request    json.RawMessage
	AcceptedAt time.Time
}

// AppendAccepted stores a run's user message and records the run as
// accepted, in one transaction: there is no moment at which the message
// is stored but the run forgotten, or the other way round.
func (s *Store) AppendAccepted(ctx context.Context, m Message, run AcceptedRun) (int64, error) {
	if m.RunID != run.RunID {
		return 0, fmt.Errorf("accept run %s: %w: its message belongs to run %q", run.RunID, ErrInvalid, m.RunID)
	}
	req := run.Request
	if len(req) == 0 {
		req = json.RawMessage(`{}`)
	}
	at := run.AcceptedAt
	if at.IsZero() {
		at = s.now()
	}
	return s.appendMsgs(ctx, run.SessionID, []Message{m}, 0, func(c conn) error {
		_, err := c.ExecContext(ctx, `INSERT INTO accepted_runs (run_id, session_key, session_id, agent_id, request, accepted_at)
			VALUES (?,?,?,?,?,?)`, run.RunID, run.SessionKey, run.SessionID, run.AgentID, string(req), at.UnixMilli())
		return err
	})
}

// AcceptedRuns lists the runs recorded as accepted and not ended, in the
// order they were accepted.
func (s *Store) AcceptedRuns(ctx context.Context) ([]AcceptedRun, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, session_key, session_id, agent_id, request, accepted_at
		FROM accepted_runs ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list accepted runs: %w", err)
	}
	defer rows.Close()
	var out []AcceptedRun
	for rows.Next() {
		var r AcceptedRun
		var req string
		var at int64
		if err := rows.Scan(&r.RunID, &r.SessionKey, &r.SessionID, &r.AgentID, &req, &at); err != nil {
			return nil, fmt.Errorf("list accepted runs: %w", err)
		}
		r.Request, r.AcceptedAt = json.RawMessage(req), time.UnixMilli(at)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list accepted runs: %w", err)
	}
	return out, nil
}

// EndAccepted forgets an accepted run once it has ended (answered,
// failed, aborted by a person); it is not run again.
func (s *Store) EndAccepted(ctx context.Context, runID string) error {
	err := s.write(ctx, func(c conn) error {
		_, err := c.ExecContext(ctx, `DELETE FROM accepted_runs WHERE run_id=?`, runID)
		return err
	})
	if err != nil {
		return fmt.Errorf("end accepted run %s: %w", runID, err)
	}
	return nil
}

// RunAnswer returns the final answer run runID stored in sessionID's
// transcript: its last assistant message, when that calls no tools. A run
// started again after a restart that finds one was answered already.
func (s *Store) RunAnswer(ctx context.Context, sessionID, runID string) (text string, ok bool, err error) {
	var content string
	err = s.db.QueryRowContext(ctx, `SELECT content FROM transcript_messages WHERE session_id = ? AND role = 'assistant'
		AND json_extract(content, '$.runId') = ? ORDER BY seq DESC LIMIT 1`, sessionID, runID).Scan(&content)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("look up the answer of run %s: %w", runID, err)
	}
	var m Message
	if err := json.Unmarshal([]byte(content), &m); err != nil {
		return "", false, fmt.Errorf("look up the answer of run %s: %w", runID, err)
	}
	if len(m.ToolCalls) > 0 {
		return "", false, nil // it was still working
	}
	return m.Text, true, nil
}
