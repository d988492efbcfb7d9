#!/usr/bin/env bash
# Measures our gateway during a pre-auth flood on loopback: idle upgraded
# sockets that never send connect, each reopened as soon as the gateway
# closes it, while an operator connects afresh and calls health. With
# BASELINE set, a second binary built from that git revision is measured
# the same way, one after the other. See bench/README.md ("Pre-auth flood").
#
# Environment:
#   FLOOD               idle sockets the flood holds (default 1000)
#   ROUNDS              flood runs per gateway; the table gives medians (default 3)
#   HANDSHAKES          fresh connects timed per run (default 20)
#   REQUESTS            health calls per run, on a connection made before the flood (default 20000)
#   CONNECT_WITHIN      how long one fresh connect may retry (default 20s)
#   SETTLE              how long the flood runs before measuring (default 5s: past the
#                       gateway's first deadline cut, so the flood is measured steady)
#   BASELINE            git revision to measure beside the working tree (default: none)
#   BASELINE_HANDSHAKES fresh connects per run for the baseline (default 5: each may take CONNECT_WITHIN)
#   RESULTS_DIR         raw results and logs (default .cache/bench/flood)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

FLOOD=${FLOOD:-1000}
ROUNDS=${ROUNDS:-3}
HANDSHAKES=${HANDSHAKES:-20}
REQUESTS=${REQUESTS:-20000}
CONNECT_WITHIN=${CONNECT_WITHIN:-20s}
SETTLE=${SETTLE:-5s}
BASELINE=${BASELINE:-}
BASELINE_HANDSHAKES=${BASELINE_HANDSHAKES:-5}
RESULTS_DIR=${RESULTS_DIR:-$root/.cache/bench/flood}
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

while read -r v; do unset "$v"; done < <(compgen -e | grep -E '^(OPENCLAW_|CLAWDBOT_)' || true)

((FLOOD >= 1 && FLOOD <= 20000)) || { log "FLOOD must be 1..20000"; exit 2; }
((ROUNDS >= 1 && ROUNDS <= 20)) || { log "ROUNDS must be 1..20"; exit 2; }

# Each side of the flood holds one descriptor per socket: the load client
# and the gateway both need FLOOD plus their own.
need=$((FLOOD + 512))
if (($(ulimit -n) < need)); then
	hard=$(ulimit -Hn)
	[[ $hard == unlimited ]] || ((hard >= need)) || { log "open-file limit $hard is below the $need the flood needs"; exit 1; }
	ulimit -n "$need"
fi

bench_workdir flood

log "building our binary and the load client"
go build -o "$work/openclaw-ours" ./cmd/openclaw
go build -o "$work/loadclient" ./bench/loadclient
gateways=(ours)
if [[ -n $BASELINE ]]; then
	log "building the baseline from $BASELINE ($(git rev-parse --short "$BASELINE"))"
	mkdir -p "$work/src-baseline"
	git archive "$BASELINE" | tar -x -C "$work/src-baseline"
	(cd "$work/src-baseline" && go build -o "$work/openclaw-baseline" ./cmd/openclaw)
	gateways+=(baseline)
fi

declare -A R # R[gateway.round.key]

# median GATEWAY KEY: the median of a key over the rounds, or empty.
median() {
	local g=$1 k=$2 r vals=()
	for ((r = 1; r <= ROUNDS; r++)); do
		[[ -n ${R[$g.$r.$k]:-} ]] && vals+=("${R[$g.$r.$k]}")
	done
	((${#vals[@]})) || return 0
	printf '%s\n' "${vals[@]}" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'
}

# spread GATEWAY KEY: "min–max" over the rounds.
spread() {
	local g=$1 k=$2 r vals=()
	for ((r = 1; r <= ROUNDS; r++)); do
		[[ -n ${R[$g.$r.$k]:-} ]] && vals+=("${R[$g.$r.$k]}")
	done
	((${#vals[@]})) || return 0
	printf '%s\n' "${vals[@]}" | sort -g | awk 'NR==1{lo=$1} {hi=$1} END {print lo "–" hi}'
}

measure() {
	local name=$1 port token dir pid line kv hs r peak
	port=$(free_port)
	token=bench-$RANDOM$RANDOM
	dir=$work/$name
	mkdir -p "$dir/home" "$dir/state" "$dir/tmp"
	log "$name: starting on port $port"
	env -i PATH="$PATH" "HOME=$dir/home" "OPENCLAW_HOME=$dir/home" "OPENCLAW_STATE_DIR=$dir/state" \
		"OPENCLAW_CONFIG_PATH=$dir/state/openclaw.json" "TMPDIR=$dir/tmp" "OPENCLAW_GATEWAY_TOKEN=$token" \
		setsid "$work/openclaw-$name" gateway --port "$port" \
		>"$RESULTS_DIR/$name-gateway.out" 2>"$RESULTS_DIR/$name-gateway.err" &
	pid=$!
	running+=("$pid")
	wait_ready "$pid" "$port" "$name"

	# Without a flood, for reference.
	line=$("$work/loadclient" -url "ws://127.0.0.1:$port" -token "$token" -method health \
		-conns 1 -requests "$REQUESTS" -handshakes "$HANDSHAKES" -summary \
		-json "$RESULTS_DIR/$name-quiet.json" 2>>"$RESULTS_DIR/loadclient.log") ||
		{ log "$name: load client failed without a flood"; tail -n 3 "$RESULTS_DIR/loadclient.log" >&2; exit 1; }
	for kv in $line; do R[$name.quiet.${kv%%=*}]=${kv#*=}; done

	hs=$HANDSHAKES
	[[ $name == baseline ]] && hs=$BASELINE_HANDSHAKES
	for ((r = 1; r <= ROUNDS; r++)); do
		log "$name: flood round $r of $ROUNDS ($FLOOD sockets, $hs fresh connects, $REQUESTS health calls)"
		"$work/loadclient" -url "ws://127.0.0.1:$port" -token "$token" -method health \
			-flood "$FLOOD" -flood-settle "$SETTLE" -conns 1 -requests "$REQUESTS" -handshakes "$hs" -connect-within "$CONNECT_WITHIN" \
			-summary -json "$RESULTS_DIR/$name-flood-$r.json" \
			>"$dir/line" 2>>"$RESULTS_DIR/loadclient.log" &
		local lc=$!
		peak=0
		while kill -0 "$lc" 2>/dev/null; do
			read -r rss _ _ < <(tree_status "$pid")
			((rss > peak)) && peak=$rss
			sleep 0.2
		done
		wait "$lc" || log "$name: some fresh connects did not get through (see $RESULTS_DIR/loadclient.log)"
		line=$(cat "$dir/line")
		[[ -n $line ]] || { log "$name: no report from the load client"; tail -n 3 "$RESULTS_DIR/loadclient.log" >&2; exit 1; }
		for kv in $line; do R[$name.$r.${kv%%=*}]=${kv#*=}; done
		R[$name.$r.attemptsPerConnect]=$(awk -v a="${R[$name.$r.handshakeAttempts]:-0}" -v n="$hs" 'BEGIN{printf "%.2g", a/n}')
		R[$name.$r.peakRssMB]=$(awk -v k="$peak" 'BEGIN{printf "%.1f", k/1024}')
		log "$name: round $r: connect p50 ${R[$name.$r.handshakeP50Ms]} ms, max ${R[$name.$r.handshakeMaxMs]} ms, ${R[$name.$r.handshakeFailed]} failed; health p99 ${R[$name.$r.p99Ms]} ms"
	done
	stop_tree "$pid"
}

for g in "${gateways[@]}"; do
	measure "$g"
done

# cell GATEWAY KEY: median (min–max) over the rounds.
cell() {
	local m
	m=$(median "$1" "$2")
	[[ -n $m ]] || { echo "–"; return; }
	echo "$m ($(spread "$1" "$2"))"
}

header="| figure | ours |"
rule="| --- | --- |"
[[ -n $BASELINE ]] && header+=" $BASELINE before the fix |" && rule+=" --- |"
cat <<EOF

Pre-auth flood of $FLOOD idle sockets on $(nproc) cores, $(date -u +%Y-%m-%d), $ROUNDS rounds: median (min–max).
The load client, its flood and the gateway share the cores.

$header
$rule
EOF
row_of() {
	local label=$1 key=$2 g out
	out="| $label |"
	for g in "${gateways[@]}"; do out+=" $(cell "$g" "$key") |"; done
	echo "$out"
}
quiet_row() {
	local label=$1 key=$2 g out
	out="| $label |"
	for g in "${gateways[@]}"; do out+=" ${R[$g.quiet.$key]:-–} |"; done
	echo "$out"
}
quiet_row "no flood: fresh connect p50 (ms)" handshakeP50Ms
quiet_row "no flood: health p99 (ms)" p99Ms
row_of "flood: sockets open when measuring" floodOpenWhenMeasuring
row_of "flood: fresh connect p50 (ms)" handshakeP50Ms
row_of "flood: fresh connect slowest (ms)" handshakeMaxMs
row_of "flood: connect attempts per fresh connect" attemptsPerConnect
row_of "flood: fresh connects that failed" handshakeFailed
row_of "flood: health p50 (ms)" p50Ms
row_of "flood: health p99 (ms)" p99Ms
row_of "flood: health req/s" reqPerSec
row_of "flood: sockets the gateway accepted" floodOpened
row_of "flood: sockets it refused" floodRefused
row_of "flood: sockets it closed" floodClosedByServer
row_of "gateway peak RSS during the flood (MB)" peakRssMB
echo
log "raw results in $RESULTS_DIR"
