//go:build !windows

package shell

import (
	"os"
	osexec "os/exec"
	"syscall"

	"github.com/creack/pty"
)

// startPTY starts cmd with a new pseudo-terminal on all three streams and
// returns the terminal's controlling side. pty.Start makes the child a
// session leader with the terminal as its controlling tty; a session
// leader is also its own process group, so killGroup still reaches every
// descendant.
func startPTY(cmd *osexec.Cmd) (*os.File, error) {
	return pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
}

// ownGroup puts the command in a process group of its own, so killGroup
// ends whatever it spawned, not only the shell.
func ownGroup(cmd *osexec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group p leads.
func killGroup(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
}
