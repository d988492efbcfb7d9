package host

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"sync"
	"time"
)

// MaxOutputBytes caps what system.run returns of a command's output,
// stdout and stderr together, as the real node host does.
const MaxOutputBytes = 200_000

// waitDelay bounds how long a finished (or killed) command's output pipes
// may stay open, held by a descendant that outlived it.
const waitDelay = 2 * time.Second

// runSpec is one command to execute.
type runSpec struct {
	path    string   // executable to start
	argv    []string // argv[0] included
	dir     string   // working directory, "" for the node's
	env     []string // full environment
	timeout time.Duration
	limit   int // output cap; MaxOutputBytes when zero
}

// runResult is the payload of system.run.
type runResult struct {
	ExitCode  *int    `json:"exitCode"`
	TimedOut  bool    `json:"timedOut"`
	Success   bool    `json:"success"`
	Stdout    string  `json:"stdout"`
	Stderr    string  `json:"stderr"`
	Error     *string `json:"error"`
	Truncated bool    `json:"truncated"`
}

// budget is the output allowance shared by stdout and stderr.
type budget struct {
	mu        sync.Mutex
	left      int
	truncated bool
}

// cappedBuffer keeps what fits in its budget and drops the rest, always
// reporting a full write so the command never sees a broken pipe.
type cappedBuffer struct {
	b   *budget
	buf []byte
}

func (w *cappedBuffer) Write(p []byte) (int, error) {
	w.b.mu.Lock()
	defer w.b.mu.Unlock()
	n := min(len(p), w.b.left)
	w.buf = append(w.buf, p[:n]...)
	w.b.left -= n
	if n < len(p) {
		w.b.truncated = true
	}
	return len(p), nil
}

func (w *cappedBuffer) String() string {
	w.b.mu.Lock()
	defer w.b.mu.Unlock()
	return string(w.buf)
}

// execute runs spec to completion, its timeout, or ctx's end. It never
// returns an error: a command that cannot start is reported in
// runResult.Error.
func execute(ctx context.Context, spec runSpec) runResult {
	limit := spec.limit
	if limit <= 0 {
		limit = MaxOutputBytes
	}
	b := &budget{left: limit}
	stdout, stderr := &cappedBuffer{b: b}, &cappedBuffer{b: b}

	cmd := &exec.Cmd{Path: spec.path, Args: spec.argv, Dir: spec.dir, Env: spec.env,
		Stdout: stdout, Stderr: stderr, WaitDelay: waitDelay}
	ownGroup(cmd)

	var res runResult
	if err := cmd.Start(); err != nil {
		msg := "spawn failed: " + err.Error()
		res.Error = &msg
		return res
	}
	var timer <-chan time.Time
	if spec.timeout > 0 {
		t := time.NewTimer(spec.timeout)
		defer t.Stop()
		timer = t.C
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	var err error
	select {
	case err = <-waited:
	case <-timer:
		res.TimedOut = true
		killGroup(cmd.Process)
		err = <-waited
	case <-ctx.Done():
		killGroup(cmd.Process)
		err = <-waited
		msg := "cancelled: " + ctx.Err().Error()
		res.Error = &msg
	}
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	b.mu.Lock()
	res.Truncated = b.truncated
	b.mu.Unlock()

	if st := cmd.ProcessState; st != nil {
		if code := st.ExitCode(); code >= 0 {
			res.ExitCode = &code
		}
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
	case errors.Is(err, exec.ErrWaitDelay):
		// Exited, but a descendant kept the output open; what it wrote
		// after waitDelay is lost.
	default:
		if res.Error == nil {
			msg := err.Error()
			res.Error = &msg
		}
	}
	if res.TimedOut && res.Error == nil {
		msg := "command timed out after " + spec.timeout.String()
		res.Error = &msg
	}
	res.Success = res.ExitCode != nil && *res.ExitCode == 0 && !res.TimedOut && res.Error == nil
	return res
}

// environ is the node's environment with extra (NAME=value) added or
// replacing what is there.
func environ(extra map[string]string) []string {
	env := make([]string, 0, len(os.Environ())+len(extra))
	for _, kv := range os.Environ() {
		name := kv
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' && i > 0 {
				name = kv[:i]
				break
			}
		}
		if _, ok := extra[name]; ok {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return env
}
