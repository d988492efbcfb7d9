#!/usr/bin/env bash
# Scheduler benchmarks (gateway/cron/bench_test.go): adding and loading
# 10,000 jobs, idle CPU with 10,000 jobs, firing jitter, run-history
# pruning. In process, real clock, a real SQLite file in a temp dir.
#
#   bash bench/cron.sh              # the whole set, about 2 minutes
#   CRON_BENCH_IDLE=1s bash bench/cron.sh   # shorter idle window (CI)
#
# COUNT repeats each figure (default 1). Results go to stdout and to
# .cache/bench/cron/last.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-1}
out=.cache/bench/cron
mkdir -p "$out"
{
	go test -run '^$' -bench '^BenchmarkAdd$' -benchtime 2000x -count "$count" ./gateway/cron/
	go test -run '^$' -bench '^BenchmarkStart10k$' -benchtime 5x -count "$count" ./gateway/cron/
	go test -run '^$' -bench '^BenchmarkIdle$' -benchtime 1x -count "$count" ./gateway/cron/
	go test -run '^$' -bench '^BenchmarkJitter$' -benchtime 1x -count "$count" ./gateway/cron/
	go test -run '^$' -bench '^BenchmarkPruneRuns$' -benchtime 200x -count "$count" ./gateway/cron/
} 2>&1 | tee "$out/last.txt"
