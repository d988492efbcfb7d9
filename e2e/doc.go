// Package e2e holds end-to-end tests that run the built openclaw binary as
// a separate process and drive it the way users do: with the real OpenClaw
// CLI (the TypeScript original, installed by scripts/install-openclaw-real.sh)
// and with our own CLI.
//
// TestMain builds ./cmd/openclaw once (with -race when the tests run with
// -race) and installs the real CLI when it is missing. Every test starts its
// own gateway on a free loopback port with a private HOME, state folder and
// config file, so the tests run in parallel and never touch the user's
// ~/.openclaw.
//
// Environment:
//
//	OPENCLAW_E2E_SKIP_REAL=1   skip the tests that need the real CLI (and
//	                           do not install it)
//	OPENCLAW_E2E_GATEWAY=real  run the gateway-facing tests against the real
//	                           OpenClaw gateway instead of ours, to check the
//	                           tests themselves; tests of our own gateway's
//	                           behaviour are skipped
//	OPENCLAW_E2E_SKIP_BROWSER=1 skip the browser tests (WebChat, Control UI,
//	                           the browser CLI), which otherwise need
//	                           Debian's chromium at /usr/bin/chromium
//	OPENCLAW_UI_SHOTS=DIR      keep the Control UI test's screenshots, one
//	                           PNG per view and theme, in DIR
//
// The package has no non-test code besides this comment. Its results depend
// on a binary built from packages it does not import; recordInputs makes
// go test's result cache see every source file of the repo, so a change
// anywhere reruns these tests.
package e2e
