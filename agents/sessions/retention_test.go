package sessions

import (
	"context"
	"slices"
	"testing"
	"time"
)

func TestSweepRetiredCron(t *testing.T) {
	day := 24 * time.Hour
	type retired struct {
		id, key  string
		age      time.Duration
		accepted bool // a run still names the session
	}
	tests := []struct {
		name        string
		rows        []retired
		maxAge      time.Duration
		limit       int
		wantDeleted int
		wantLeft    []string
	}{
		{
			name: "old cron runs go; young ones, other kinds and a named session stay",
			rows: []retired{
				{"c1", "agent:main:cron:job1", 2 * day, false},
				{"c2", "cron:job2", 2 * day, false},
				{"c3", "agent:main:cron:job1", time.Hour, false},
				{"c4", "agent:main:cron:job1", 300 * day, true},
				{"m1", "agent:main:main", 300 * day, false},
				{"s1", "agent:main:subagent:5b1c", 300 * day, false},
			},
			maxAge: day, limit: 100, wantDeleted: 2,
			wantLeft: []string{"c3", "c4", "m1", "s1"},
		},
		{
			name: "stops at the batch size, oldest first",
			rows: []retired{
				{"c1", "agent:main:cron:j", 4 * day, false},
				{"c2", "agent:main:cron:j", 3 * day, false},
				{"c3", "agent:main:cron:j", 2 * day, false},
			},
			maxAge: day, limit: 2, wantDeleted: 2,
			wantLeft: []string{"c3"},
		},
		{
			name:   "a retention of 0 keeps them",
			rows:   []retired{{"c1", "agent:main:cron:j", 400 * day, false}},
			maxAge: 0, limit: 100, wantDeleted: 0,
			wantLeft: []string{"c1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, clk := newTestStore(t)
			now := clk.Now()
			for _, r := range tt.rows {
				at := now.Add(-r.age).UnixMilli()
				if _, err := s.db.Exec(`INSERT INTO retired_sessions (session_id, key, agent_id, started_at, retired_at) VALUES (?, ?, 'main', ?, ?)`,
					r.id, r.key, at, at); err != nil {
					t.Fatal(err)
				}
				if _, err := s.db.Exec(`INSERT INTO transcript_messages (session_id, seq, role, content, created_at) VALUES (?, 1, 'user', '{}', ?)`,
					r.id, at); err != nil {
					t.Fatal(err)
				}
				if r.accepted {
					if _, err := s.db.Exec(`INSERT INTO accepted_runs (run_id, session_key, session_id, agent_id, accepted_at) VALUES (?, ?, ?, 'main', ?)`,
						"run-"+r.id, r.key, r.id, at); err != nil {
						t.Fatal(err)
					}
				}
			}
			n, err := s.SweepRetiredCron(context.Background(), now, tt.maxAge, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if n != tt.wantDeleted {
				t.Errorf("deleted %d, want %d", n, tt.wantDeleted)
			}
			for _, q := range []string{`SELECT session_id FROM retired_sessions ORDER BY session_id`,
				`SELECT session_id FROM transcript_messages ORDER BY session_id`} {
				rows, err := s.db.Query(q)
				if err != nil {
					t.Fatal(err)
				}
				var left []string
				for rows.Next() {
					var id string
					if err := rows.Scan(&id); err != nil {
						t.Fatal(err)
					}
					left = append(left, id)
				}
				rows.Close()
				if !slices.Equal(left, tt.wantLeft) {
					t.Errorf("%s: left %v, want %v", q, left, tt.wantLeft)
				}
			}
		})
	}
}
