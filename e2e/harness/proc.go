package harness

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// SyncBuffer is a bytes.Buffer safe for a process writing while a test
// reads.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// proc is a long-running child in its own process group, so stopping it
// also ends what it started.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr SyncBuffer
	done           chan struct{}
	err            error // from Wait; read after done
}

func startProc(env []string, dir string, argv ...string) (*proc, error) {
	p := &proc{done: make(chan struct{})}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Env, p.cmd.Dir = env, dir
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends sig to the process group and, after a grace of 10 s,
// SIGKILL; it returns when the process has ended.
func (p *proc) stop(sig syscall.Signal) {
	pgid := p.cmd.Process.Pid
	if !p.exited() {
		syscall.Kill(-pgid, sig)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-pgid, syscall.SIGKILL)
			<-p.done
		}
	}
	syscall.Kill(-pgid, syscall.SIGKILL) // leftover children, if any
}

func (p *proc) report() string {
	state := "running"
	if p.exited() {
		state = fmt.Sprintf("exited: %v", p.err)
	}
	return fmt.Sprintf("--- gateway (%s) [%s]\n--- stdout:\n%s\n--- stderr:\n%s",
		strings.Join(p.cmd.Args, " "), state, Clip(p.stdout.String()), Clip(p.stderr.String()))
}

// Clip keeps the last 32 KB of a log.
func Clip(s string) string {
	const max = 32 << 10
	if len(s) > max {
		return "…(cut)…" + s[len(s)-max:]
	}
	return s
}
