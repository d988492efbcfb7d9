# Helpers for the benchmark scripts; source it, do not run it. The caller
# sets RESULTS_DIR, keeps the process groups it starts in the array
# `running` and its results in the associative array R (R[gateway.figure]).
# shellcheck shell=bash

log() { printf 'bench: %s\n' "$*" >&2; }

now_ns() { date +%s%N; }

# port_open PORT: whether something accepts TCP on 127.0.0.1:PORT.
port_open() { (: <>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		port_open "$p" || { echo "$p"; return; }
	done
}

# tree_pids PID: PID and all its descendants.
tree_pids() {
	local all=("$1") i=0 kids k
	while ((i < ${#all[@]})); do
		kids=$(ps -o pid= --ppid "${all[$i]}" 2>/dev/null || true)
		for k in $kids; do all+=("$k"); done
		i=$((i + 1))
	done
	echo "${all[@]}"
}

# tree_status PID: summed VmRSS in kB, thread count and process count of
# the process tree.
tree_status() {
	local rss=0 threads=0 n=0 p v
	for p in $(tree_pids "$1"); do
		[[ -r /proc/$p/status ]] || continue
		v=$(awk '/^VmRSS:/{print $2}' "/proc/$p/status")
		rss=$((rss + ${v:-0}))
		v=$(awk '/^Threads:/{print $2}' "/proc/$p/status")
		threads=$((threads + ${v:-0}))
		n=$((n + 1))
	done
	echo "$rss $threads $n"
}

# tree_rss_split PID: summed RssAnon and RssFile in kB over the process
# tree (anonymous memory is the heap and stacks; file-backed is mostly
# pages of the executable or, for Node, its loaded code).
tree_rss_split() {
	local anon=0 file=0 p v
	for p in $(tree_pids "$1"); do
		[[ -r /proc/$p/status ]] || continue
		v=$(awk '/^RssAnon:/{print $2}' "/proc/$p/status")
		anon=$((anon + ${v:-0}))
		v=$(awk '/^RssFile:/{print $2}' "/proc/$p/status")
		file=$((file + ${v:-0}))
	done
	echo "$anon $file"
}

# wait_ready PID PORT NAME: wait until the gateway on PORT accepts TCP
# and GET /readyz answers 200 without "ready":false (the real gateway
# listens seconds before its methods answer), at most 180 s.
wait_ready() {
	local pid=$1 port=$2 name=$3 deadline body code
	deadline=$(($(now_ns) + 180 * 1000000000))
	until port_open "$port"; do
		kill -0 "$pid" 2>/dev/null || { log "$name gateway exited while starting; see $RESULTS_DIR/$name-gateway.err"; exit 1; }
		(($(now_ns) < deadline)) || { log "$name gateway not listening after 180 s"; exit 1; }
		sleep 0.01
	done
	until
		body=$(curl -s -m 2 -w '\n%{http_code}' "http://127.0.0.1:$port/readyz" 2>/dev/null || true)
		code=${body##*$'\n'}
		[[ $code == 404 || ($code == 200 && $body != *'"ready":false'*) ]]
	do
		kill -0 "$pid" 2>/dev/null || { log "$name gateway exited while starting"; exit 1; }
		(($(now_ns) < deadline)) || { log "$name gateway not ready after 180 s"; exit 1; }
		sleep 0.02
	done
}

# stop_tree PID: SIGTERM, then SIGKILL to the process group after 30 s.
stop_tree() {
	local pid=$1 i
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 3000; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.01; done
	kill -KILL -- "-$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# get KEY: a result, or empty.
get() { echo "${R[$1]:-}"; }

# row LABEL KEY UNIT-SCALE BETTER: one table row of ours beside real.
# BETTER is "low", "high" or "none"; the ratio says how many times better
# ours is.
row() {
	local label=$1 key=$2 scale=$3 better=$4
	awk -v label="$label" -v o="$(get "ours.$key")" -v r="$(get "real.$key")" -v s="$scale" -v better="$better" 'BEGIN {
		fo = (o == "") ? "–" : sprintf(fmt(o / s), o / s)
		fr = (r == "") ? "–" : sprintf(fmt(r / s), r / s)
		ratio = "–"
		if (better != "none" && o != "" && r != "" && o > 0 && r > 0)
			ratio = sprintf("%.1fx", better == "low" ? r / o : o / r)
		printf "| %s | %s | %s | %s |\n", label, fo, fr, ratio
	}
	function fmt(v) {
		if (v == int(v)) return "%d"
		return v >= 100 ? "%.0f" : (v >= 10 ? "%.1f" : (v >= 1 ? "%.2f" : "%.3f"))
	}'
}

# bench_workdir NAME empties $RESULTS_DIR, makes a scratch folder $work
# and, when the script exits, ends every process group listed in running
# and removes $work.
running=() # process group ids to end on exit
bench_workdir() {
	rm -rf "$RESULTS_DIR"
	mkdir -p "$RESULTS_DIR"
	work=$(mktemp -d "${TMPDIR:-/tmp}/openclaw-$1.XXXXXX")
	trap bench_cleanup EXIT
}
bench_cleanup() {
	local p
	for p in "${running[@]}"; do kill -KILL -- "-$p" 2>/dev/null || true; done
	rm -rf "$work"
}
