// Package harness runs the built openclaw binary for end-to-end tests
// that live outside package e2e (the attack suite in e2e/security): it
// builds ./cmd/openclaw once per test binary, starts gateways on free
// loopback ports with a private HOME, state folder and config, runs the
// CLI against them, and opens authenticated or raw connections to the
// bus.
//
// It is test support: only tests import it (the e2e tree, and the soak
// run in bench/soak).
package harness
