package cron

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store"
)

// JobKnown reports whether db has a job with that id.
func JobKnown(ctx context.Context, db *sql.DB, id string) (bool, error) {
	var one int
	err := db.QueryRowContext(ctx, `SELECT 1 FROM cron_jobs WHERE id = ?`, id).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("look up cron job %s: %w", id, err)
	}
	return true, nil
}

// CheckImport says why a job carried over from another install (openclaw
// migrate) cannot run here, or nil. A one-shot whose time has passed is
// still accepted: the scheduler runs or skips it at start by its catchUp.
func CheckImport(j Job, now time.Time) error {
	if j.ID == "" {
		return errors.New("the job has no id")
	}
	if j.System || j.Payload.Kind == PayloadHeartbeat {
		return errors.New("heartbeat jobs come from agents.*.heartbeat in the config here")
	}
	if j.Schedule.Kind == KindAt {
		created := time.UnixMilli(j.CreatedAtMs)
		if _, err := compile(j.Schedule, j.ID, created, time.Local); err != nil {
			return fmt.Errorf("schedule: %w", err)
		}
		// validate refuses an at in the past, which is right for a new
		// job but not for one that was due while nothing ran.
		j.Schedule = Schedule{Kind: KindEvery, EveryMs: int64(time.Hour / time.Millisecond)}
	}
	return j.validate(now)
}

// ImportJob stores a job with its state and run history as the other
// install had them. The running scheduler is not told: migrate runs with
// the gateway stopped, and the gateway loads every job at start. A job
// already here (by id) is left alone with its runs, and ImportJob
// reports false. Runs are kept to the newest runsPerJobMax.
func ImportJob(ctx context.Context, db *sql.DB, j Job, runs []RunEntry, now time.Time) (bool, error) {
	if err := CheckImport(j, now); err != nil {
		return false, fmt.Errorf("import cron job %s: %w", j.ID, err)
	}
	j.System = false
	j.NextRunAtMs = nil
	if j.UpdatedAtMs == 0 {
		j.UpdatedAtMs = j.CreatedAtMs
	}
	if len(runs) > runsPerJobMax {
		runs = runs[len(runs)-runsPerJobMax:]
	}
	var done bool
	err := store.Immediate(ctx, db, func(c store.Conn) error {
		var one int
		err := c.QueryRowContext(ctx, `SELECT 1 FROM cron_jobs WHERE id = ?`, j.ID).Scan(&one)
		if err == nil {
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err := saveJob(ctx, c, j, 0); err != nil {
			return err
		}
		for _, e := range runs {
			if e.RunID == "" || e.Status == "running" {
				continue
			}
			e.JobID = j.ID
			if e.Action == "" {
				e.Action = "finished"
			}
			var taken int
			err := c.QueryRowContext(ctx, `SELECT 1 FROM cron_runs WHERE run_id = ?`, e.RunID).Scan(&taken)
			if err == nil {
				continue
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if err := finishRun(ctx, c, e); err != nil {
				return err
			}
		}
		done = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("import cron job %s: %w", j.ID, err)
	}
	return done, nil
}
