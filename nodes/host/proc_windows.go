//go:build windows

package host

import (
	"os"
	"os/exec"
)

// ownGroup does nothing on Windows; killGroup kills the process only.
func ownGroup(*exec.Cmd) {}

// killGroup kills p (its descendants survive on Windows).
func killGroup(p *os.Process) { _ = p.Kill() }
