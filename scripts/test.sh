#!/usr/bin/env bash
# Sets up what the tests need, then runs every test: the second of the
# README's two commands, and what .ci/run calls.
#
# The end-to-end tests drive OpenClaw's TUI in tmux, the WebChat page in
# Chromium, render CJK text with a TrueType font, run sandboxed exec in
# bubblewrap and against a loopback sshd, and use the real
# OpenClaw CLI under Node 24 as a client; the store's tests start a
# throwaway PostgreSQL server from Debian's postgresql binaries, and the
# components ported to PostgreSQL run their tests a second time on it. The system packages come from
# apt-get when this runs as root on Debian or Ubuntu; otherwise the script
# names what to install and stops. Node 24 and OpenClaw are installed with
# npm into .cache/openclaw-real/ (ignored by git; quick once there).
#
#   scripts/test.sh                      # go test -race -timeout 45m ./...
#   scripts/test.sh -run TestName        # extra arguments go to go test
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf '== %s\n' "$*"; }

missing=() # Debian package names
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
[[ -x /usr/bin/chromium ]] || missing+=(chromium)
[[ -f /usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf ]] || missing+=(fonts-droid-fallback)
command -v npm >/dev/null 2>&1 || missing+=(npm)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
[[ -x /usr/sbin/sshd ]] || missing+=(openssh-server)
compgen -G '/usr/lib/postgresql/*/bin/pg_ctl' >/dev/null || missing+=(postgresql)
if ((${#missing[@]} > 0)); then
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
		say "installing ${missing[*]} (the end-to-end tests need them)"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
	else
		printf 'scripts/test.sh: the tests need %s, which this machine lacks.\n' "${missing[*]}" >&2
		printf 'On Debian or Ubuntu: sudo apt-get install -y %s\n' "${missing[*]}" >&2
		printf '(tmux and Chromium at /usr/bin/chromium for the end-to-end tests, the font for\n' >&2
		printf 'PdfRenderTool'\''s CJK text, npm to install Node 24 and the real OpenClaw CLI, bwrap for\n' >&2
		printf 'the local sandbox, sshd for the ssh sandbox'\''s tests and postgresql for the store'\''s.)\n' >&2
		exit 1
	fi
fi

say "Node 24 and the real OpenClaw CLI in .cache/openclaw-real (npm; skipped when there)"
bash scripts/install-openclaw-real.sh >/dev/null

# The end-to-end package starts the built binary, the real OpenClaw CLI,
# TUI and node host and Chromium dozens of times; on two cores under
# -race it runs past go test's default 10-minute limit per package, which
# would kill it mid-test and leave gateways behind. A later -timeout in
# the arguments wins.
# With the binaries present, a test that wants PostgreSQL and cannot
# start it fails rather than skips.
# The postgres tag links the PostgreSQL driver into the tests (the release
# binary leaves it out for its size; OPENCLAW_TAGS=postgres scripts/gateway.sh
# builds the gateway with it).
export OPENCLAW_TEST_POSTGRES=require
say "go test -race -tags postgres -timeout 45m ./... $*"
if (($# > 0)); then
	exec go test -race -tags postgres -timeout 45m ./... "$@"
fi
go test -race -tags postgres -timeout 45m ./...

# The packages whose state is ported to PostgreSQL, again on it. Without
# -race: this pass is about the SQL, and the first pass ran these tests
# under the race detector already.
pg_packages=(./gateway ./gateway/store/... ./tools/memory ./tools/wiki ./agents/sessions ./gateway/devices ./gateway/cron ./nodes ./channels ./tools ./gateway/toolhost ./gateway/admin ./gateway/automation ./gateway/channelhost ./agents ./channels/telegram ./channels/discord ./channels/whatsapp ./tools/contentstudio)
say "OPENCLAW_TEST_STORE=postgres go test -tags postgres ${pg_packages[*]}"
OPENCLAW_TEST_STORE=postgres go test -tags postgres -timeout 20m "${pg_packages[@]}"
