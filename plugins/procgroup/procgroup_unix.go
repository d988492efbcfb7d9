//go:build unix

package procgroup

import (
	"errors"
	"os/exec"
	"syscall"
)

// Own makes cmd, when it starts, the leader of a new process group whose
// id is its pid.
func Own(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// signalGroup sends SIGTERM, or SIGKILL with kill, to the group pgid; it
// reports whether the group still had a member to signal.
func signalGroup(pgid int, kill bool) bool {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	return !errors.Is(syscall.Kill(-pgid, sig), syscall.ESRCH)
}

// memberLeft reports whether the group pgid has a member that signals
// reach; a zombie does, so groupAlive may look closer.
func memberLeft(pgid int) bool {
	return !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}
