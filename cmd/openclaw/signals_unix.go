//go:build !windows

package main

import (
	"os"
	"syscall"
)

// restartSignals make a running gateway restart in place (SIGUSR1, as
// OpenClaw's gateway does).
var restartSignals = []os.Signal{syscall.SIGUSR1}
