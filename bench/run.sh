#!/usr/bin/env bash
# Measures our gateway and the real OpenClaw gateway side by side on
# loopback, one after the other in one run, and prints a markdown table.
# See bench/README.md for what each figure means.
#
# Environment:
#   GATEWAYS      which to measure, in order (default: "ours real")
#   IDLE_SECONDS  wait before reading idle memory (default: 10)
#   RESULTS_DIR   where raw results and logs go (default: .cache/bench/last)
#   START_RUNS    timed launches, each stopped once ready (default: 5)
#   PIN           1 (default on 2+ cores with taskset): the gateway runs on
#                 core 0 and the load client on core 1, so the client does
#                 not take the gateway's CPU in the middle of a request
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

GATEWAYS=${GATEWAYS:-ours real}
IDLE_SECONDS=${IDLE_SECONDS:-10}
RESULTS_DIR=${RESULTS_DIR:-$root/.cache/bench/last}
REAL_VERSION=2026.9.6
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

# Nothing from the caller's environment may point a gateway at real state.
while read -r v; do unset "$v"; done < <(compgen -e | grep -E '^(OPENCLAW_|CLAWDBOT_)' || true)


bench_workdir bench

log "building our binary (as the README and a release build it) and the load client"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/openclaw" ./cmd/openclaw
go build -o "$work/loadclient" ./bench/loadclient
go build -o "$work/startclock" ./bench/startclock
START_RUNS=${START_RUNS:-5}
PIN=${PIN:-1}
sc_pin=() lc_pin=()
if [[ $PIN == 1 ]] && (($(nproc) >= 2)) && command -v taskset >/dev/null; then
	sc_pin=(-cpu 0) lc_pin=(taskset -c 1)
fi
if [[ " $GATEWAYS " == *" real "* ]]; then
	log "installing the real OpenClaw $REAL_VERSION (skipped when present)"
	real_cli=$(bash scripts/install-openclaw-real.sh)
fi






declare -A R # results: R[gateway.figure]

# measure NAME: start one gateway, take every figure, stop it.
measure() {
	local name=$1 dir port token pid t1
	dir=$work/$name
	mkdir -p "$dir/home" "$dir/state" "$dir/tmp"
	port=$(free_port)
	token=bench-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
	local -a cmd env=(
		"HOME=$dir/home" "OPENCLAW_HOME=$dir/home" "OPENCLAW_STATE_DIR=$dir/state"
		"OPENCLAW_CONFIG_PATH=$dir/state/openclaw.json" "TMPDIR=$dir/tmp"
	)
	case $name in
	ours)
		env+=("OPENCLAW_GATEWAY_TOKEN=$token")
		cmd=("$work/openclaw" gateway --port "$port")
		;;
	real)
		cat >"$dir/state/openclaw.json" <<-EOF
			{
			  gateway: { mode: "local", tailscale: { mode: "off" } },
			  update: { checkOnStart: false },
			  telemetry: { enabled: false },
			  discovery: { mdns: { mode: "off" } },
			  agents: { defaults: { heartbeat: { every: "0m" } } },
			  logging: { file: "$dir/gateway.log" },
			}
		EOF
		env "${env[@]}" "$real_cli" config validate --json >"$dir/validate.json" 2>&1 ||
			{ log "the real gateway rejects its config:"; cat "$dir/validate.json" >&2; exit 1; }
		cmd=("$real_cli" gateway run --port "$port" --bind loopback --auth token --token "$token" --allow-unconfigured)
		;;
	esac

	# The start clock launches the gateway START_RUNS times, stopping each
	# once ready, and leaves one more running for the figures below. One
	# Go process polls the port and /readyz, so no fork per poll skews the
	# figure.
	log "$name: starting on port $port ($START_RUNS timed launches)"
	local line kv
	line=$(env "${env[@]}" "$work/startclock" -port "$port" -runs "$START_RUNS" "${sc_pin[@]}" \
		-stdout "$RESULTS_DIR/$name-gateway.out" -stderr "$RESULTS_DIR/$name-gateway.err" -- "${cmd[@]}") ||
		{ log "$name gateway did not start; see $RESULTS_DIR/$name-gateway.err"; exit 1; }
	for kv in $line; do R[$name.start.${kv%%=*}]=${kv#*=}; done
	pid=${R[$name.start.pid]}
	running+=("$pid")
	t1=$(now_ns)
	R[$name.listen_ms]=${R[$name.start.listenMs]}
	R[$name.ready_ms]=${R[$name.start.readyMs]}
	R[$name.listen_min_ms]=${R[$name.start.listenMinMs]}
	R[$name.ready_min_ms]=${R[$name.start.readyMinMs]}
	log "$name: listening after ${R[$name.listen_ms]} ms, ready after ${R[$name.ready_ms]} ms"

	# Idle memory, IDLE_SECONDS after it began listening.
	local wait_ns=$((t1 + IDLE_SECONDS * 1000000000 - $(now_ns)))
	((wait_ns <= 0)) || sleep "$(awk -v n="$wait_ns" 'BEGIN{printf "%.3f", n/1e9}')"
	read -r R[$name.idle_rss_kb] R[$name.threads] R[$name.procs] < <(tree_status "$pid")
	read -r R[$name.idle_anon_kb] R[$name.idle_file_kb] < <(tree_rss_split "$pid")
	log "$name: idle RSS ${R[$name.idle_rss_kb]} kB in ${R[$name.procs]} processes, ${R[$name.threads]} threads"

	# Load: handshakes and health on 1, 8 and 32 connections.
	local run conns reqs hs
	for run in 1:1000:20 8:1000:0 32:300:0; do
		IFS=: read -r conns reqs hs <<<"$run"
		line=$("${lc_pin[@]}" "$work/loadclient" -url "ws://127.0.0.1:$port" -token "$token" -method health \
			-conns "$conns" -requests "$reqs" -handshakes "$hs" -summary \
			-json "$RESULTS_DIR/$name-health-c$conns.json" 2>>"$RESULTS_DIR/loadclient.log") ||
			{ log "$name: load client failed (c=$conns):"; tail -n 3 "$RESULTS_DIR/loadclient.log" >&2; exit 1; }
		for kv in $line; do R[$name.c$conns.${kv%%=*}]=${kv#*=}; done
		log "$name: c=$conns ${R[$name.c$conns.reqPerSec]} req/s, p50 ${R[$name.c$conns.p50Ms]} ms, p99 ${R[$name.c$conns.p99Ms]} ms"
	done
	read -r R[$name.load_rss_kb] _ _ < <(tree_status "$pid")

	# Stop: SIGTERM, then SIGKILL after 30 s.
	kill -TERM "$pid" 2>/dev/null || true
	local i
	for ((i = 0; i < 3000; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.01; done
	kill -KILL -- "-$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

for g in $GATEWAYS; do
	measure "$g"
done
R[ours.binary_kb]=$(($(stat -c %s "$work/openclaw") / 1024))



cat <<EOF

Side by side on $(nproc) cores, $(date -u +%Y-%m-%d); ours $("$work/openclaw" --version 2>/dev/null | head -n1), real OpenClaw $REAL_VERSION.
$(if ((${#sc_pin[@]})); then echo "The gateway runs on core 0 and the load client on core 1 (taskset)."; else echo "The load client shares the cores with the gateway under test; compare ratios, not absolute numbers."; fi)

| figure | ours | real OpenClaw | ours better by |
| --- | --- | --- | --- |
EOF
row "binary (MiB; ours static and stripped)" binary_kb 1024 none
row "launch to listening, median of $START_RUNS (ms)" listen_ms 1 low
row "launch to ready, median of $START_RUNS (ms)" ready_ms 1 low
row "  fastest launch to listening (ms)" listen_min_ms 1 low
row "  fastest launch to ready (ms)" ready_min_ms 1 low
row "idle RSS after ${IDLE_SECONDS} s (MB)" idle_rss_kb 1024 low
row "  of it anonymous (MB)" idle_anon_kb 1024 low
row "  of it file-backed (MB)" idle_file_kb 1024 low
row "RSS after the load runs (MB)" load_rss_kb 1024 low
row "processes when idle" procs 1 none
row "threads when idle" threads 1 none
row "connect handshake p50 (ms)" c1.handshakeP50Ms 1 low
row "connect handshake p99 (ms)" c1.handshakeP99Ms 1 low
for c in 1 8 32; do
	row "health, $c conn: p50 (ms)" "c$c.p50Ms" 1 low
	row "health, $c conn: p99 (ms)" "c$c.p99Ms" 1 low
	row "health, $c conn: req/s" "c$c.reqPerSec" 1 high
done
echo
log "raw results in $RESULTS_DIR"
