//go:build !race

package e2e

// raceEnabled: the tests run without -race, so our binary is built without.
const raceEnabled = false
