#!/usr/bin/env bash
# The gateway's memory with one browser open: starts our gateway in an
# isolated home (as bench/run.sh does), reads its idle RSS, opens a local
# page through `openclaw gateway call tools.invoke` (the browser tool,
# which starts a headless Chromium as the gateway's child), waits, and
# reads the gateway's RSS again beside Chromium's, summed over every
# descendant of the gateway. Prints a markdown table. Needs chromium and
# python3 (the page is served by `python3 -m http.server`). Linux only
# (/proc).
#
#   bash bench/browser.sh
#
# Environment:
#   IDLE_SECONDS   wait before the idle reading (default: 5)
#   OPEN_SECONDS   wait after the page opened (default: 5)
#   RESULTS_DIR    logs (default: .cache/bench/browser)
#
# The snapshot and act timings are Go benchmarks:
#   go test -run '^$' -bench . -benchtime 20x ./tools/browser/
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

IDLE_SECONDS=${IDLE_SECONDS:-5}
OPEN_SECONDS=${OPEN_SECONDS:-5}
RESULTS_DIR=${RESULTS_DIR:-$root/.cache/bench/browser}
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

# Nothing from the caller's environment may point the gateway at real state.
while read -r v; do unset "$v"; done < <(compgen -e | grep -E '^(OPENCLAW_|CLAWDBOT_)' || true)

bench_workdir bench-browser
chromium_pgs=() # Chromium runs in a process group of its own; ended on exit too

# vm_kb PID FIELD: a /proc/PID/status field in kB (VmRSS, VmHWM).
vm_kb() { awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

# pss_kb PID: proportional set size, shared pages split among sharers.
pss_kb() { awk '$1 == "Pss:" {print $2}' "/proc/$1/smaps_rollup" 2>/dev/null || echo 0; }

# descendants_status PID: summed VmRSS and Pss in kB and the process
# count of PID's descendants (not PID itself).
descendants_status() {
	local rss=0 pss=0 n=0 p
	for p in $(tree_pids "$1"); do
		[[ $p == "$1" || ! -r /proc/$p/status ]] && continue
		rss=$((rss + $(vm_kb "$p" VmRSS)))
		pss=$((pss + $(pss_kb "$p")))
		n=$((n + 1))
	done
	echo "$rss $pss $n"
}

log "building ./cmd/openclaw"
go build -o "$work/openclaw" ./cmd/openclaw

# The page, served on a free port.
mkdir -p "$work/site"
cat >"$work/site/index.html" <<-'EOF'
	<!doctype html><html><head><title>Bench page</title></head><body>
	<h1>Bench page</h1><p>A simple page for the memory reading.</p>
	<form><label>Email <input name="email"></label><button type="button">Send</button></form>
	<ul><li><a href="/a">First</a></li><li><a href="/b">Second</a></li></ul>
	</body></html>
EOF
site_port=$(free_port)
setsid python3 -m http.server "$site_port" --bind 127.0.0.1 --directory "$work/site" >"$RESULTS_DIR/site.log" 2>&1 &
running+=("$!")
disown "$!"

# The gateway, isolated.
dir=$work/gw
mkdir -p "$dir/home" "$dir/state" "$dir/tmp"
port=$(free_port)
token=bench-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
cat >"$dir/state/openclaw.json" <<-EOF
	{
	  browser: { ssrfPolicy: { allowedHostnames: ["localhost"] } },
	  tools: { disclosure: { mode: "legacy" } },
	}
EOF
env=(
	"HOME=$dir/home" "OPENCLAW_HOME=$dir/home" "OPENCLAW_STATE_DIR=$dir/state"
	"OPENCLAW_CONFIG_PATH=$dir/state/openclaw.json" "TMPDIR=$dir/tmp" "OPENCLAW_GATEWAY_TOKEN=$token"
)
log "starting the gateway on port $port"
env "${env[@]}" setsid "$work/openclaw" gateway --port "$port" >"$RESULTS_DIR/gateway.out" 2>"$RESULTS_DIR/gateway.err" &
pid=$!
running+=("$pid")
wait_ready "$pid" "$port" gateway
until port_open "$site_port"; do sleep 0.05; done

sleep "$IDLE_SECONDS"
idle_rss=$(vm_kb "$pid" VmRSS)
read -r idle_kids_rss _ idle_kids < <(descendants_status "$pid")
log "idle: gateway VmRSS $idle_rss kB, $idle_kids descendants"

gwcall() {
	env "${env[@]}" "$work/openclaw" gateway call tools.invoke --url "ws://127.0.0.1:$port" --token "$token" \
		--params "$1"
}
t0=$(now_ns)
gwcall '{"name":"browser","args":{"action":"open","url":"http://localhost:'"$site_port"'/"}}' >"$RESULTS_DIR/open.json" 2>"$RESULTS_DIR/open.err" ||
	{ log "open failed:"; cat "$RESULTS_DIR/open.json" "$RESULTS_DIR/open.err" >&2; exit 1; }
open_ms=$((($(now_ns) - t0) / 1000000))
grep -q '"Bench page' "$RESULTS_DIR/open.json" ||
	{ log "open did not reach the page:"; cat "$RESULTS_DIR/open.json" >&2; exit 1; }
for p in $(ps -o pid= --ppid "$pid"); do chromium_pgs+=("$p"); running+=("$p"); done
log "open took $open_ms ms (Chromium start, tab, navigation, one CLI connection)"

sleep "$OPEN_SECONDS"
open_rss=$(vm_kb "$pid" VmRSS)
open_hwm=$(vm_kb "$pid" VmHWM)
read -r kids_rss kids_pss kids < <(descendants_status "$pid")
gwcall '{"name":"browser","args":{"action":"snapshot"}}' >"$RESULTS_DIR/snapshot.json" 2>&1 || true
for p in $(tree_pids "$pid"); do
	[[ $p == "$pid" ]] && continue
	printf '%s rss=%s pss=%s %s\n' "$p" "$(vm_kb "$p" VmRSS)" "$(pss_kb "$p")" "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-160)"
done >"$RESULTS_DIR/chromium-processes.txt"

# Stop: SIGTERM closes the browser, then the process groups go.
stop_tree "$pid"
for p in "${chromium_pgs[@]}"; do kill -0 "$p" 2>/dev/null && log "Chromium $p outlived the gateway's SIGTERM"; done

mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
cat <<EOF

Our gateway with one headless Chromium open, $(nproc) cores, $(date -u +%Y-%m-%d), load average $(cut -d' ' -f1-3 /proc/loadavg); $("$work/openclaw" --version 2>/dev/null | head -n1).

| figure | value |
| --- | --- |
| gateway RSS, idle, no browser (MB) | $(mb "$idle_rss") |
| gateway RSS, one browser open, ${OPEN_SECONDS} s after open (MB) | $(mb "$open_rss") |
| gateway peak RSS (VmHWM, MB) | $(mb "$open_hwm") |
| Chromium processes (descendants of the gateway) | $kids |
| Chromium RSS summed over them (MB) | $(mb "$kids_rss") |
| Chromium PSS summed over them (MB) | $(mb "$kids_pss") |
| open through tools.invoke, browser not running (ms) | $open_ms |

EOF
log "logs in $RESULTS_DIR"
