#!/usr/bin/env bash
# Footprint: builds the gateway as a release would (static, stripped) and
# measures its memory idle on a default config, idle with Telegram,
# Discord and Slack connected to their fakes, and the growth over 1,000
# agent sessions. See bench/README.md, "Footprint".
#
#   bash bench/footprint.sh
#   bash bench/footprint.sh -footprint-sessions 5000 -footprint-idle 30s
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
while read -r v; do unset "$v"; done < <(compgen -e | grep -E '^(OPENCLAW_|CLAWDBOT_)' || true)
# Not -race, and one test at a time so the readings do not share the CPU.
go test -run 'TestIdleDefault|TestIdleThreeChannels|TestSessionGrowth' -count 1 -p 1 -parallel 1 -timeout 30m -v ./bench/footprint/ \
	-args -footprint "$@" 2>&1 | grep -E 'FIGURE|^(--- |ok|FAIL|panic)' | sed 's/^ *footprint_test.go:[0-9]*: FIGURE /  /'
