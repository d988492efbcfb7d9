package tools

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

func openAudit(t *testing.T) (*SQLAudit, *store.Store) {
	t.Helper()
	st := storetest.Open(t, Migrations())
	return &SQLAudit{DB: st.DB}, st
}

func auditIDs(t *testing.T, st *store.Store, q string) []string {
	t.Helper()
	rows, err := st.DB.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

func TestAuditSweep(t *testing.T) {
	day := 24 * time.Hour
	now := time.UnixMilli(1_800_000_000_000)
	type approval struct {
		id, status string
		age        time.Duration
	}
	tests := []struct {
		name        string
		ages        []time.Duration // one audit entry each, ids from 1
		approvals   []approval
		keep        AuditRetention
		limit       int
		wantDeleted int
		wantAudit   []string
		wantApprove []string
	}{
		{
			name: "entries and decided approvals past the age go, a pending approval stays however old",
			ages: []time.Duration{40 * day, 31 * day, 29 * day, time.Hour},
			approvals: []approval{{"a1", "approved", 40 * day}, {"a2", "denied", 31 * day}, {"a3", "pending", 400 * day},
				{"a4", "expired", 40 * day}, {"a5", "approved", day}},
			keep: AuditRetention{MaxAge: 30 * day}, limit: 100, wantDeleted: 5,
			wantAudit: []string{"3", "4"}, wantApprove: []string{"a3", "a5"},
		},
		{
			name: "stops at the batch size, oldest first",
			ages: []time.Duration{40 * day, 40 * day, 40 * day, 40 * day},
			keep: AuditRetention{MaxAge: 30 * day}, limit: 3, wantDeleted: 3,
			wantAudit: []string{"4"},
		},
		{
			name: "the cap keeps the newest entries",
			ages: []time.Duration{5 * day, 4 * day, 3 * day, 2 * day, day},
			keep: AuditRetention{MaxAge: 30 * day, MaxRows: 2}, limit: 100, wantDeleted: 3,
			wantAudit: []string{"4", "5"},
		},
		{
			name: "nothing set keeps everything",
			ages: []time.Duration{400 * day},
			keep: AuditRetention{}, limit: 100, wantDeleted: 0,
			wantAudit: []string{"1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, st := openAudit(t)
			ctx := context.Background()
			for _, age := range tt.ages {
				a.Audit(ctx, AuditEntry{At: now.Add(-age), Tool: "exec", Decision: "allowed"})
			}
			for _, ap := range tt.approvals {
				at := now.Add(-ap.age).UnixMilli()
				decided := at
				if ap.status == "pending" {
					decided = 0
				}
				if _, err := st.DB.Exec(`INSERT INTO tool_approvals (id, created_at, expires_at, tool, args, status, decided_at)
					VALUES (?, ?, ?, 'exec', '{}', ?, ?)`, ap.id, at, at, ap.status, decided); err != nil {
					t.Fatal(err)
				}
			}
			n, err := a.Sweep(ctx, now, tt.keep, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if n != tt.wantDeleted {
				t.Errorf("deleted %d, want %d", n, tt.wantDeleted)
			}
			if got := auditIDs(t, st, `SELECT CAST(id AS TEXT) FROM tool_audit ORDER BY id`); !slices.Equal(got, tt.wantAudit) {
				t.Errorf("audit left %v, want %v", got, tt.wantAudit)
			}
			if got := auditIDs(t, st, `SELECT id FROM tool_approvals ORDER BY id`); !slices.Equal(got, tt.wantApprove) {
				t.Errorf("approvals left %v, want %v", got, tt.wantApprove)
			}
		})
	}
}

// TestAuditListAppliesRetention: an entry past the retention is not
// listed even while its row is still there.
func TestAuditListAppliesRetention(t *testing.T) {
	a, _ := openAudit(t)
	now := time.UnixMilli(1_800_000_000_000)
	a.Now = func() time.Time { return now }
	a.MaxAge = func() time.Duration { return DefaultAuditMaxAge }
	ctx := context.Background()
	a.Audit(ctx, AuditEntry{At: now.Add(-31 * 24 * time.Hour), Tool: "old", Decision: "allowed"})
	a.Audit(ctx, AuditEntry{At: now.Add(-time.Hour), Tool: "new", Decision: "allowed"})
	for _, q := range []AuditQuery{{}, {After: now.Add(-400 * 24 * time.Hour)}} {
		recs, err := a.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 1 || recs[0].Tool != "new" {
			t.Fatalf("List(%+v) = %v, want only the entry inside 30 days", q, recs)
		}
	}
}
