package cron

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are this package's tables (component "cron").
func Migrations() store.Migrations {
	return store.FromDir("cron", migrationFiles, "migrations")
}

// Run history is kept this long and at most this many rows a job, as
// OpenClaw keeps it.
const (
	runRetention  = 7 * 24 * time.Hour
	runsPerJobMax = 2000
)

// db wraps the tables. Writes go one at a time through a Go mutex:
// SQLite's busy handler sleeps in whole milliseconds, which a burst of
// job claims would otherwise pay for.
type db struct {
	sql *sql.DB
	mu  sync.Mutex
}

func (d *db) tx(ctx context.Context, fn func(c store.Conn) error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return store.Immediate(ctx, d.sql, fn)
}

// stateRow is a job's state as stored: the wire state plus what only
// the scheduler needs.
type stateRow struct {
	State
	// LastScheduledAtMs is the time the last run was due (not when it
	// started): the night the clocks go back needs it.
	LastScheduledAtMs int64 `json:"lastScheduledAtMs,omitempty"`
}

func marshalJob(j Job) (spec, state []byte, err error) {
	st := j.State
	j.State, j.NextRunAtMs = State{}, nil
	if spec, err = json.Marshal(j); err != nil {
		return nil, nil, err
	}
	state, err = json.Marshal(st)
	return spec, state, err
}

func nullMs(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// saveJob inserts or replaces a job with its state.
func saveJob(ctx context.Context, c store.Conn, j Job, lastScheduled int64) error {
	spec, _, err := marshalJob(j)
	if err != nil {
		return err
	}
	st, err := json.Marshal(stateRow{State: j.State, LastScheduledAtMs: lastScheduled})
	if err != nil {
		return err
	}
	_, err = c.ExecContext(ctx, `INSERT INTO cron_jobs (id, spec, state, next_run_at, system, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET spec = excluded.spec, state = excluded.state,
			next_run_at = excluded.next_run_at, system = excluded.system, updated_at = excluded.updated_at`,
		j.ID, spec, st, nullMs(j.State.NextRunAtMs), j.System, j.CreatedAtMs, j.UpdatedAtMs)
	if err != nil {
		return fmt.Errorf("save cron job %s: %w", j.ID, err)
	}
	return nil
}

func deleteJob(ctx context.Context, c store.Conn, id string) error {
	_, err := c.ExecContext(ctx, `DELETE FROM cron_jobs WHERE id = ?`, id)
	return err
}

// loadJobs reads every job.
func (d *db) loadJobs(ctx context.Context) ([]Job, []int64, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT spec, state FROM cron_jobs ORDER BY created_at, id`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var jobs []Job
	var last []int64
	for rows.Next() {
		var spec, state []byte
		if err := rows.Scan(&spec, &state); err != nil {
			return nil, nil, err
		}
		var j Job
		if err := json.Unmarshal(spec, &j); err != nil {
			return nil, nil, fmt.Errorf("cron job row: %w", err)
		}
		var st stateRow
		if err := json.Unmarshal(state, &st); err != nil {
			return nil, nil, fmt.Errorf("cron job %s state: %w", j.ID, err)
		}
		j.State = st.State
		jobs = append(jobs, j)
		last = append(last, st.LastScheduledAtMs)
	}
	return jobs, last, rows.Err()
}

// RunEntry is one finished run, as cron.runs returns it
// (CronRunLogEntry). Trigger and ScheduledAtMs are ours.
type RunEntry struct {
	TS      int64  `json:"ts"`
	JobID   string `json:"jobId"`
	JobName string `json:"jobName,omitempty"`
	Action  string `json:"action"`
	Status  string `json:"status"`
	// CompletionStatus is succeeded or failed (skipped runs: unknown).
	CompletionStatus string `json:"completionStatus,omitempty"`
	Error            string `json:"error,omitempty"`
	Summary          string `json:"summary,omitempty"`
	Delivered        *bool  `json:"delivered,omitempty"`
	DeliveryStatus   string `json:"deliveryStatus,omitempty"`
	DeliveryError    string `json:"deliveryError,omitempty"`
	SessionID        string `json:"sessionId,omitempty"`
	SessionKey       string `json:"sessionKey,omitempty"`
	RunID            string `json:"runId"`
	RunAtMs          int64  `json:"runAtMs"`
	DurationMs       int64  `json:"durationMs"`
	NextRunAtMs      *int64 `json:"nextRunAtMs,omitempty"`
	Model            string `json:"model,omitempty"`
	Provider         string `json:"provider,omitempty"`
	Usage            *Usage `json:"usage,omitempty"`
	Trigger          string `json:"trigger,omitempty"`
	ScheduledAtMs    int64  `json:"scheduledAtMs,omitempty"`
}

// Usage is a run's token count.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	TotalTokens  int64 `json:"total_tokens"`
}

// startRun writes the "running" row.
func startRun(ctx context.Context, c store.Conn, runID, jobID, trigger string, scheduled, started time.Time) error {
	_, err := c.ExecContext(ctx, `INSERT INTO cron_runs (run_id, job_id, trigger, scheduled_at, started_at, status)
		VALUES (?, ?, ?, ?, ?, 'running')`, runID, jobID, trigger, scheduled.UnixMilli(), started.UnixMilli())
	if err != nil {
		return fmt.Errorf("record cron run %s: %w", runID, err)
	}
	return nil
}

// finishRun stores a run's outcome, inserting the row if the run never
// had a "running" one (a skipped occurrence).
func finishRun(ctx context.Context, c store.Conn, e RunEntry) error {
	if e.CompletionStatus == "" {
		switch e.Status {
		case StatusOK:
			e.CompletionStatus = "succeeded"
		case StatusError:
			e.CompletionStatus = "failed"
		default:
			e.CompletionStatus = "unknown"
		}
	}
	body, err := json.Marshal(e)
	if err != nil {
		return err
	}
	res, err := c.ExecContext(ctx, `UPDATE cron_runs SET ended_at = ?, status = ?, entry = ? WHERE run_id = ?`,
		e.TS, e.Status, body, e.RunID)
	if err != nil {
		return fmt.Errorf("finish cron run %s: %w", e.RunID, err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	_, err = c.ExecContext(ctx, `INSERT INTO cron_runs (run_id, job_id, trigger, scheduled_at, started_at, ended_at, status, entry)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, e.RunID, e.JobID, e.Trigger, e.ScheduledAtMs, e.RunAtMs, e.TS, e.Status, body)
	if err != nil {
		return fmt.Errorf("record cron run %s: %w", e.RunID, err)
	}
	return nil
}

// pruneRuns keeps a job's newest runsPerJobMax rows and, when byAge,
// drops every row past the retention.
func pruneRuns(ctx context.Context, c store.Conn, jobID string, now time.Time, byAge bool) error {
	_, err := c.ExecContext(ctx, `DELETE FROM cron_runs WHERE job_id = ? AND status != 'running' AND seq <=
		(SELECT seq FROM cron_runs WHERE job_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`, jobID, jobID, runsPerJobMax)
	if err == nil && byAge {
		_, err = c.ExecContext(ctx, `DELETE FROM cron_runs WHERE status != 'running' AND ended_at < ?`,
			now.Add(-runRetention).UnixMilli())
	}
	return err
}

// openRun is a run row left "running" by a gateway that stopped.
type openRun struct {
	RunID, JobID, Trigger  string
	ScheduledAt, StartedAt int64
}

func (d *db) openRuns(ctx context.Context) ([]openRun, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT run_id, job_id, trigger, scheduled_at, started_at
		FROM cron_runs WHERE status = 'running' ORDER BY seq`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []openRun
	for rows.Next() {
		var r openRun
		if err := rows.Scan(&r.RunID, &r.JobID, &r.Trigger, &r.ScheduledAt, &r.StartedAt); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// RunsQuery filters run history.
type RunsQuery struct {
	JobID    string
	JobIDs   []string // any of these jobs (with JobID: both must hold)
	RunID    string
	Statuses []string
	Delivery []string
	Query    string
	Asc      bool
	Limit    int
	Offset   int
}

// Runs returns one page of finished runs, newest first unless q.Asc,
// and how many match in all.
func (s *Service) Runs(ctx context.Context, q RunsQuery) ([]RunEntry, int, error) {
	if q.Limit <= 0 {
		q.Limit = 50
	}
	return s.db.runs(ctx, q)
}

func (d *db) runs(ctx context.Context, q RunsQuery) ([]RunEntry, int, error) {
	where := []string{"status != 'running'"}
	var args []any
	if q.JobID != "" {
		where, args = append(where, "job_id = ?"), append(args, q.JobID)
	}
	if q.JobIDs != nil {
		if len(q.JobIDs) == 0 {
			return []RunEntry{}, 0, nil
		}
		where = append(where, "job_id IN (?"+strings.Repeat(", ?", len(q.JobIDs)-1)+")")
		for _, id := range q.JobIDs {
			args = append(args, id)
		}
	}
	if q.RunID != "" {
		where, args = append(where, "run_id = ?"), append(args, q.RunID)
	}
	if len(q.Statuses) > 0 {
		where = append(where, "status IN (?"+strings.Repeat(", ?", len(q.Statuses)-1)+")")
		for _, s := range q.Statuses {
			args = append(args, s)
		}
	}
	if len(q.Delivery) > 0 {
		where = append(where, "json_extract(entry, '$.deliveryStatus') IN (?"+strings.Repeat(", ?", len(q.Delivery)-1)+")")
		for _, s := range q.Delivery {
			args = append(args, s)
		}
	}
	if q.Query != "" {
		where = append(where, "instr(lower(entry), ?) > 0")
		args = append(args, strings.ToLower(q.Query))
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := d.sql.QueryRowContext(ctx, `SELECT count(*) FROM cron_runs WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	order := "DESC"
	if q.Asc {
		order = "ASC"
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT entry FROM cron_runs WHERE `+cond+` ORDER BY seq `+order+` LIMIT ? OFFSET ?`,
		append(args, q.Limit, q.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []RunEntry{}
	for rows.Next() {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return nil, 0, err
		}
		var e RunEntry
		if err := json.Unmarshal(body, &e); err != nil {
			return nil, 0, fmt.Errorf("cron run row: %w", err)
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}
