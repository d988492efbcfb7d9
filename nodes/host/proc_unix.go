//go:build !windows

package host

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup puts the command in a process group of its own, so killGroup
// ends whatever it spawned, not only the command.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group p leads.
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
}
