#!/usr/bin/env bash
# Soak: runs our gateway for an hour (or -soak DURATION) under a mixed,
# low-concurrency load on loopback (bus sessions with tool calls,
# Telegram and Slack messages through their fakes, a cron job every
# minute, clients connecting and dropping, a config change every few
# minutes), samples RSS, goroutines, open files and SQLite size each
# minute, and fails when one of them keeps growing or a message is not
# answered exactly once. See bench/README.md, "Soak".
#
#   bash bench/soak.sh                    # an hour
#   bash bench/soak.sh -soak 20m          # shorter
#   bash bench/soak.sh -soak 5m -soak-sample 15s -soak-reload 1m
#
# Results (samples.csv, summary.md, soak.png) go to .cache/bench/soak/;
# the plot is also written to bench/soak.png.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Nothing from the caller's environment may point the gateway at real state.
while read -r v; do unset "$v"; done < <(compgen -e | grep -E '^(OPENCLAW_|CLAWDBOT_)' || true)

args=("$@")
[[ " ${args[*]} " == *" -soak "* || " ${args[*]} " == *" -soak="* ]] || args=(-soak 1h "${args[@]}")
mkdir -p .cache/bench/soak
# Not -race: the figures are the real binary's. The test's own timeout is
# off; the soak stops itself at its duration, then drains for at most a
# few minutes.
go test -run '^TestSoak$' -count 1 -timeout 0 -v ./bench/soak/ \
	-args -soak-out "$PWD/.cache/bench/soak" -soak-png "$PWD/bench/soak.png" "${args[@]}" 2>&1 |
	tee .cache/bench/soak/last.log
