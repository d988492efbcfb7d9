-- Jobs: spec is the job as the wire carries it, without its state;
-- next_run_at mirrors state.nextRunAtMs so start-up finds missed runs
-- without decoding every row.
CREATE TABLE cron_jobs (
    id          TEXT PRIMARY KEY,
    spec        TEXT NOT NULL,
    state       TEXT NOT NULL DEFAULT '{}',
    next_run_at INTEGER,
    system      INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

-- Runs: a row is written as "running" before the run starts, so a run
-- the gateway did not live to finish is found at the next start.
CREATE TABLE cron_runs (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id       TEXT NOT NULL UNIQUE,
    job_id       TEXT NOT NULL,
    trigger      TEXT NOT NULL,
    scheduled_at INTEGER NOT NULL,
    started_at   INTEGER NOT NULL,
    ended_at     INTEGER,
    status       TEXT NOT NULL,
    entry        TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX cron_runs_job ON cron_runs (job_id, seq);
CREATE INDEX cron_runs_running ON cron_runs (status) WHERE status = 'running';
