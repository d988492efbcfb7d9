-- Pruning runs past the retention reads ended_at; without an index every
-- prune scanned the whole history.
CREATE INDEX cron_runs_ended ON cron_runs (ended_at) WHERE status != 'running';
