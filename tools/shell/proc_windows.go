//go:build windows

package shell

import (
	"errors"
	"os"
	osexec "os/exec"
	"syscall"
)

// errNoPTY is returned for exec with pty on Windows, which has no
// pseudo-terminals of the kind creack/pty opens (ConPTY is another API).
var errNoPTY = errors.New("pty is not supported on Windows; run the command without pty")

func startPTY(*osexec.Cmd) (*os.File, error) { return nil, errNoPTY }

// ownGroup gives the command a process group of its own and sets its
// command line by hand (see cmdLine).
func ownGroup(cmd *osexec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: cmdLine(cmd.Args), CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup kills the shell. Windows has no process-group kill; the
// shell's own children can outlive it (a job object would catch them).
func killGroup(p *os.Process) {
	p.Kill()
}
