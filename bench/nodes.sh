#!/usr/bin/env bash
# Measures node.invoke system.which round trips through the REAL OpenClaw
# node host: operator (bench/loadclient) → gateway → node.invoke.request →
# `openclaw node run` → node.invoke.result → operator. It does so against
# our gateway and against the real OpenClaw gateway, one after the other,
# and prints p50/p99 latency and invokes/s for 1 and CONC connections side
# by side. The in-process figure (a fake node over the Go client) is
# `go test -run X -bench InvokeWhich ./nodes/`.
#
# On the real gateway the node host's device and then its declared
# commands are approved with the real CLI (`openclaw devices approve`,
# `openclaw nodes approve`) when they wait for it; the node id comes from
# `openclaw nodes status --json`.
#
# Environment:
#   GATEWAYS     ours, real or both (default: both)
#   REQUESTS     invokes per connection (default: 200)
#   CONC         connections in the concurrent run (default: 4)
#   RESULTS_DIR  where raw results and logs go (default: .cache/bench/nodes)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

GATEWAYS=${GATEWAYS:-both}
REQUESTS=${REQUESTS:-200}
CONC=${CONC:-4}
RESULTS_DIR=${RESULTS_DIR:-$root/.cache/bench/nodes}
REAL_VERSION=2026.9.6
case $GATEWAYS in
ours | real) gateways=$GATEWAYS ;;
both) gateways="ours real" ;;
*) log "GATEWAYS must be ours, real or both"; exit 2 ;;
esac

while read -r v; do unset "$v"; done < <(compgen -e | grep -E '^(OPENCLAW_|CLAWDBOT_)' || true)

bench_workdir bench-nodes

log "building our binary and the load client; installing the real OpenClaw (skipped when present)"
go build -o "$work/openclaw" ./cmd/openclaw
go build -o "$work/loadclient" ./bench/loadclient
real_cli=$(bash scripts/install-openclaw-real.sh)

declare -A R # results: R[gateway.cN.key]

# real_call ARGS...: the real CLI as an operator of the real gateway under
# test (its own scratch state), JSON on stdout.
real_call() {
	HOME=$work/cli/home OPENCLAW_HOME=$work/cli/home OPENCLAW_STATE_DIR=$work/cli/state \
		OPENCLAW_CONFIG_PATH=$work/cli/state/openclaw.json \
		"$real_cli" "$@" --url "ws://127.0.0.1:$port" --token "$token" --json 2>>"$RESULTS_DIR/real-cli.err"
}

# pair_real: approve the node host's device and commands on the real
# gateway when they wait for it, and set node_id once the node is
# connected with system.which allowed.
pair_real() {
	local deadline out id
	deadline=$(($(now_ns) + 180 * 1000000000))
	node_id=""
	while (($(now_ns) < deadline)); do
		out=$(real_call nodes status || true)
		echo "$out" >"$RESULTS_DIR/real-nodes-status.json"
		node_id=$(jq -r '[(.nodes? // . // [])[]? | select((.displayName == "bench-node") and ((.connected // false) == true) and ((.commands // []) | index("system.which")))][0].nodeId // empty' <<<"$out" 2>/dev/null || true)
		[[ -n $node_id ]] && return 0
		# A device pairing request from the node host.
		out=$(real_call devices list || true)
		for id in $(jq -r '(.pending // [])[]? | .requestId // empty' <<<"$out" 2>/dev/null || true); do
			log "real: approving device pairing request $id"
			real_call devices approve "$id" >>"$RESULTS_DIR/real-approve.json" || true
		done
		# The node's declared commands.
		out=$(real_call nodes pending || true)
		for id in $(jq -r '(.pending? // . // [])[]? | select(.displayName == "bench-node") | .requestId // empty' <<<"$out" 2>/dev/null || true); do
			log "real: approving node command request $id"
			real_call nodes approve "$id" >>"$RESULTS_DIR/real-approve.json" || true
		done
		kill -0 "$node_pid" 2>/dev/null || { log "real: the node host exited; see $RESULTS_DIR/real-node.err"; exit 1; }
		sleep 0.5
	done
	log "real: the node host never became invokable; see $RESULTS_DIR/real-node.out and real-nodes-status.json"
	exit 1
}

# measure NAME: start one gateway and the node host, run the loads, stop.
measure() {
	local name=$1 dir gw line kv conns
	dir=$work/$name
	mkdir -p "$dir/gw/home" "$dir/gw/state" "$dir/gw/tmp" "$dir/node/home" "$dir/node/state" "$work/cli/home" "$work/cli/state"
	token=bench-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
	port=$(free_port)
	local -a env=(
		"HOME=$dir/gw/home" "OPENCLAW_HOME=$dir/gw/home" "OPENCLAW_STATE_DIR=$dir/gw/state"
		"OPENCLAW_CONFIG_PATH=$dir/gw/state/openclaw.json" "TMPDIR=$dir/gw/tmp"
	) cmd
	case $name in
	ours)
		env+=("OPENCLAW_GATEWAY_TOKEN=$token")
		cmd=("$work/openclaw" gateway --port "$port")
		;;
	real)
		cat >"$dir/gw/state/openclaw.json" <<-EOF
			{
			  gateway: { mode: "local", tailscale: { mode: "off" } },
			  update: { checkOnStart: false },
			  telemetry: { enabled: false },
			  discovery: { mdns: { mode: "off" } },
			  agents: { defaults: { heartbeat: { every: "0m" } } },
			  logging: { file: "$dir/gateway.log" },
			}
		EOF
		cmd=("$real_cli" gateway run --port "$port" --bind loopback --auth token --token "$token" --allow-unconfigured)
		;;
	esac
	log "$name: starting the gateway on port $port"
	env "${env[@]}" setsid "${cmd[@]}" >"$RESULTS_DIR/$name-gateway.out" 2>"$RESULTS_DIR/$name-gateway.err" &
	gw=$!
	running+=("$gw")
	wait_ready "$gw" "$port" "$name"

	HOME=$dir/node/home OPENCLAW_HOME=$dir/node/home OPENCLAW_STATE_DIR=$dir/node/state \
		OPENCLAW_CONFIG_PATH=$dir/node/state/openclaw.json OPENCLAW_GATEWAY_TOKEN=$token \
		setsid "$real_cli" node run --host 127.0.0.1 --port "$port" --no-tls --display-name bench-node \
		>"$RESULTS_DIR/$name-node.out" 2>"$RESULTS_DIR/$name-node.err" &
	node_pid=$!
	running+=("$node_pid")

	log "$name: waiting for the node host to connect"
	node_id=""
	case $name in
	ours)
		for _ in $(seq 1 600); do
			node_id=$(sqlite3 "$dir/gw/state/openclaw.sqlite" "SELECT node_id FROM nodes WHERE connected_at > 0 LIMIT 1" 2>/dev/null || true)
			[[ -n $node_id ]] && break
			sleep 0.1
		done
		[[ -n $node_id ]] || { log "ours: the node host never connected; see $RESULTS_DIR/ours-node.err"; exit 1; }
		;;
	real) pair_real ;;
	esac
	log "$name: node $node_id"
	sleep 1 # let the node host finish its start-up calls

	# The real gateway's schema requires an idempotencyKey; it forwards the
	# key to the node and dedupes nothing with it, so one fixed key serves
	# every request. Ours joins concurrent invokes that share a key to the
	# one in flight, and loadclient sends the same params on every
	# connection, so ours gets none (it is optional there).
	local params key=""
	[[ $name == real ]] && key=',"idempotencyKey":"bench-nodes-which"'
	params=$(printf '{"nodeId":"%s","command":"system.which","params":{"bins":["sh"]},"timeoutMs":10000%s}' "$node_id" "$key")
	for conns in 1 "$CONC"; do
		line=$("$work/loadclient" -url "ws://127.0.0.1:$port" -token "$token" -method node.invoke -params "$params" \
			-scope operator.write -conns "$conns" -requests "$REQUESTS" -warmup 10 -handshakes 0 -summary \
			-json "$RESULTS_DIR/$name-invoke-$conns.json" 2>>"$RESULTS_DIR/loadclient.log") ||
			{ log "$name: load client failed (c=$conns):"; tail -n 3 "$RESULTS_DIR/loadclient.log" >&2; exit 1; }
		for kv in $line; do R[$name.c$conns.${kv%%=*}]=${kv#*=}; done
		log "$name: c=$conns ${R[$name.c$conns.reqPerSec]} invokes/s, p50 ${R[$name.c$conns.p50Ms]} ms, p99 ${R[$name.c$conns.p99Ms]} ms"
	done

	stop_tree "$node_pid"
	stop_tree "$gw"
}

for g in $gateways; do
	measure "$g"
done

cat <<EOF

node.invoke system.which {bins:["sh"]} through the real OpenClaw $REAL_VERSION node host, $REQUESTS invokes per connection,
$(nproc) cores, $(date -u +%Y-%m-%d); ours $("$work/openclaw" --version 2>/dev/null | head -n1), real OpenClaw gateway $REAL_VERSION.
The node host and the load client share the cores with the gateway under test; compare ratios, not absolute numbers.

| figure | ours | real OpenClaw | ours better by |
| --- | --- | --- | --- |
EOF
for c in 1 "$CONC"; do
	row "$c conn: p50 (ms)" "c$c.p50Ms" 1 low
	row "$c conn: p99 (ms)" "c$c.p99Ms" 1 low
	row "$c conn: invokes/s" "c$c.reqPerSec" 1 high
done
echo
log "raw results in $RESULTS_DIR"
