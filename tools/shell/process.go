package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/sandbox"
)

// Processes is the table of commands exec started. A process belongs to
// the agent and the session whose call started it, and remembers whether
// that call was the owner's: the owner's turns see every process of their
// agent (OpenClaw scopes process per agent), anyone else only those a
// non-owner started in their own session. Otherwise a chat stranger
// sharing the agent (or, under session.dmScope "main", even the owner's
// session) could list the owner's background shell, read its output and
// write commands to its stdin, which is exec without the approval exec
// needs. The table lives as long as the gateway; Close kills what still
// runs.
type Processes struct {
	mu    sync.Mutex
	procs map[string]*proc
}

// NewProcesses makes an empty table.
func NewProcesses() *Processes { return &Processes{procs: map[string]*proc{}} }

type proc struct {
	id, agent, session, command string
	byOwner                     bool
	started                     time.Time
	cmd                         *osexec.Cmd
	stdin                       io.WriteCloser
	stdout, stderr              *os.File
	done                        chan struct{}
	exitCode                    int
	timedOut                    atomic.Bool
	killed                      atomic.Bool   // kill was called: a sandbox may have left something behind
	killedByCaller              atomic.Bool   // the process tool's kill or remove: no exit notice
	noticed                     chan struct{} // closed once a background run's exit was handled
	pollMu                      sync.Mutex
	readOut                     int64 // poll cursor into stdout
}

// startOptions are what one exec run asks of the process table.
type startOptions struct {
	agent, session, command, dir string
	byOwner                      bool
	env                          []string // extra KEY=value pairs, already checked
	timeout                      time.Duration
	pty                          bool
	// spawn, when set, is the sandboxed program to start in place of
	// the host shell, with its own environment.
	spawn *sandbox.Spawn
}

// start runs command with the platform's shell (shellArgv) in dir,
// writing output to temporary files (not pipes, so a chatty command
// never blocks on a full pipe).
// With a PTY the command sees a terminal on all three streams, so its
// output (stderr included) arrives on stdout as a terminal shows it.
func (t *Processes) start(o startOptions) (*proc, error) {
	out, err := os.CreateTemp("", "openclaw-exec-out-*")
	if err != nil {
		return nil, fmt.Errorf("exec: %w", err)
	}
	errf, err := os.CreateTemp("", "openclaw-exec-err-*")
	if err != nil {
		out.Close()
		return nil, fmt.Errorf("exec: %w", err)
	}
	cleanup := func() {
		out.Close()
		os.Remove(out.Name())
		errf.Close()
		os.Remove(errf.Name())
	}
	argv := shellArgv(runtime.GOOS, o.command)
	env := append(append(os.Environ(), "OPENCLAW_SHELL=exec"), o.env...)
	if o.spawn != nil {
		argv, env = o.spawn.Argv, o.spawn.Env
	}
	cmd := osexec.Command(argv[0], argv[1:]...)
	cmd.Dir = o.dir
	cmd.Env = env
	p := &proc{id: uuid.NewString()[:8], agent: o.agent, session: o.session, byOwner: o.byOwner, command: o.command, started: time.Now(), cmd: cmd,
		stdout: out, stderr: errf, done: make(chan struct{}), noticed: make(chan struct{})}
	var copied chan struct{} // closed when the terminal's output is all in out
	if o.pty {
		cmd.Env = append(cmd.Env, "TERM=xterm-256color")
		tty, err := startPTY(cmd)
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("exec: start with a terminal: %w", err)
		}
		p.stdin = tty
		copied = make(chan struct{})
		go func() {
			io.Copy(out, tty) // ends with EIO once no process holds the terminal
			close(copied)
		}()
	} else {
		cmd.Stdout, cmd.Stderr = out, errf
		ownGroup(cmd)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("exec: %w", err)
		}
		p.stdin = stdin
		if err := cmd.Start(); err != nil {
			cleanup()
			return nil, fmt.Errorf("exec: start: %w", err)
		}
	}
	var timer *time.Timer
	if o.timeout > 0 {
		timer = time.AfterFunc(o.timeout, func() {
			p.timedOut.Store(true)
			p.kill()
		})
	}
	go func() {
		err := cmd.Wait()
		if timer != nil {
			timer.Stop()
		}
		if o.spawn != nil && o.spawn.Cleanup != nil && p.killed.Load() {
			// What a killed docker or ssh client leaves running: the
			// container, the remote command.
			o.spawn.Cleanup()
		}
		if copied != nil {
			// A child that left the group may still hold the terminal; its
			// output after ours ended is not worth hanging the run for.
			select {
			case <-copied:
			case <-time.After(2 * time.Second):
			}
			p.stdin.Close()
			<-copied
		}
		p.exitCode = 0
		var ee *osexec.ExitError
		if errors.As(err, &ee) {
			p.exitCode = ee.ExitCode()
		} else if err != nil {
			p.exitCode = -1
		}
		close(p.done)
	}()
	t.mu.Lock()
	t.procs[p.id] = p
	t.mu.Unlock()
	return p, nil
}

// kill ends the command's whole process group.
func (p *proc) kill() {
	p.killed.Store(true)
	if p.cmd.Process != nil {
		killGroup(p.cmd.Process)
	}
}

func (p *proc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// result reads the capped output of a finished command.
func (p *proc) result(limit int) Result {
	code := p.exitCode
	return Result{Status: "completed", ExitCode: &code, TimedOut: p.timedOut.Load(),
		Stdout: capped(p.stdout, 0, limit), Stderr: capped(p.stderr, 0, limit)}
}

// capped reads f from offset, at most limit bytes, saying so when cut.
func capped(f *os.File, offset int64, limit int) string {
	s, rest := readRange(f, offset, limit)
	if rest > 0 {
		s += fmt.Sprintf("\n[output capped at %d of %d bytes]", limit, int64(len(s))+rest)
	}
	return s
}

// readRange reads at most limit bytes of f from offset and says how many
// bytes remain after them.
func readRange(f *os.File, offset int64, limit int) (string, int64) {
	fi, err := f.Stat()
	if err != nil {
		return "", 0
	}
	size := fi.Size() - offset
	n := min(size, int64(limit))
	if n <= 0 {
		return "", 0
	}
	buf := make([]byte, n)
	m, _ := f.ReadAt(buf, offset)
	return string(buf[:m]), size - int64(m)
}

// visibleTo reports whether who may see and act on p: same agent, and
// the owner, or a non-owner in the session where a non-owner started it.
func (p *proc) visibleTo(who tools.Who) bool {
	return p.agent == who.AgentID && (who.Owner || (!p.byOwner && p.session == who.SessionKey))
}

// get finds a process who may act on; another caller's process is
// answered as unknown, so its id learns nothing.
func (t *Processes) get(who tools.Who, id string) (*proc, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.procs[id]
	if !ok || !p.visibleTo(who) {
		return nil, fmt.Errorf("no process session %q", id)
	}
	return p, nil
}

func (t *Processes) remove(id string) {
	t.mu.Lock()
	p := t.procs[id]
	delete(t.procs, id)
	t.mu.Unlock()
	if p != nil {
		p.stdout.Close()
		os.Remove(p.stdout.Name())
		p.stderr.Close()
		os.Remove(p.stderr.Name())
	}
}

// background follows a command exec left running: when it exits (and not
// because the process tool killed it) onExit gets its result, and keep
// after the exit the finished session is forgotten (tools.exec.cleanupMs),
// unless the process tool removed it first. keep <= 0 keeps it until the
// gateway stops.
func (t *Processes) background(p *proc, keep time.Duration, limit int, onExit func(Result)) {
	go func() {
		<-p.done
		if onExit != nil && !p.killedByCaller.Load() {
			onExit(p.result(limit))
		}
		close(p.noticed)
		if keep > 0 {
			time.AfterFunc(keep, func() { t.removeIf(p) })
		}
	}()
}

// removeIf forgets p if the table still holds it (and not a newer
// process under its id).
func (t *Processes) removeIf(p *proc) {
	t.mu.Lock()
	held := t.procs[p.id] == p
	t.mu.Unlock()
	if held {
		t.remove(p.id)
	}
}

// Close kills every running command and forgets them.
func (t *Processes) Close() {
	t.mu.Lock()
	ids := make([]string, 0, len(t.procs))
	for id, p := range t.procs {
		p.kill()
		ids = append(ids, id)
	}
	t.mu.Unlock()
	for _, id := range ids {
		t.remove(id)
	}
}

// ProcessArgs are the process tool's arguments.
type ProcessArgs struct {
	Action    string `json:"action" jsonschema:"enum=list,enum=poll,enum=log,enum=write,enum=kill,enum=clear,enum=remove"`
	SessionID string `json:"sessionId,omitempty"`
	Data      string `json:"data,omitempty" jsonschema:"description=Text to write to stdin (write)"`
	Offset    *int   `json:"offset,omitempty" jsonschema:"description=First line (log); no offset = the last lines"`
	Limit     int    `json:"limit,omitempty" jsonschema:"description=Lines to return (log, default 200)"`
}

func processTool(t *Processes, limit int) tools.Tool {
	return tools.NewTyped(tools.Spec{
		Name: "process", Description: "Manage commands exec moved to the background: list, poll (new output and exit status), log, write (stdin), kill, clear, remove.",
		Source: tools.SourceCore, Groups: []string{"group:runtime"}, Timeout: tools.TimeoutFast,
	}, func(ctx context.Context, c tools.Call, a ProcessArgs) (tools.Result, error) {
		text, err := t.act(c.Who, a, limit, c.MaxChars)
		if err != nil {
			return tools.Result{}, err
		}
		return tools.Result{Text: text}, nil
	})
}

// act runs one process action; limit caps a poll's bytes, maxChars the
// whole answer (0: none).
func (t *Processes) act(who tools.Who, a ProcessArgs, limit, maxChars int) (string, error) {
	switch a.Action {
	case "list":
		t.mu.Lock()
		var lines []string
		for _, p := range t.procs {
			if p.visibleTo(who) {
				state := "running"
				if !p.running() {
					state = fmt.Sprintf("exited %d", p.exitCode)
				}
				lines = append(lines, fmt.Sprintf("%s  %s  %s  %s", p.id, state, p.started.Format(time.TimeOnly), p.command))
			}
		}
		t.mu.Unlock()
		slices.Sort(lines)
		if len(lines) == 0 {
			return "no process sessions", nil
		}
		return strings.Join(lines, "\n"), nil
	case "clear":
		t.mu.Lock()
		var done []string
		for id, p := range t.procs {
			if p.visibleTo(who) && !p.running() {
				done = append(done, id)
			}
		}
		t.mu.Unlock()
		for _, id := range done {
			t.remove(id)
		}
		return fmt.Sprintf("cleared %d finished sessions", len(done)), nil
	}
	p, err := t.get(who, a.SessionID)
	if err != nil {
		return "", err
	}
	switch a.Action {
	case "poll":
		// Read the state before the output: output written before an exit
		// is then never missed, it only shows on the next poll.
		state := "running"
		if !p.running() {
			state = fmt.Sprintf("exited with code %d", p.exitCode)
		}
		p.pollMu.Lock()
		out, rest := readRange(p.stdout, p.readOut, limit)
		p.readOut += int64(len(out))
		p.pollMu.Unlock()
		if rest > 0 {
			state += fmt.Sprintf(", %d more bytes to poll", rest)
		}
		return fmt.Sprintf("[%s]\n%s", state, out), nil
	case "log":
		data, _ := os.ReadFile(p.stdout.Name())
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		n := a.Limit
		if n <= 0 {
			n = 200
		}
		start := max(len(lines)-n, 0)
		if a.Offset != nil {
			start = min(max(*a.Offset, 0), len(lines))
		}
		end := min(start+n, len(lines))
		return fitLog(lines, start, end, maxChars), nil
	case "write":
		if !p.running() {
			return "", errors.New("the process has exited")
		}
		if _, err := io.WriteString(p.stdin, a.Data); err != nil {
			return "", fmt.Errorf("write stdin: %w", err)
		}
		return fmt.Sprintf("wrote %d bytes", len(a.Data)), nil
	case "kill":
		p.killedByCaller.Store(true)
		p.kill()
		<-p.done
		return "killed", nil
	case "remove":
		if p.running() {
			p.killedByCaller.Store(true)
			p.kill()
			<-p.done
		}
		t.remove(p.id)
		return "removed", nil
	}
	return "", fmt.Errorf("unknown action %q", a.Action)
}

// fitLog joins lines[start:end] in at most maxChars characters (0: no
// limit): lines past what fits are left for the next call, named by the
// offset that reads them; a single line too long for the answer is cut.
func fitLog(lines []string, start, end, maxChars int) string {
	if maxChars <= 0 {
		return strings.Join(lines[start:end], "\n")
	}
	const footerRoom = 120
	budget := max(0, maxChars-footerRoom)
	var b strings.Builder
	used, i := 0, start
	for ; i < end; i++ {
		n := utf8.RuneCountInString(lines[i]) + 1
		if used+n > budget {
			break
		}
		if i > start {
			b.WriteByte('\n')
		}
		b.WriteString(lines[i])
		used += n
	}
	if i == end {
		return b.String()
	}
	if i == start { // the first line alone is too long: show its head
		line := []rune(lines[i])
		b.WriteString(string(line[:min(len(line), budget)]))
		fmt.Fprintf(&b, "\n[line %d cut to fit the result limit: %d of %d characters shown]", i, min(len(line), budget), len(line))
		i++
		if i == end {
			return b.String()
		}
	}
	fmt.Fprintf(&b, "\n[%d more lines to fit the result limit: call log with offset=%d]", end-i, i)
	return b.String()
}
