package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/e2e/harness"
)

// Shared with the attack suite in e2e/security.
type syncBuffer = harness.SyncBuffer

var (
	clip     = harness.Clip
	baseEnv  = harness.BaseEnv
	freePort = harness.FreePort
	poll     = harness.Poll
)

// proc is a long-running child process (a gateway) with captured output.
// It runs in its own process group so stopping it also ends its helpers.
type proc struct {
	name   string
	cmd    *exec.Cmd
	stdout syncBuffer
	stderr syncBuffer
	done   chan struct{}
	err    error // from Wait; read after done
}

// startProc starts argv with env and registers a cleanup that stops it
// and, when the test failed, logs its output.
func startProc(t *testing.T, name string, env []string, dir string, argv ...string) *proc {
	t.Helper()
	recordInputs()
	p := &proc{name: name, done: make(chan struct{})}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Env = env
	p.cmd.Dir = dir
	p.cmd.Stdout = &p.stdout
	p.cmd.Stderr = &p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop()
		if strings.Contains(p.stderr.String(), raceReport) {
			t.Errorf("%s reported a data race", name)
		}
		if t.Failed() {
			t.Log(p.report())
		}
	})
	return p
}

// raceReport starts the race detector's report on stderr.
const raceReport = "WARNING: DATA RACE"

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wait waits up to d for the process to end and returns its exit code
// (-1 when killed by a signal) and whether it ended.
func (p *proc) wait(d time.Duration) (code int, ok bool) {
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode(), true
	case <-time.After(d):
		return 0, false
	}
}

// signal sends sig to the process itself (not its group), as `kill PID`.
func (p *proc) signal(sig syscall.Signal) error {
	return p.cmd.Process.Signal(sig)
}

// stop ends the process group: SIGTERM, then SIGKILL after stopGrace.
func (p *proc) stop() {
	pgid := p.cmd.Process.Pid
	if p.exited() {
		syscall.Kill(-pgid, syscall.SIGKILL) // leftover helpers, if any
		return
	}
	syscall.Kill(-pgid, syscall.SIGTERM)
	if _, ok := p.wait(stopGrace); !ok {
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
}

// mark is a position in a process's output.
type mark struct{ stdout, stderr int }

// mark returns the current end of the output.
func (p *proc) mark() mark { return mark{len(p.stdout.String()), len(p.stderr.String())} }

// outputSince is what the process printed after m, stdout then stderr.
func (p *proc) outputSince(m mark) string {
	return p.stdout.String()[m.stdout:] + p.stderr.String()[m.stderr:]
}

func (p *proc) report() string {
	state := "running"
	if p.exited() {
		state = fmt.Sprintf("exited: %v", p.err)
		if p.err == nil {
			state = "exited 0"
		}
	}
	return fmt.Sprintf("--- %s (%s) [%s]\n--- stdout:\n%s\n--- stderr:\n%s",
		p.name, strings.Join(p.cmd.Args, " "), state, clip(p.stdout.String()), clip(p.stderr.String()))
}

// result is one finished CLI command.
type result struct {
	Args   []string
	Stdout string
	Stderr string
	Code   int // -1 when it did not run or was killed
	Err    error
	Took   time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("$ %s\n[exit %d, %v, err=%v]\n--- stdout:\n%s\n--- stderr:\n%s",
		strings.Join(r.Args, " "), r.Code, r.Took.Round(time.Millisecond), r.Err, clip(r.Stdout), clip(r.Stderr))
}

// mustSucceed fails the test unless the command exited 0.
func (r result) mustSucceed(t *testing.T) {
	t.Helper()
	if r.Code != 0 {
		t.Fatalf("command failed:\n%s", r)
	}
}

// runCmd runs argv to completion in its own process group.
func runCmd(t *testing.T, env []string, dir string, argv ...string) result {
	t.Helper()
	recordInputs()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = dir
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	r := result{Args: argv, Stdout: stdout.String(), Stderr: stderr.String(), Err: err, Took: time.Since(start), Code: -1}
	if cmd.ProcessState != nil {
		r.Code = cmd.ProcessState.ExitCode()
		// A helper left behind by the CLI must not outlive the test.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if ctx.Err() != nil {
		r.Err = fmt.Errorf("timed out after %v: %w", cliTimeout, ctx.Err())
	}
	if strings.Contains(r.Stderr, raceReport) {
		t.Errorf("data race reported:\n%s", r)
	}
	return r
}

// isolatedEnv returns baseEnv plus a private HOME, state folder, config
// path and TMPDIR under dir.
func isolatedEnv(t *testing.T, dir string) (env []string, stateDir, configPath string) {
	t.Helper()
	home := filepath.Join(dir, "home")
	stateDir = filepath.Join(dir, "state")
	tmp := filepath.Join(dir, "tmp")
	for _, d := range []string{home, stateDir, tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	configPath = filepath.Join(stateDir, "openclaw.json")
	env = append(baseEnv(),
		"HOME="+home,
		"OPENCLAW_HOME="+home,
		"OPENCLAW_STATE_DIR="+stateDir,
		"OPENCLAW_CONFIG_PATH="+configPath,
		"TMPDIR="+tmp,
	)
	return env, stateDir, configPath
}

func randomToken(t *testing.T) string {
	t.Helper()
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "e2e-" + hex.EncodeToString(b)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
