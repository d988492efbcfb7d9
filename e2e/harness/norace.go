//go:build !race

package harness

// raceEnabled: the tests run without -race, so the binary is built without.
const raceEnabled = false
