#!/usr/bin/env bash
# Kills the active one of two gateways on one PostgreSQL database in the
# middle of a burst of Telegram messages and cron firings, RUNS times
# (default 3), and prints one row per run: messages, answered, lost,
# duplicated, cron slots, cron slots run twice, takeover time. It is
# e2e's TestFailoverKillActiveMidBurst (real binaries, a real PostgreSQL
# server from the machine's postgresql package, the fake Bot API).
#
#   bench/failover.sh [RUNS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs=${1:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '| run | messages | answered | lost | duplicated | cron slots | cron run twice | takeover |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n'
for ((i = 1; i <= runs; i++)); do
	OPENCLAW_E2E_SKIP_REAL=1 OPENCLAW_TEST_POSTGRES=require OPENCLAW_FAILOVER_FIGURES="$out/$i" \
		go test -tags postgres -run '^TestFailoverKillActiveMidBurst$' -count=1 ./e2e >"$out/log$i" 2>&1 || {
		cat "$out/log$i" >&2
		exit 1
	}
	read -r m a l d s c ms <"$out/$i"
	printf '| %d | %d | %d | %d | %d | %d | %d | %d ms |\n' "$i" "$m" "$a" "$l" "$d" "$s" "$c" "$ms"
done
