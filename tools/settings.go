package tools

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Settings are the operator's per-tool overrides: a disabled tool is
// hidden from every model, and the tier decides how it is disclosed. They
// persist in the database and are cached in memory; safe for concurrent use.
type Settings struct {
	db *sql.DB

	mu      sync.RWMutex
	enabled map[string]bool
	tier    map[string]Tier
}

// LoadSettings reads the overrides.
func LoadSettings(ctx context.Context, db *sql.DB) (*Settings, error) {
	s := &Settings{db: db, enabled: map[string]bool{}, tier: map[string]Tier{}}
	rows, err := db.QueryContext(ctx, `SELECT name, enabled, tier FROM tool_settings`)
	if err != nil {
		return nil, fmt.Errorf("load tool settings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var en sql.NullInt64
		var tier sql.NullString
		if err := rows.Scan(&name, &en, &tier); err != nil {
			return nil, fmt.Errorf("load tool settings: %w", err)
		}
		if en.Valid {
			s.enabled[name] = en.Int64 != 0
		}
		if tier.Valid {
			s.tier[name] = Tier(tier.String)
		}
	}
	return s, rows.Err()
}

// Enabled reports whether a tool is enabled (default yes).
func (s *Settings) Enabled(name string) bool {
	if s == nil {
		return true
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	en, ok := s.enabled[strings.ToLower(name)]
	return !ok || en
}

// Tier returns the tool's tier: the override, else what it declares, else core.
func (s *Settings) Tier(spec Spec) Tier {
	if s != nil {
		s.mu.RLock()
		t, ok := s.tier[strings.ToLower(spec.Name)]
		s.mu.RUnlock()
		if ok {
			return t
		}
	}
	if spec.Tier == "" {
		return TierCore
	}
	return spec.Tier
}

// SetEnabled persists an enabled override.
func (s *Settings) SetEnabled(ctx context.Context, name string, enabled bool) error {
	name = strings.ToLower(name)
	if _, err := s.db.ExecContext(ctx, `INSERT INTO tool_settings(name, enabled, updated_at) VALUES (?,?,?)
		ON CONFLICT(name) DO UPDATE SET enabled=excluded.enabled, updated_at=excluded.updated_at`, name, enabled, time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("save tool setting: %w", err)
	}
	s.mu.Lock()
	s.enabled[name] = enabled
	s.mu.Unlock()
	return nil
}

// SetTier persists a tier override.
func (s *Settings) SetTier(ctx context.Context, name string, tier Tier) error {
	if tier != TierCore && tier != TierExtension {
		return fmt.Errorf("tier %q is not core or extension", tier)
	}
	name = strings.ToLower(name)
	if _, err := s.db.ExecContext(ctx, `INSERT INTO tool_settings(name, tier, updated_at) VALUES (?,?,?)
		ON CONFLICT(name) DO UPDATE SET tier=excluded.tier, updated_at=excluded.updated_at`, name, string(tier), time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("save tool setting: %w", err)
	}
	s.mu.Lock()
	s.tier[name] = tier
	s.mu.Unlock()
	return nil
}
