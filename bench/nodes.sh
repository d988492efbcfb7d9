#!/usr/bin/env bash
# Measures node.invoke system.which round trips through the REAL OpenClaw
# node host connected to our gateway: operator (bench/loadclient) →
# gateway → node.invoke.request → `openclaw node run` → node.invoke.result
# → operator. Prints p50/p99 latency and invokes/s for 1 and CONC
# connections. The in-process figure (a fake node over the Go client) is
# `go test -run X -bench InvokeWhich ./nodes/`.
#
# Environment:
#   REQUESTS     invokes per connection (default: 200)
#   CONC         connections in the concurrent run (default: 4)
#   RESULTS_DIR  where raw results and logs go (default: .cache/bench/nodes)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

REQUESTS=${REQUESTS:-200}
CONC=${CONC:-4}
RESULTS_DIR=${RESULTS_DIR:-$root/.cache/bench/nodes}

while read -r v; do unset "$v"; done < <(compgen -e | grep -E '^(OPENCLAW_|CLAWDBOT_)' || true)

rm -rf "$RESULTS_DIR"
mkdir -p "$RESULTS_DIR"
work=$(mktemp -d "${TMPDIR:-/tmp}/openclaw-bench-nodes.XXXXXX")
running=()
cleanup() {
	local p
	for p in "${running[@]}"; do kill -KILL -- "-$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

log "building our binary and the load client; installing the real OpenClaw (skipped when present)"
go build -o "$work/openclaw" ./cmd/openclaw
go build -o "$work/loadclient" ./bench/loadclient
real_cli=$(bash scripts/install-openclaw-real.sh)

token=bench-$RANDOM$RANDOM
port=$(free_port)
mkdir -p "$work/gw/home" "$work/gw/state" "$work/node/home" "$work/node/state"
HOME=$work/gw/home OPENCLAW_STATE_DIR=$work/gw/state OPENCLAW_CONFIG_PATH=$work/gw/state/openclaw.json \
	OPENCLAW_GATEWAY_TOKEN=$token setsid "$work/openclaw" gateway --port "$port" \
	>"$RESULTS_DIR/gateway.out" 2>"$RESULTS_DIR/gateway.err" &
gw=$!
running+=("$gw")
wait_ready "$gw" "$port" ours

HOME=$work/node/home OPENCLAW_HOME=$work/node/home OPENCLAW_STATE_DIR=$work/node/state \
	OPENCLAW_CONFIG_PATH=$work/node/state/openclaw.json OPENCLAW_GATEWAY_TOKEN=$token \
	setsid "$real_cli" node run --host 127.0.0.1 --port "$port" --no-tls --display-name bench-node \
	>"$RESULTS_DIR/node.out" 2>"$RESULTS_DIR/node.err" &
running+=("$!")

log "waiting for the node host to connect"
node_id=""
for _ in $(seq 1 600); do
	node_id=$(sqlite3 "$work/gw/state/openclaw.sqlite" "SELECT node_id FROM nodes WHERE connected_at > 0 LIMIT 1" 2>/dev/null || true)
	[[ -n $node_id ]] && break
	sleep 0.1
done
[[ -n $node_id ]] || { log "the node host never connected; see $RESULTS_DIR/node.err"; exit 1; }
sleep 1 # let the node host finish its start-up calls

params=$(printf '{"nodeId":"%s","command":"system.which","params":{"bins":["sh"]},"timeoutMs":10000}' "$node_id")
run_load() { # CONNS
	"$work/loadclient" -url "ws://127.0.0.1:$port" -token "$token" -method node.invoke -params "$params" \
		-scope operator.write -conns "$1" -requests "$REQUESTS" -warmup 10 -handshakes 0 -summary \
		-json "$RESULTS_DIR/invoke-$1.json"
}
echo "| connections | p50 ms | p99 ms | invokes/s |"
echo "| --- | --- | --- | --- |"
for conns in 1 "$CONC"; do
	line=$(run_load "$conns")
	kv() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$line"; }
	echo "| $conns | $(kv p50Ms) | $(kv p99Ms) | $(kv reqPerSec) |"
done
