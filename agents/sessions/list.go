package sessions

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// ListFilter selects sessions for List. Zero fields select everything
// except the global and unknown keys.
type ListFilter struct {
	AgentID string
	// ActiveMinutes keeps sessions updated within that many minutes.
	ActiveMinutes int
	// Search keeps sessions whose key, label or display name contains it
	// (case-insensitive for ASCII).
	Search string
	// Label keeps the session with exactly that label.
	Label string
	// Archived: nil keeps both, true only archived, false only unarchived.
	Archived *bool
	// SpawnedBy keeps the sub-agent sessions of that parent key.
	SpawnedBy string
	// Kinds keeps sessions whose key is of one of these kinds.
	Kinds []Kind
	// IncludeGlobal and IncludeUnknown keep the special keys.
	IncludeGlobal  bool
	IncludeUnknown bool
	// Limit caps the page (0 = no cap); Offset skips that many first.
	Limit  int
	Offset int
}

// List returns the sessions f selects, most recently updated first (ties
// by key), and how many there are without Limit and Offset.
func (s *Store) List(ctx context.Context, f ListFilter) ([]Session, int, error) {
	where, args := f.where(s.now())
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions`+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count sessions: %w", err)
	}
	q := `SELECT ` + sessionCols + ` FROM sessions` + where + ` ORDER BY updated_at DESC, key`
	if f.Limit > 0 || f.Offset > 0 {
		limit := f.Limit
		if limit <= 0 {
			limit = -1 // SQLite: no limit
		}
		q += ` LIMIT ? OFFSET ?`
		args = append(args, limit, max(f.Offset, 0))
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	out := []Session{}
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, *sess)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list sessions: %w", err)
	}
	return out, total, nil
}

func (f ListFilter) where(now time.Time) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, a ...any) {
		conds = append(conds, cond)
		args = append(args, a...)
	}
	if !f.IncludeGlobal {
		add(`kind <> 'global'`)
	}
	if !f.IncludeUnknown {
		add(`kind <> 'unknown'`)
	}
	if f.AgentID != "" {
		add(`agent_id = ?`, strings.ToLower(strings.TrimSpace(f.AgentID)))
	}
	if f.ActiveMinutes > 0 {
		add(`updated_at >= ?`, now.Add(-time.Duration(f.ActiveMinutes)*time.Minute).UnixMilli())
	}
	if f.Search != "" {
		pat := "%" + likeEscaper.Replace(f.Search) + "%"
		add(`(key LIKE ? ESCAPE '\' OR label LIKE ? ESCAPE '\' OR display_name LIKE ? ESCAPE '\')`, pat, pat, pat)
	}
	if f.Label != "" {
		add(`label = ?`, f.Label)
	}
	if f.Archived != nil {
		if *f.Archived {
			add(`archived_at <> 0`)
		} else {
			add(`archived_at = 0`)
		}
	}
	if f.SpawnedBy != "" {
		parent := f.SpawnedBy
		if k, err := Parse(parent); err == nil {
			parent = k.Raw
		}
		add(`spawned_by = ?`, parent)
	}
	if len(f.Kinds) > 0 {
		marks := strings.TrimSuffix(strings.Repeat("?,", len(f.Kinds)), ",")
		kinds := make([]any, len(f.Kinds))
		for i, k := range f.Kinds {
			kinds[i] = string(k)
		}
		add(`kind IN (`+marks+`)`, kinds...)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return ` WHERE ` + strings.Join(conds, " AND "), args
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
