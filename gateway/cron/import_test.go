package cron

import (
	"context"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
	"strings"
	"testing"
	"time"
)

// TestImportJob: a job from another install keeps its id, state and
// runs; a one-shot whose time passed while nothing ran is still taken
// (catch-up decides at start), what cannot run here is refused saying
// why, and a second import changes nothing.
func TestImportJob(t *testing.T) {
	ctx := context.Background()
	now := time.UnixMilli(1796187955027)
	st := storetest.Open(t, Migrations())
	next := now.Add(time.Hour).UnixMilli()
	tests := []struct {
		name    string
		job     Job
		refused string
	}{
		{"agent turn", Job{ID: "j1", Name: "news", Enabled: true, CreatedAtMs: now.UnixMilli(), Schedule: Schedule{Kind: KindCron, Expr: "0 9 * * *", TZ: "Europe/Berlin"},
			SessionTarget: TargetIsolated, WakeMode: WakeNow, Payload: Payload{Kind: PayloadAgentTurn, Message: "summarize"},
			State: State{NextRunAtMs: &next}}, ""},
		{"one-shot due while moving", Job{ID: "j2", Name: "remind", Enabled: true, CreatedAtMs: 1, Schedule: Schedule{Kind: KindAt, At: "2026-01-05T10:00:00Z"},
			SessionTarget: TargetMain, WakeMode: WakeNow, Payload: Payload{Kind: PayloadSystemEvent, Text: "stand up"}}, ""},
		{"command payload", Job{ID: "j3", Name: "sh", Schedule: Schedule{Kind: KindEvery, EveryMs: 60000},
			SessionTarget: TargetIsolated, WakeMode: WakeNow, Payload: Payload{Kind: "command"}}, "not supported"},
		{"heartbeat", Job{ID: "j4", Name: "hb", Schedule: Schedule{Kind: KindEvery, EveryMs: 60000},
			SessionTarget: TargetMain, WakeMode: WakeNow, Payload: Payload{Kind: PayloadHeartbeat}}, "heartbeat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := []RunEntry{{TS: 2, RunID: "r-" + tt.job.ID, Status: StatusOK, RunAtMs: 1, Summary: "done"}}
			ok, err := ImportJob(ctx, st.DB, tt.job, runs, now)
			if tt.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tt.refused) {
					t.Fatalf("import: %v, want a refusal naming %q", err, tt.refused)
				}
				return
			}
			if err != nil || !ok {
				t.Fatalf("import: %v %v", ok, err)
			}
			if again, err := ImportJob(ctx, st.DB, tt.job, runs, now); err != nil || again {
				t.Fatalf("second import: %v %v", again, err)
			}
			if known, _ := JobKnown(ctx, st.DB, tt.job.ID); !known {
				t.Fatal("job not known after import")
			}
			var n int
			if err := st.DB.QueryRow(`SELECT count(*) FROM cron_runs WHERE job_id = ? AND status = 'ok'`, tt.job.ID).Scan(&n); err != nil || n != 1 {
				t.Fatalf("runs: %d %v", n, err)
			}
		})
	}
	jobs, _, err := (&db{sql: st.DB}).loadJobs(ctx)
	if err != nil || len(jobs) != 2 || jobs[1].State.NextRunAtMs == nil || *jobs[1].State.NextRunAtMs != next {
		t.Fatalf("loaded jobs %+v %v", jobs, err)
	}
}
