//go:build unix

package browser

import (
	"errors"
	"os/exec"
	"syscall"
)

// setProcessGroup puts Chromium in a group of its own so that kill
// reaches its zygote and renderer children too.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killProcessGroup(cmd *exec.Cmd) {
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		cmd.Process.Kill()
	}
}

func terminateProcess(cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGTERM)
}

// processAlive reports whether a process with pid exists (a zombie
// counts: its parent has not reaped it yet).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
