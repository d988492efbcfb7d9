//go:build !unix

package browser

import "os/exec"

func setProcessGroup(*exec.Cmd) {}

func killProcessGroup(cmd *exec.Cmd) { cmd.Process.Kill() }

func terminateProcess(cmd *exec.Cmd) { cmd.Process.Kill() }

// processAlive cannot tell here; the caller then does not wait.
func processAlive(int) bool { return false }
