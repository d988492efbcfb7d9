#!/usr/bin/env bash
# Builds ./cmd/openclaw into .cache/bin/openclaw and starts the gateway
# with working defaults: the first of the README's two commands. Extra
# arguments go to `openclaw gateway` (e.g. --port 18790).
#
# It is `go build` and `openclaw gateway`, with progress: the first build
# compiles several hundred packages (the standard library, SQLite, the
# channel libraries) and takes minutes on a small machine, so each package
# is shown as it compiles, counted against the total. Later builds reuse
# Go's build cache and take seconds. The binary is static (no cgo) and
# stripped, the same as a release build.
#
# OPENCLAW_TAGS=postgres links the PostgreSQL driver, for store.driver
# "postgres" (several gateways on one database); the default build leaves
# it out, which keeps the binary under 40 MiB.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bin=.cache/bin/openclaw
mkdir -p "$(dirname "$bin")"
printf '== resolving packages (the first run downloads the modules)\n' >&2
export CGO_ENABLED=0
total=$(go list -deps ./cmd/openclaw | wc -l)
printf '== building %s (%d packages; a first build takes minutes, later ones seconds)\n' "$bin" "$total" >&2
start=$(date +%s)
# go build -v names each package as it compiles it (none when cached);
# anything else it prints (an error) passes through unnumbered. A shell
# loop, not awk: some awks read a pipe in blocks and would hold the lines.
n=0 status=1
while IFS= read -r line; do
	if [[ $line == "go build exit "* ]]; then
		status=${line#go build exit }
	elif [[ $line =~ ^[A-Za-z0-9._~/-]+$ ]]; then
		n=$((n + 1))
		printf '[%d/%d] %s\n' "$n" "$total" "$line" >&2
	else
		printf '%s\n' "$line" >&2
	fi
done < <(go build -v -trimpath -tags "${OPENCLAW_TAGS:-}" -ldflags "-s -w" -o "$bin" ./cmd/openclaw 2>&1; echo "go build exit $?")
((status == 0)) || { printf '== the build failed\n' >&2; exit "$status"; }
printf '== built in %ds; starting the gateway\n' "$(($(date +%s) - start))" >&2
exec "$bin" gateway "$@"
