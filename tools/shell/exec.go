package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/policy/execpolicy"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/sandbox"
)

// Config wires the exec tool to the gateway.
type Config struct {
	// Workspace maps a caller to its workspace directory.
	Workspace func(who tools.Who) (string, error)
	// Policy gives an agent's exec policy (the exec approvals file).
	Policy func(agentID string) execpolicy.Policy
	// Approver asks a person when the policy says ask; nil falls back to
	// the policy's askFallback.
	Approver tools.Approver
	// Nodes runs host=node commands on paired nodes; nil refuses them.
	Nodes NodeRunner
	// Defaults gives tools.exec's run settings at call time; nil means
	// OpenClaw's defaults (DefaultSettings).
	Defaults func() Settings
	// Elevated says whether who may set exec's elevated flag
	// (tools.elevated: enabled and the sender allowed); nil allows nobody.
	Elevated func(who tools.Who) bool
	// Sandbox gives the sandbox a caller's commands run in (nil: the
	// host), from agents.*.sandbox; an error refuses the call, so a
	// sandboxed caller never falls back to the host. nil sandboxes nobody.
	Sandbox func(who tools.Who) (*sandbox.Box, error)
	// Sandboxes builds the sandboxed commands; nil is a fresh Manager.
	Sandboxes *sandbox.Manager
	// Notify tells a session that a command exec left in the background
	// has exited (tools.exec.notifyOnExit); nil tells nobody.
	Notify func(who tools.Who, text string)
	// MaxOutput caps stdout and stderr each. Default 10,000 bytes.
	MaxOutput int
	// LookPath and EvalSymlinks resolve executables; defaults from os/exec
	// and path/filepath.
	LookPath     func(string) (string, error)
	EvalSymlinks func(string) (string, error)
}

// Settings are tools.exec's run settings.
type Settings struct {
	// Timeout is a command's limit when the call sets none; 0 is none.
	Timeout time.Duration
	// Yield is how long exec waits before leaving a command in the
	// background, when the call sets no yieldMs.
	Yield time.Duration
	// PathPrepend goes in front of PATH, for the run and for resolving
	// what it runs.
	PathPrepend []string
	// NotifyOnExit tells the session when a background command exits.
	NotifyOnExit bool
	// Keep is how long a finished background command stays for the
	// process tool; 0 keeps it until the gateway stops.
	Keep time.Duration
}

// DefaultSettings are OpenClaw's: 1800 s, 10 s, nothing prepended, exits
// notified, finished sessions kept 30 minutes.
func DefaultSettings() Settings {
	return Settings{Timeout: 1800 * time.Second, Yield: 10 * time.Second, NotifyOnExit: true, Keep: 30 * time.Minute}
}

func (cfg Config) settings() Settings {
	if cfg.Defaults == nil {
		return DefaultSettings()
	}
	return cfg.Defaults()
}

// ExecArgs are exec's arguments, as OpenClaw's exec tool names them.
type ExecArgs struct {
	Command        string            `json:"command" jsonschema:"description=Shell command line (run with sh -c)"`
	Workdir        string            `json:"workdir,omitempty" jsonschema:"description=Directory inside the workspace to run in"`
	Env            map[string]string `json:"env,omitempty" jsonschema:"description=Extra environment variables; only TERM, LANG, LC_*, TZ, NO_COLOR and similar run without approval, PATH, LD_*, DYLD_*, BASH_ENV and ENV are refused"`
	YieldMs        *int              `json:"yieldMs,omitempty" jsonschema:"description=Milliseconds to wait before moving the run to the background (default 10000)"`
	Background     bool              `json:"background,omitempty" jsonschema:"description=Start in the background at once"`
	TimeoutSeconds *int              `json:"timeoutSeconds,omitempty" jsonschema:"description=Seconds before the run is killed (default 1800; 0 means no limit)"`
	Timeout        *int              `json:"timeout,omitempty" jsonschema:"description=Older name of timeoutSeconds"`
	PTY            bool              `json:"pty,omitempty" jsonschema:"description=Run in a pseudo-terminal, for programs that need a TTY; stderr then arrives with stdout"`
	Host           string            `json:"host,omitempty" jsonschema:"enum=auto,enum=sandbox,enum=gateway,enum=node,description=Where to run: auto (default) is the gateway host unless a sandbox is active"`
	Security       string            `json:"security,omitempty" jsonschema:"enum=deny,enum=allowlist,enum=full,description=Exec security for this call; it can only tighten the configured one"`
	Ask            string            `json:"ask,omitempty" jsonschema:"enum=off,enum=on-miss,enum=always,description=When to ask a person for this call; it can only tighten the configured one"`
	Node           string            `json:"node,omitempty" jsonschema:"description=Node id or name for host=node"`
	Elevated       bool              `json:"elevated,omitempty" jsonschema:"description=Run outside the sandbox with elevated rights, when the operator enabled it"`

	// node is set for a command given as argv for a node (the nodes
	// tool's run) rather than a shell line; never from a model's JSON.
	node *NodeArgv
}

// timeout is the run's time limit, def unless the call sets one; zero
// means none.
func (a ExecArgs) timeout(def time.Duration) time.Duration {
	switch {
	case a.TimeoutSeconds != nil:
		return time.Duration(max(*a.TimeoutSeconds, 0)) * time.Second
	case a.Timeout != nil:
		return time.Duration(max(*a.Timeout, 0)) * time.Second
	}
	return def
}

// checkHost refuses the places exec cannot run, rather than running on
// the gateway what was meant for a sandbox or another machine, and the
// elevated flag unless tools.elevated lets this caller use it. A
// sandboxed caller stays in its sandbox: host gateway or node are
// refused unless it asks for elevated and may have it (OpenClaw: "auto
// keeps exec in the sandbox and rejects both overrides"). With no
// sandbox, an allowed elevated run is an ordinary one, under the same
// approvals (OpenClaw's elevated "on"): it never skips a prompt.
func (a ExecArgs) checkHost(sandboxed, elevatedOK bool) error {
	switch a.Host {
	case "", "auto", "gateway", "node", "sandbox":
	default:
		return fmt.Errorf("host %q: want auto, sandbox, gateway or node", a.Host)
	}
	runtime := "direct"
	if sandboxed {
		runtime = "sandboxed"
	}
	if a.Elevated && !elevatedOK {
		return fmt.Errorf("elevated is not available right now (runtime=%s); failing gates: tools.elevated.enabled, agents.entries.<id>.tools.elevated, and the sender in tools.elevated.allowFrom.<channel>", runtime)
	}
	switch {
	case !sandboxed && a.Host == "sandbox":
		return errors.New(`host "sandbox": this session is not sandboxed (agents.defaults.sandbox.mode); use host "gateway" or "auto"`)
	case sandboxed && !a.Elevated && (a.Host == "gateway" || a.Host == "node"):
		return fmt.Errorf("host %q: this session is sandboxed, so exec runs in its sandbox (host auto or sandbox); leaving it takes elevated, when tools.elevated allows this sender", a.Host)
	case sandboxed && a.Elevated && a.Host == "sandbox":
		return errors.New(`host "sandbox" with elevated: elevated runs outside the sandbox; drop one of them`)
	}
	return nil
}

// extraEnv checks the caller's variables and renders them NAME=value.
// What no approval can make safe (PATH, the loader's LD_*/DYLD_*,
// BASH_ENV, ENV, odd names) is refused outright; everything else is
// judged by the exec policy with the command (execpolicy.Analyzer.Env).
func (a ExecArgs) extraEnv() ([]string, error) {
	var env []string
	for _, k := range slices.Sorted(maps.Keys(a.Env)) {
		if err := execpolicy.CheckEnv(k, a.Env[k]); err != nil {
			return nil, fmt.Errorf("env: %w", err)
		}
		env = append(env, k+"="+a.Env[k])
	}
	return env, nil
}

// tighten applies the call's security and ask to the configured policy.
// They may only make it stricter: a model cannot talk its way to more.
func (a ExecArgs) tighten(pol execpolicy.Policy) (execpolicy.Policy, error) {
	secRank := map[execpolicy.Security]int{execpolicy.SecurityDeny: 0, execpolicy.SecurityAllowlist: 1, execpolicy.SecurityFull: 2}
	askRank := map[execpolicy.Ask]int{execpolicy.AskOff: 0, execpolicy.AskOnMiss: 1, execpolicy.AskAlways: 2}
	if a.Security != "" {
		sec := execpolicy.Security(a.Security)
		r, ok := secRank[sec]
		if !ok {
			return pol, fmt.Errorf("security %q: want deny, allowlist or full", a.Security)
		}
		if cur, ok := secRank[pol.Security]; !ok || r < cur {
			pol.Security = sec
		}
	}
	if a.Ask != "" {
		ask := execpolicy.Ask(a.Ask)
		r, ok := askRank[ask]
		if !ok {
			return pol, fmt.Errorf("ask %q: want off, on-miss or always", a.Ask)
		}
		if cur, ok := askRank[pol.Ask]; !ok || r > cur {
			pol.Ask = ask
		}
	}
	return pol, nil
}

// approvalShape is what an exec approval request shows a person: the
// command, where it runs and the environment it gets (secret-looking
// values redacted), and for host=node the node.
type approvalShape struct {
	Host     string            `json:"host,omitempty"`
	Node     string            `json:"node,omitempty"`
	NodeName string            `json:"nodeName,omitempty"`
	Command  string            `json:"command"`
	Argv     []string          `json:"argv,omitempty"`
	Cwd      string            `json:"cwd"`
	Env      map[string]string `json:"env,omitempty"`
}

// execReason is the approval's reason: the decision's, plus every other
// miss, so an environment override is named even when the command
// missed first.
func execReason(d execpolicy.Decision) string {
	if len(d.Misses) <= 1 {
		return d.Reason
	}
	return d.Reason + "; also: " + strings.Join(d.Misses[1:], "; ")
}

// Result is exec's structured answer.
type Result struct {
	Status    string `json:"status"` // completed | running | denied
	ExitCode  *int   `json:"exitCode,omitempty"`
	Stdout    string `json:"stdout,omitempty"`
	Stderr    string `json:"stderr,omitempty"`
	TimedOut  bool   `json:"timedOut,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	Note      string `json:"note,omitempty"`
	Host      string `json:"host,omitempty"` // "node" for host=node runs
	Node      string `json:"node,omitempty"` // the node's id, for host=node runs
}

// fit encodes r in at most limit characters (0: no limit): the longer of
// stdout and stderr gives up its end, with a note, until the JSON fits,
// so the answer stays JSON under the runner's cap whatever the streams
// hold (escaping makes an encoded stream longer than its text).
func (r Result) fit(limit int) string {
	return fitStreams(r.Stdout, r.Stderr, limit, func(out, errs string) string {
		r.Stdout, r.Stderr = out, errs
		return tools.EncodeJSON(r)
	})
}

// fitStreams is fit for any answer holding the two streams: encode builds
// it from the streams as cut so far.
func fitStreams(out, errs string, limit int, encode func(out, errs string) string) string {
	keepOut, keepErr := utf8.RuneCountInString(out), utf8.RuneCountInString(errs)
	for {
		b := encode(cutStream(out, keepOut), cutStream(errs, keepErr))
		over := utf8.RuneCountInString(b) - limit
		if limit <= 0 || over <= 0 || keepOut+keepErr == 0 {
			return b
		}
		// Each pass drops at least the excess (and the note's room), so a
		// few passes reach the limit.
		over += streamNoteChars
		if keepErr > keepOut {
			keepErr = max(0, keepErr-over)
		} else {
			keepOut = max(0, keepOut-over)
		}
	}
}

// streamNoteChars is about the length of cutStream's note.
const streamNoteChars = 80

// cutStream is the first keep characters of s, with a note when that
// is not all of it.
func cutStream(s string, keep int) string {
	total := utf8.RuneCountInString(s)
	if keep >= total {
		return s
	}
	i := 0
	for n := 0; n < keep; n++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + fmt.Sprintf("\n[output cut to fit the result limit: %d of %d characters shown]", keep, total)
}

// Tools returns exec and process over one process table.
func Tools(cfg Config, procs *Processes) []tools.Tool {
	cfg = cfg.withDefaults()
	execTool := tools.NewTyped(tools.Spec{
		Name: "exec", Description: "Run a shell command in your workspace. Long runs move to the background (see process).",
		Source: tools.SourceCore, Groups: []string{"group:runtime"}, Dangerous: true, Timeout: 31 * time.Minute,
	}, func(ctx context.Context, c tools.Call, a ExecArgs) (tools.Result, error) {
		if calledAsShellExecute(c) {
			return cfg.runShellExecute(ctx, c, a, procs)
		}
		res, err := cfg.run(ctx, c, a, procs)
		if err != nil {
			return tools.Result{}, err
		}
		return tools.Result{Text: res.fit(c.MaxChars), IsError: res.Status == "denied" || (res.ExitCode != nil && *res.ExitCode != 0)}, nil
	})
	return []tools.Tool{execTool, processTool(procs, cfg.MaxOutput)}
}

// withDefaults fills what a Config may leave unset.
func (cfg Config) withDefaults() Config {
	if cfg.MaxOutput <= 0 {
		cfg.MaxOutput = 10_000
	}
	if cfg.LookPath == nil {
		cfg.LookPath = osexec.LookPath
	}
	if cfg.EvalSymlinks == nil {
		cfg.EvalSymlinks = filepath.EvalSymlinks
	}
	return cfg
}

// workdir resolves the run directory inside the workspace.
func (cfg Config) workdir(who tools.Who, rel string) (string, error) {
	ws, err := cfg.Workspace(who)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(ws, 0o700); err != nil {
		return "", fmt.Errorf("create workspace: %w", err)
	}
	real, err := cfg.EvalSymlinks(ws)
	if err != nil {
		return "", err
	}
	if rel == "" {
		return real, nil
	}
	dir := rel
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(real, rel)
	}
	resolved, err := cfg.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("workdir %q: %w", rel, err)
	}
	if resolved != real && !strings.HasPrefix(resolved, real+string(filepath.Separator)) {
		return "", fmt.Errorf("workdir %q is outside the workspace", rel)
	}
	return resolved, nil
}

func (cfg Config) run(ctx context.Context, c tools.Call, a ExecArgs, procs *Processes) (Result, error) {
	if strings.TrimSpace(a.Command) == "" {
		return Result{}, errors.New("command is empty")
	}
	var box *sandbox.Box
	if cfg.Sandbox != nil {
		b, err := cfg.Sandbox(c.Who)
		if err != nil {
			return Result{}, fmt.Errorf("sandbox: %w", err)
		}
		box = b
	}
	if err := a.checkHost(box != nil, cfg.Elevated != nil && cfg.Elevated(c.Who)); err != nil {
		return Result{}, err
	}
	if a.Elevated {
		box = nil // the escape hatch: this run leaves the sandbox
	}
	set := cfg.settings()
	// The environment is the command's as much as its words are: the
	// analyser judges both (GHSA-j425-whc4-4jgc), the approval shows both
	// and the audit keeps both, refused or not.
	shown := tools.RedactEnv(a.Env)
	tools.NoteAudit(ctx, tools.AuditNote{Env: shown})
	if a.Host == "node" {
		return cfg.runOnNode(ctx, c, a)
	}
	env, err := a.extraEnv()
	if err != nil {
		tools.NoteAudit(ctx, tools.AuditNote{Decision: "denied", Reason: err.Error()})
		return Result{}, err
	}
	env = append(gatewayEnv(ctx), env...)
	if box != nil {
		return cfg.runInSandbox(ctx, c, a, procs, box, env, shown)
	}
	lookPath := cfg.LookPath
	if len(set.PathPrepend) > 0 {
		// The policy must judge the program that will run: resolve names
		// through the same PATH the command gets.
		path := strings.Join(append(slices.Clone(set.PathPrepend), os.Getenv("PATH")), string(os.PathListSeparator))
		env = append([]string{"PATH=" + path}, env...)
		lookPath = lookPathIn(set.PathPrepend, cfg.LookPath)
	}
	dir, err := cfg.workdir(c.Who, a.Workdir)
	if err != nil {
		return Result{}, err
	}
	return cfg.execute(ctx, c, a, procs, launch{dir: dir, cwd: dir, env: env, lookPath: lookPath, shown: shown})
}

// launch is where one exec run goes: the host folder the exec policy
// judges it in, what the approval shows, and how it starts.
type launch struct {
	dir      string // host folder: the analyser's, and the process's
	cwd      string // the folder the command sees (inside a sandbox: its own path)
	host     string // "sandbox" for a sandboxed run; "" the gateway
	env      []string
	lookPath func(string) (string, error)
	shown    map[string]string
	spawn    *sandbox.Spawn
}

// runInSandbox runs a in box: the same exec policy and approvals as on
// the host, then the command inside the sandbox. tools.exec.pathPrepend
// names host folders, which a sandbox does not see, so it is not used.
func (cfg Config) runInSandbox(ctx context.Context, c tools.Call, a ExecArgs, procs *Processes, box *sandbox.Box, env []string, shown map[string]string) (Result, error) {
	m := cfg.Sandboxes
	if m == nil {
		m = &sandbox.Manager{}
	}
	sp, err := m.Command(ctx, box, sandbox.Run{Script: a.Command, Workdir: a.Workdir, Env: env, PTY: a.PTY})
	if err != nil {
		return Result{}, fmt.Errorf("sandbox: %w", err)
	}
	cwd := box.Mount()
	if a.Workdir != "" {
		cwd = a.Workdir
	}
	res, err := cfg.execute(ctx, c, a, procs, launch{dir: sp.Dir, cwd: cwd, host: "sandbox", lookPath: cfg.LookPath, shown: shown, spawn: &sp})
	if err == nil && res.Status != "denied" {
		res.Host = "sandbox"
	}
	return res, err
}

// execute judges the command under the exec policy (asking a person when
// it says so) and runs it where l says.
func (cfg Config) execute(ctx context.Context, c tools.Call, a ExecArgs, procs *Processes, l launch) (Result, error) {
	set := cfg.settings()
	dir, shown := l.dir, l.shown
	var err error
	pol := execpolicy.DefaultPolicy()
	if cfg.Policy != nil {
		pol = cfg.Policy(c.Who.AgentID)
	}
	if pol, err = a.tighten(pol); err != nil {
		return Result{}, err
	}
	an := execpolicy.Analyzer{LookPath: l.lookPath, EvalSymlinks: cfg.EvalSymlinks, Dir: dir, Env: a.Env}
	dec, _, _ := execpolicy.Evaluate(pol, an, a.Command)
	outcome := dec.Outcome
	if how, settled := tools.GuardSettled(ctx); settled && outcome == execpolicy.AskUser {
		// The Tool Guard already decided this very call; asking again
		// would be a second prompt for one decision. What the policy
		// denies outright (security deny, a miss with ask off) stays
		// denied: a guard rule answers "ask?", not "forbidden?".
		tools.NoteAudit(ctx, tools.AuditNote{Decision: "approved", Reason: how + "; exec policy would have asked: " + dec.Reason})
		outcome = execpolicy.Allow
	}
	if outcome == execpolicy.AskUser {
		if cfg.Approver == nil {
			outcome = dec.Fallback
		} else {
			args, _ := json.Marshal(approvalShape{Host: l.host, Command: a.Command, Cwd: l.cwd, Env: shown})
			ok, id, err := cfg.Approver.Approve(ctx, tools.ApprovalRequest{Tool: "exec", Args: args, Who: c.Who, Reason: execReason(dec)})
			if err != nil || !ok {
				tools.NoteAudit(ctx, tools.AuditNote{ApprovalID: id, Decision: "denied", Reason: dec.Reason})
				return Result{Status: "denied", Note: "the command was not approved: " + dec.Reason}, nil
			}
			tools.NoteAudit(ctx, tools.AuditNote{ApprovalID: id, Decision: "approved", Reason: dec.Reason})
			outcome = execpolicy.Allow
		}
	}
	if outcome != execpolicy.Allow {
		tools.NoteAudit(ctx, tools.AuditNote{Decision: "denied", Reason: dec.Reason})
		return Result{Status: "denied", Note: "exec policy: " + dec.Reason}, nil
	}
	p, err := procs.start(startOptions{agent: c.Who.AgentID, session: c.Who.SessionKey, byOwner: c.Who.Owner, command: a.Command, dir: dir, env: l.env, timeout: a.timeout(set.Timeout), pty: a.PTY, spawn: l.spawn})
	if err != nil {
		return Result{}, err
	}
	yield := set.Yield
	if a.YieldMs != nil {
		yield = time.Duration(*a.YieldMs) * time.Millisecond
	}
	// left hands a run the call no longer waits for to the table: told
	// to the session when it exits, forgotten set.Keep later.
	left := func() {
		var onExit func(Result)
		if set.NotifyOnExit && cfg.Notify != nil && !strings.Contains(c.Who.SessionKey, ":subagent:") {
			who, command := c.Who, a.Command
			onExit = func(r Result) {
				if r.ExitCode != nil && *r.ExitCode == 0 && r.Stdout == "" && r.Stderr == "" {
					return // OpenClaw's notifyOnExitEmptySuccess default: a quiet success says nothing
				}
				cfg.Notify(who, exitNotice(p.id, command, r))
			}
		}
		procs.background(p, set.Keep, cfg.MaxOutput, onExit)
	}
	if a.Background {
		left()
		// Always a session, even for a command already done: the caller
		// asked for one to poll, and a select between a closed done and
		// a zero timer would pick at random.
		return Result{Status: "running", SessionID: p.id, Note: "started in the background; use the process tool with this sessionId"}, nil
	}
	select {
	case <-p.done:
		res := p.result(cfg.MaxOutput)
		procs.remove(p.id)
		return res, nil
	case <-time.After(yield):
		left()
		return Result{Status: "running", SessionID: p.id, Note: "still running; use the process tool with this sessionId"}, nil
	case <-ctx.Done():
		p.kill()
		<-p.done
		res := p.result(cfg.MaxOutput)
		procs.remove(p.id)
		res.Note = "stopped: the turn ended"
		return res, nil
	}
}

// exitNotice is the system event a background command's exit leaves in
// its session.
func exitNotice(id, command string, r Result) string {
	code := -1
	if r.ExitCode != nil {
		code = *r.ExitCode
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Exec finished (session %s, exit code %d", id, code)
	if r.TimedOut {
		b.WriteString(", timed out")
	}
	fmt.Fprintf(&b, "): %s", command)
	if tail := lastChars(r.Stdout+r.Stderr, 400); tail != "" {
		b.WriteString("\n" + tail)
	}
	return b.String()
}

func lastChars(s string, n int) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > n {
		return "…" + string(r[len(r)-n:])
	}
	return s
}

// lookPathIn resolves a bare name in dirs first, then with next, the
// order a PATH with dirs in front gives.
func lookPathIn(dirs []string, next func(string) (string, error)) func(string) (string, error) {
	return func(name string) (string, error) {
		if !strings.ContainsRune(name, '/') {
			for _, d := range dirs {
				p := filepath.Join(d, name)
				if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
					return p, nil
				}
			}
		}
		return next(name)
	}
}
