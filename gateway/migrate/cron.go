package migrate

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/cron"
)

// OpenClaw keeps cron jobs as rows of cron_jobs (job_json is the whole job
// in the wire shape both gateways share, state_json its state) and their
// runs as task_runs rows of runtime 'cron' whose detail_json is the run-log
// entry (kind 'cron-run'), with a receipt per run in cron_run_receipts.
//
// The rule for declared jobs: a job whose declaration_key names one of
// OpenClaw's own features (ownDeclarations) was made by the install, not
// by the user, and is not carried over: heartbeats come from the config
// here, and the memory dreaming and skill reviews are features this
// gateway does not have. A declaration key of any other namespace was
// given by the user (`cron add --declaration-key`), and that job is
// imported like any other.
var ownDeclarations = []string{"heartbeat:", "heartbeat-task:", "memory-core:", "skill-collection-review:", "claw:"}

// maxJobBytes bounds a job's JSON; real ones are a few kilobytes.
const maxJobBytes = 1 << 20

type sourceJob struct {
	job  cron.Job
	runs []cron.RunEntry
}

type cronState struct {
	jobs     []sourceJob
	declared int               // made by OpenClaw itself
	cannot   map[string]string // job name → why it cannot run here
}

func ownDeclared(key string) bool {
	for _, p := range ownDeclarations {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// readCron reads the source's jobs and their runs.
func readCron(ctx context.Context, src *sql.DB, now time.Time) (cronState, error) {
	st := cronState{cannot: map[string]string{}}
	if src == nil {
		return st, nil
	}
	if ok, err := tableExists(ctx, src, "cron_jobs"); err != nil || !ok {
		return st, err
	}
	rows, err := src.QueryContext(ctx, `SELECT job_id, COALESCE(declaration_key, ''), name, payload_kind,
		CASE WHEN length(CAST(job_json AS BLOB)) <= ? THEN job_json ELSE '' END,
		CASE WHEN length(CAST(state_json AS BLOB)) <= ? THEN state_json ELSE '{}' END
		FROM cron_jobs ORDER BY sort_order, updated_at, job_id`, maxJobBytes, maxJobBytes)
	if err != nil {
		return st, fmt.Errorf("migrate: read cron jobs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, decl, name, kind, raw, state string
		if err := rows.Scan(&id, &decl, &name, &kind, &raw, &state); err != nil {
			return st, fmt.Errorf("migrate: read cron jobs: %w", err)
		}
		if ownDeclared(decl) || kind == cron.PayloadHeartbeat {
			st.declared++
			continue
		}
		label := cleanName(name)
		if label == "" {
			label = cleanName(id)
		}
		var j cron.Job
		if raw == "" {
			st.cannot[label] = "its definition is over 1 MiB"
			continue
		}
		if err := json.Unmarshal([]byte(raw), &j); err != nil {
			st.cannot[label] = "its definition does not parse: " + cleanName(err.Error())
			continue
		}
		_ = json.Unmarshal([]byte(state), &j.State)
		j.ID, j.System, j.NextRunAtMs = cleanID(id), false, nil
		j.State.RunningAtMs = nil // nothing runs while it moves
		if j.Name == "" {
			j.Name = strings.TrimSpace(name)
		}
		if err := cron.CheckImport(j, now); err != nil {
			st.cannot[label] = err.Error()
			continue
		}
		st.jobs = append(st.jobs, sourceJob{job: j})
	}
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("migrate: read cron jobs: %w", err)
	}
	rows.Close()
	for i := range st.jobs {
		runs, err := readCronRuns(ctx, src, st.jobs[i].job.ID)
		if err != nil {
			return st, err
		}
		st.jobs[i].runs = runs
	}
	return st, nil
}

// readCronRuns reads a job's finished runs, oldest first: the run-log
// entries of task_runs, and for a receipt without one, what the receipt
// says.
func readCronRuns(ctx context.Context, src *sql.DB, jobID string) ([]cron.RunEntry, error) {
	var out []cron.RunEntry
	seen := map[string]bool{}
	if ok, err := tableExists(ctx, src, "task_runs"); err != nil {
		return nil, err
	} else if ok {
		rows, err := src.QueryContext(ctx, `SELECT detail_json FROM task_runs WHERE runtime = 'cron' AND source_id = ?
			AND detail_json IS NOT NULL AND length(CAST(detail_json AS BLOB)) <= ? ORDER BY COALESCE(ended_at, created_at), task_id`,
			jobID, maxJobBytes)
		if err != nil {
			return nil, fmt.Errorf("migrate: read cron runs: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var raw string
			if err := rows.Scan(&raw); err != nil {
				return nil, fmt.Errorf("migrate: read cron runs: %w", err)
			}
			var e struct {
				cron.RunEntry
				Kind string `json:"kind"`
			}
			if json.Unmarshal([]byte(raw), &e) != nil || e.Kind != "cron-run" || cleanID(e.RunID) == "" || seen[e.RunID] {
				continue
			}
			r := e.RunEntry
			r.JobID, r.Action = jobID, "finished"
			if r.TS == 0 {
				r.TS = r.RunAtMs + r.DurationMs
			}
			if strings.HasPrefix(r.RunID, "manual:") {
				r.Trigger = "manual"
			}
			seen[r.RunID] = true
			out = append(out, r)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("migrate: read cron runs: %w", err)
		}
	}
	if ok, err := tableExists(ctx, src, "cron_run_receipts"); err != nil {
		return nil, err
	} else if ok {
		rows, err := src.QueryContext(ctx, `SELECT receipt_id, COALESCE(request_run_id, ''), status, started_at_ms,
			finished_at_ms, substr(COALESCE(error_text, ''), 1, 4096)
			FROM cron_run_receipts WHERE job_id = ? AND status != 'running' ORDER BY started_at_ms, receipt_id`, jobID)
		if err != nil {
			return nil, fmt.Errorf("migrate: read cron run receipts: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var receipt, runID, status, errText string
			var started, finished int64
			if err := rows.Scan(&receipt, &runID, &status, &started, &finished, &errText); err != nil {
				return nil, fmt.Errorf("migrate: read cron run receipts: %w", err)
			}
			if runID == "" {
				runID = receipt
			}
			if seen[runID] || cleanID(runID) == "" {
				continue
			}
			switch status {
			case cron.StatusOK, cron.StatusError, cron.StatusSkipped:
			default: // interrupted, superseded: it did not finish
				status = cron.StatusError
				if errText == "" {
					errText = "interrupted"
				}
			}
			seen[runID] = true
			out = append(out, cron.RunEntry{TS: finished, JobID: jobID, Action: "finished", Status: status, Error: errText,
				RunID: runID, RunAtMs: started, DurationMs: max(0, finished-started)})
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("migrate: read cron run receipts: %w", err)
		}
	}
	return out, nil
}

func planCron(ctx context.Context, ours *sql.DB, st cronState, now time.Time) ([]Item, error) {
	oursHas, err := oursHasTable(ctx, ours, "cron_jobs")
	if err != nil {
		return nil, err
	}
	var todo []sourceJob
	runs := 0
	for _, j := range st.jobs {
		if oursHas {
			ok, err := cron.JobKnown(ctx, ours, j.job.ID)
			if err != nil {
				return nil, fmt.Errorf("migrate: %w", err)
			}
			if ok {
				continue
			}
		}
		todo = append(todo, j)
		runs += len(j.runs)
	}
	out := splitItems("cron jobs (with their run history)", len(st.jobs), len(todo),
		fmt.Sprintf("%d runs of history; each runs on its schedule here (one missed while moving runs once at start)", runs),
		func(ctx context.Context, db *sql.DB) error {
			for _, j := range todo {
				if _, err := cron.ImportJob(ctx, db, j.job, j.runs, now); err != nil {
					return err
				}
			}
			return nil
		})
	if st.declared > 0 {
		out = append(out, Item{Name: "cron jobs OpenClaw declared itself", Count: st.declared, Action: ActionSkip,
			Note: "heartbeats come from agents.*.heartbeat in the config here; memory dreaming and skill reviews are not features of this gateway"})
	}
	for _, name := range sortedStrings(st.cannot) {
		out = append(out, Item{Name: "cron job " + name, Count: 1, Action: ActionCannot,
			Note: st.cannot[name] + "; add it again with `openclaw cron add`"})
	}
	return out, nil
}

func sortedStrings(m map[string]string) []string {
	n := map[string]int{}
	for k := range m {
		n[k] = 1
	}
	return sortedKeys(n)
}
