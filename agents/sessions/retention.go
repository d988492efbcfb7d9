package sessions

import (
	"context"
	"fmt"
	"time"
)

// SweepRetiredCron deletes, with their transcripts, at most limit finished
// runs of cron jobs that have a session of their own (agent:<id>:cron:<job>):
// each run starts the key afresh and retires the last run's session, which
// is disposable automation history (cron.sessionRetention in OpenClaw's
// terms). Only sessions retired longer than maxAge ago go, oldest first,
// and never one a run still names. It says how many it deleted; a caller
// that got limit back calls again until it gets less. maxAge 0 keeps all.
func (s *Store) SweepRetiredCron(ctx context.Context, now time.Time, maxAge time.Duration, limit int) (int, error) {
	if maxAge <= 0 || limit <= 0 {
		return 0, nil
	}
	cutoff := now.Add(-maxAge).UnixMilli()
	// LIKE narrows the scan; Parse has the last word on the kind.
	rows, err := s.db.QueryContext(ctx, `SELECT session_id, key FROM retired_sessions
		WHERE retired_at < ? AND (key LIKE 'cron:%' OR key LIKE 'agent:%:cron:%')
		AND session_id NOT IN (SELECT session_id FROM accepted_runs)
		ORDER BY retired_at, rowid`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("sweep retired cron sessions: %w", err)
	}
	var ids []string
	for rows.Next() && len(ids) < limit {
		var id, key string
		if err := rows.Scan(&id, &key); err != nil {
			rows.Close()
			return 0, fmt.Errorf("sweep retired cron sessions: %w", err)
		}
		if k, err := Parse(key); err == nil && k.Kind == KindCron {
			ids = append(ids, id)
		}
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return 0, fmt.Errorf("sweep retired cron sessions: %w", err)
	}
	deleted := 0
	err = s.write(ctx, func(tx conn) error {
		for _, id := range ids {
			// Checked again under the write lock: a run may have
			// been accepted into the session since the read.
			res, err := tx.ExecContext(ctx, `DELETE FROM retired_sessions WHERE session_id=? AND retired_at < ?
				AND session_id NOT IN (SELECT session_id FROM accepted_runs)`, id, cutoff)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				continue
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM transcript_messages WHERE session_id=?`, id); err != nil {
				return err
			}
			deleted++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("sweep retired cron sessions: %w", err)
	}
	return deleted, nil
}
