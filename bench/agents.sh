#!/usr/bin/env bash
# Measures agent turns over the bus on our gateway and on the real
# OpenClaw gateway, one after the other, both answering through the same
# fake model server on loopback, and prints markdown tables. Then, for our
# gateway, how memory and the state folder grow with stored turns.
# See bench/README.md, "Agent turns", for what each figure means.
#
# Environment:
#   GATEWAYS      which to measure, in order (default: "ours real")
#   TURNS         turns timed after the first one (default: 20)
#   CONC          sessions taking turns at once in the throughput run (default: 4)
#   CONC_TURNS    turns per session in that run (default: 10)
#   GROW_TURNS    turns per batch in our growth run; 0 skips it (default: 1000)
#   GROW_BATCHES  batches in it (default: 3)
#   RESULTS_DIR   where raw results and logs go (default: .cache/bench/agents)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

GATEWAYS=${GATEWAYS:-ours real}
TURNS=${TURNS:-20}
CONC=${CONC:-4}
CONC_TURNS=${CONC_TURNS:-10}
GROW_TURNS=${GROW_TURNS:-1000}
GROW_BATCHES=${GROW_BATCHES:-3}
RESULTS_DIR=${RESULTS_DIR:-$root/.cache/bench/agents}
REAL_VERSION=2026.9.6
GROW_CONNS=4     # sessions at once in the growth run
GROW_SESSION=10  # turns per session there: many short conversations
WARMUP_TURNS=20  # before the growth run's first reading

# Nothing from the caller's environment may point a gateway at real state.
while read -r v; do unset "$v"; done < <(compgen -e | grep -E '^(OPENCLAW_|CLAWDBOT_)' || true)

bench_workdir bench-agents
declare -A R # results: R[gateway.figure]

log "building our binary, the load client and the fake model server"
go build -o "$work/openclaw" ./cmd/openclaw
go build -o "$work/loadclient" ./bench/loadclient
go build -o "$work/fakemodel" ./bench/fakemodel
if [[ " $GATEWAYS " == *" real "* ]]; then
	log "installing the real OpenClaw $REAL_VERSION (skipped when present)"
	real_cli=$(bash scripts/install-openclaw-real.sh)
fi

fm_port=$(free_port)
setsid "$work/fakemodel" -addr "127.0.0.1:$fm_port" >"$RESULTS_DIR/fakemodel.out" 2>"$RESULTS_DIR/fakemodel.err" &
fm_pid=$!
running+=("$fm_pid")
until port_open "$fm_port"; do
	kill -0 "$fm_pid" 2>/dev/null || { log "the fake model server did not start:"; cat "$RESULTS_DIR/fakemodel.err" >&2; exit 1; }
	sleep 0.01
done
log "fake model server on 127.0.0.1:$fm_port"

# The model both gateways use: an OpenAI-compatible provider on loopback.
model_config="models: { providers: { fake: { baseUrl: \"http://127.0.0.1:$fm_port/v1\", apiKey: \"bench-key\",
    api: \"openai-completions\", models: [{ id: \"echo-1\", name: \"Echo\" }] } } },"

# turns NAME LABEL ARGS...: one load-client run of agent turns against the
# gateway on $port; its summary lands in R[NAME.LABEL.<key>].
turns() {
	local name=$1 label=$2 line kv
	shift 2
	line=$("$work/loadclient" -url "ws://127.0.0.1:$port" -token "$token" -method agent \
		-warmup 0 -handshakes 0 -timeout 300s -summary -json "$RESULTS_DIR/$name-$label.json" "$@" \
		2>>"$RESULTS_DIR/loadclient.log") ||
		{ log "$name: agent turns failed ($label):"; tail -n 3 "$RESULTS_DIR/loadclient.log" >&2; exit 1; }
	for kv in $line; do R[$name.$label.${kv%%=*}]=${kv#*=}; done
	log "$name: $label: p50 ${R[$name.$label.p50Ms]} ms, max ${R[$name.$label.maxMs]} ms, ${R[$name.$label.reqPerSec]} turns/s"
}

# start NAME: start gateway NAME on $port over $dir, wait until ready;
# sets pid.
start() {
	local name=$1
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
		cmd=("$real_cli" gateway run --port "$port" --bind loopback --auth token --token "$token" --allow-unconfigured)
		;;
	esac
	env "${env[@]}" setsid "${cmd[@]}" >>"$RESULTS_DIR/$name-gateway.out" 2>>"$RESULTS_DIR/$name-gateway.err" &
	pid=$!
	running+=("$pid")
	wait_ready "$pid" "$port" "$name"
}

# state_bytes: the size of the gateway's state folder.
state_bytes() { du -sb "$dir/state" | cut -f1; }

# measure NAME: start one gateway, time its turns, stop it.
measure() {
	local name=$1 dir port token pid
	dir=$work/$name
	mkdir -p "$dir/home" "$dir/state" "$dir/tmp"
	port=$(free_port)
	token=bench-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
	case $name in
	ours)
		cat >"$dir/state/openclaw.json" <<-EOF
			{
			  gateway: { mode: "local" },
			  agents: { defaults: { model: { primary: "fake/echo-1" } } },
			  $model_config
			}
		EOF
		;;
	real)
		cat >"$dir/state/openclaw.json" <<-EOF
			{
			  gateway: { mode: "local", tailscale: { mode: "off" } },
			  update: { checkOnStart: false },
			  telemetry: { enabled: false },
			  discovery: { mdns: { mode: "off" } },
			  agents: { defaults: { heartbeat: { every: "0m" }, model: { primary: "fake/echo-1" } } },
			  $model_config
			  logging: { file: "$dir/gateway.log" },
			}
		EOF
		env HOME="$dir/home" OPENCLAW_HOME="$dir/home" OPENCLAW_STATE_DIR="$dir/state" \
			OPENCLAW_CONFIG_PATH="$dir/state/openclaw.json" TMPDIR="$dir/tmp" \
			"$real_cli" config validate --json >"$RESULTS_DIR/real-validate.json" 2>&1 ||
			{ log "the real gateway rejects its config:"; cat "$RESULTS_DIR/real-validate.json" >&2; exit 1; }
		;;
	esac

	log "$name: starting on port $port"
	start "$name"
	# One conversation: its first turn (the gateway's first ever), then
	# TURNS more; then CONC conversations at once.
	turns "$name" first -conns 1 -requests 1 -session agent:main:bench
	turns "$name" next -conns 1 -requests "$TURNS" -session agent:main:bench
	turns "$name" conc -conns "$CONC" -requests "$CONC_TURNS" -session agent:main:conc
	read -r R[$name.rss_kb] _ _ < <(tree_status "$pid")
	stop_tree "$pid"

	if [[ $name == ours && $GROW_TURNS -gt 0 ]]; then
		grow "$name"
	fi
}

# grow NAME: restart the gateway on its state, warm it up, then take
# GROW_BATCHES batches of GROW_TURNS turns (GROW_CONNS sessions at once,
# a new session every GROW_SESSION turns), reading RSS after each. The
# state folder is measured with the gateway stopped, when SQLite has
# folded its write-ahead log into the database file.
grow() {
	local name=$1 b per_conn
	per_conn=$((GROW_TURNS / GROW_CONNS))
	R[$name.grow_state0]=$(state_bytes)
	start "$name"
	turns "$name" warm -conns 1 -requests "$WARMUP_TURNS" -session agent:main:warm
	read -r R[$name.grow_rss0] _ _ < <(tree_status "$pid")
	for ((b = 1; b <= GROW_BATCHES; b++)); do
		turns "$name" "grow$b" -conns "$GROW_CONNS" -requests "$per_conn" -session "agent:main:grow$b" -session-turns "$GROW_SESSION"
		read -r R[$name.grow_rss$b] _ _ < <(tree_status "$pid")
		log "$name: RSS after $((b * per_conn * GROW_CONNS)) turns: ${R[$name.grow_rss$b]} kB"
	done
	stop_tree "$pid"
	R[$name.grow_state1]=$(state_bytes)
	R[$name.grow_turns]=$((WARMUP_TURNS + GROW_BATCHES * per_conn * GROW_CONNS))
}

for g in $GATEWAYS; do
	measure "$g"
done
stop_tree "$fm_pid"

cat <<EOF

Agent turns over the bus on $(nproc) cores, $(date -u +%Y-%m-%d); ours $("$work/openclaw" --version 2>/dev/null | head -n1), real OpenClaw $REAL_VERSION.
Both answer through one fake OpenAI-compatible model server on loopback that echoes at once.
The load client and the fake model share the cores with the gateway; compare ratios, not absolute numbers.

| figure | ours | real OpenClaw | ours better by |
| --- | --- | --- | --- |
EOF
row "first agent turn (ms)" first.p50Ms 1 low
row "agent turn, p50 of the next $TURNS (ms)" next.p50Ms 1 low
row "agent turn, slowest of the next $TURNS (ms)" next.maxMs 1 low
row "accepted answer, p50 of the next $TURNS (ms)" next.acceptedP50Ms 1 low
row "$CONC sessions at once: turn p50 (ms)" conc.p50Ms 1 low
row "$CONC sessions at once: turns/s" conc.reqPerSec 1 high
row "RSS after these $((1 + TURNS + CONC * CONC_TURNS)) turns (MB)" rss_kb 1024 low

if [[ -n $(get ours.grow_turns) ]]; then
	awk -v n="$GROW_TURNS" -v batches="$GROW_BATCHES" -v total="$(get ours.grow_turns)" \
		-v s0="$(get ours.grow_state0)" -v s1="$(get ours.grow_state1)" -v warm="$WARMUP_TURNS" \
		-v conns="$GROW_CONNS" -v per="$GROW_SESSION" \
		-v rss="$(for ((b = 0; b <= GROW_BATCHES; b++)); do printf '%s ' "$(get "ours.grow_rss$b")"; done)" \
		-v tps="$(for ((b = 1; b <= GROW_BATCHES; b++)); do printf '%s ' "$(get "ours.grow$b.reqPerSec")"; done)" 'BEGIN {
		split(rss, r, " "); split(tps, t, " ")
		printf "\nOur gateway, %d batches of %d turns (%d sessions at once, %d turns each), after %d warm-up turns:\n\n", batches, n, conns, per, warm
		print "| after turns | RSS (MB) | growth over the batch (MB) | turns/s in the batch |"
		print "| --- | --- | --- | --- |"
		printf "| 0 | %.1f | – | – |\n", r[1] / 1024
		for (b = 1; b <= batches; b++)
			printf "| %d | %.1f | %+.1f | %.0f |\n", b * n, r[b + 1] / 1024, (r[b + 1] - r[b]) / 1024, t[b]
		printf "\nState folder: %.2f MB more after %d turns (warm-up included): %.2f MB per 1,000 turns, %.0f bytes a turn.\n",
			(s1 - s0) / 1048576, total, (s1 - s0) / total * 1000 / 1048576, (s1 - s0) / total
	}'
fi
echo
log "raw results in $RESULTS_DIR"
