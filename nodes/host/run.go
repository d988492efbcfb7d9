package host

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/policy/execpolicy"
)

// Limits on system.run.
const (
	// DefaultRunTimeout applies when neither the call nor the invoke
	// request gives one.
	DefaultRunTimeout = 10 * time.Minute
	// PlanTTL is how long a prepared plan may wait for its approval.
	PlanTTL     = 30 * time.Minute
	maxArgs     = 4096
	maxPlans    = 256
	defaultSess = "node"
)

// runParams are the params of system.run and system.run.prepare.
type runParams struct {
	Command          []string          `json:"command"`
	RawCommand       string            `json:"rawCommand,omitempty"`
	Cwd              string            `json:"cwd,omitempty"`
	Env              map[string]string `json:"env,omitempty"`
	TimeoutMs        *int64            `json:"timeoutMs,omitempty"`
	AgentID          string            `json:"agentId,omitempty"`
	SessionKey       string            `json:"sessionKey,omitempty"`
	RunID            string            `json:"runId,omitempty"`
	SystemRunPlan    *runPlan          `json:"systemRunPlan,omitempty"`
	Approved         bool              `json:"approved,omitempty"`
	ApprovalDecision string            `json:"approvalDecision,omitempty"`
	ApprovalSource   string            `json:"approvalSource,omitempty"`

	SuppressNotifyOnExit bool `json:"suppressNotifyOnExit,omitempty"`
	NeedsScreenRecording bool `json:"needsScreenRecording,omitempty"`
}

// runPlan is what system.run.prepare returns for an approver to see, and
// what an approved system.run must match exactly.
type runPlan struct {
	PlanID      string            `json:"planId"`
	Argv        []string          `json:"argv"`
	Cwd         string            `json:"cwd"`
	Env         map[string]string `json:"env,omitempty"`
	CommandText string            `json:"commandText"`
	AgentID     string            `json:"agentId,omitempty"`
	SessionKey  string            `json:"sessionKey"`
	// Resolved lists the executables the command runs, symlinks
	// resolved, for an allow-always decision to persist.
	Resolved    []string `json:"resolved,omitempty"`
	CreatedAtMs int64    `json:"createdAtMs"`
	ExpiresAtMs int64    `json:"expiresAtMs"`
}

// checkedRun is a validated system.run request.
type checkedRun struct {
	argv    []string
	cwd     string // absolute, "" = the node's own working directory
	env     map[string]string
	agentID string
	session string
	path    string // the executable that will start; "" if not found
	text    string // argv as shell words, argv[0] as path, for analysis
	timeout time.Duration
}

// checkRun validates params; invokeTimeout is the invoke request's own
// timeout (0 = none).
func checkRun(p runParams, invokeTimeout time.Duration) (checkedRun, *protocol.Error) {
	var r checkedRun
	if len(p.Command) == 0 {
		return r, invalid("command required (an argv array)")
	}
	if len(p.Command) > maxArgs {
		return r, invalid("command has %d arguments, limit %d", len(p.Command), maxArgs)
	}
	if strings.TrimSpace(p.Command[0]) == "" {
		return r, invalid("command[0] is empty")
	}
	for i, a := range p.Command {
		if strings.IndexByte(a, 0) >= 0 {
			return r, invalid("command[%d] holds a NUL byte", i)
		}
	}
	if p.Cwd != "" {
		if !filepath.IsAbs(p.Cwd) {
			return r, invalid("cwd must be an absolute path")
		}
		r.cwd = filepath.Clean(p.Cwd)
	}
	// What no approval can make safe is refused here, as exec refuses
	// it on the gateway; the rest is judged with the command (analyse).
	for _, k := range slices.Sorted(maps.Keys(p.Env)) {
		if err := execpolicy.CheckEnv(k, p.Env[k]); err != nil {
			return r, invalid("env: %v", err)
		}
	}
	if p.TimeoutMs != nil && *p.TimeoutMs < 0 {
		return r, invalid("timeoutMs must be >= 0")
	}
	r.argv = slices.Clone(p.Command)
	r.env = maps.Clone(p.Env)
	r.agentID = p.AgentID
	r.session = p.SessionKey
	if r.session == "" {
		r.session = defaultSess
	}
	r.timeout = DefaultRunTimeout
	if p.TimeoutMs != nil && *p.TimeoutMs > 0 {
		r.timeout = time.Duration(*p.TimeoutMs) * time.Millisecond
	}
	if invokeTimeout > 0 && invokeTimeout < r.timeout {
		r.timeout = invokeTimeout
	}
	return r, nil
}

// resolve finds the executable r will start and renders r.text. The
// analysed text names that executable by its path: an argv runs no
// shell, so "echo" must be judged as the program /usr/bin/echo, never as
// the shell's builtin.
func (h *Host) resolve(r *checkedRun) {
	argv := slices.Clone(r.argv)
	if path, err := h.executable(argv[0], r.cwd); err == nil {
		r.path, argv[0] = path, path
	}
	r.text = commandText(argv)
}

// commandText renders argv as shell words: 'argv0' args…. Parsed as Bash
// it yields exactly this argv, so the analyser sees what will run;
// argv[0] is always quoted so it is never read as an assignment or a
// keyword. The environment is given to the analyser beside it.
func commandText(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(shellQuote(a, i == 0))
	}
	return b.String()
}

// planCommandText is the commandText of a prepared plan: argv as
// OpenClaw gateways expect it. They check that the rawCommand of a
// system.run (which they take from the plan's commandText) is argv in
// this exact form, and refuse the run otherwise: each word as it is,
// except that a word holding whitespace or a double quote is put in
// double quotes with its double quotes backslash-escaped, and an empty
// word is "".
func planCommandText(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		switch {
		case a == "":
			words[i] = `""`
		case strings.IndexFunc(a, isJSSpace) >= 0 || strings.Contains(a, `"`):
			words[i] = `"` + strings.ReplaceAll(a, `"`, `\"`) + `"`
		default:
			words[i] = a
		}
	}
	return strings.Join(words, " ")
}

// isJSSpace is whitespace as a JavaScript regular expression's \s has
// it: Unicode spaces and line ends and U+FEFF, but not U+0085.
func isJSSpace(r rune) bool {
	return r == '\uFEFF' || (r != '\u0085' && unicode.IsSpace(r))
}

// displayText is argv as shell words for people to read.
func displayText(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = shellQuote(a, false)
	}
	return strings.Join(words, " ")
}

var plainWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_@%+:,./-]+$`) })

func shellQuote(s string, always bool) string {
	if !always && plainWord().MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// analyse decides r under the node's exec approvals.
func (h *Host) analyse(r checkedRun) (execpolicy.Policy, execpolicy.Decision, execpolicy.Analysis) {
	pol := execpolicy.DefaultPolicy()
	if snap, err := h.approvals.Get(); err != nil {
		h.log.Warn("exec approvals unreadable; denying", "err", err)
		pol.Security = execpolicy.SecurityDeny
	} else {
		pol = snap.File.PolicyFor(r.agentID)
	}
	// The caller's env is judged like the command's own assignments
	// (GHSA-j425-whc4-4jgc): only the safe variables run unasked.
	an := execpolicy.Analyzer{LookPath: h.lookPath, EvalSymlinks: filepath.EvalSymlinks, Dir: r.cwd, Env: r.env}
	if an.Dir == "" {
		an.Dir, _ = os.Getwd()
	}
	d, a, _ := execpolicy.Evaluate(pol, an, r.text)
	return pol, d, a
}

// resolvedPaths lists the executables an allow-always approval of a
// would allowlist: what runs, not the wrappers that run it.
func resolvedPaths(a execpolicy.Analysis) []string {
	var out []string
	for _, c := range a.Commands {
		if c.Wrapper || c.Builtin {
			continue // allowing sh for `sh -c 'x'` would allow every script
		}
		if c.Resolved != "" && !slices.Contains(out, c.Resolved) {
			out = append(out, c.Resolved)
		}
	}
	sort.Strings(out)
	return out
}

func checkCwd(cwd string) *protocol.Error {
	if cwd == "" {
		return nil
	}
	st, err := os.Stat(cwd)
	if err != nil || !st.IsDir() {
		return denied("cwd-unavailable", fmt.Sprintf("cwd %s is not a directory on this node", cwd))
	}
	return nil
}

// prepare serves system.run.prepare.
func (h *Host) prepare(_ context.Context, raw json.RawMessage, _ time.Duration) (any, *protocol.Error) {
	var p runParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	r, perr := checkRun(p, 0)
	if perr != nil {
		return nil, perr
	}
	if perr := checkCwd(r.cwd); perr != nil {
		return nil, perr
	}
	h.resolve(&r)
	pol, d, a := h.analyse(r)
	if d.Outcome == execpolicy.Deny {
		return nil, denied(denyReason(pol), d.Reason)
	}
	plan := h.plans.add(r, resolvedPaths(a))
	return map[string]any{
		"plan":       plan,
		"execPolicy": map[string]any{"security": pol.Security, "ask": pol.Ask, "askFallback": pol.AskFallback},
		"decision":   map[string]any{"outcome": d.Outcome, "reason": d.Reason, "misses": d.Misses},
		"allowAlwaysCoverage": map[string]any{
			"complete": len(a.Unknowable) == 0 && len(a.Substitutions) == 0 && len(a.Redirections) == 0,
			"patterns": plan.Resolved,
		},
	}, nil
}

func denyReason(pol execpolicy.Policy) string {
	if pol.Security == execpolicy.SecurityDeny {
		return "security=deny"
	}
	return "allowlist-miss"
}

// run serves system.run. Besides the result, it queues the node.event
// the real node host sends after a run: exec.finished, or exec.denied
// with the reason.
func (h *Host) run(ctx context.Context, raw json.RawMessage, invokeTimeout time.Duration) (any, *protocol.Error) {
	var p runParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	r, perr := checkRun(p, invokeTimeout)
	if perr != nil {
		return nil, perr
	}
	res, perr := h.runChecked(ctx, p, r)
	ev := map[string]any{"sessionKey": r.session, "runId": p.RunID, "host": "node", "command": displayText(r.argv)}
	if perr != nil {
		if perr.Code == protocol.CodeSystemRunDenied {
			ev["reason"] = detailString(perr, "reason")
			queueEvent(ctx, EventExecDenied, ev)
		}
		return nil, perr
	}
	if !p.SuppressNotifyOnExit {
		ev["exitCode"], ev["timedOut"], ev["success"] = res.ExitCode, res.TimedOut, res.Success
		ev["output"] = tail(res.Stdout+res.Stderr, maxEventOutput)
		queueEvent(ctx, EventExecFinished, ev)
	}
	return res, nil
}

// runChecked applies the exec approvals to a validated run and executes it.
func (h *Host) runChecked(ctx context.Context, p runParams, r checkedRun) (runResult, *protocol.Error) {
	if perr := checkCwd(r.cwd); perr != nil {
		return runResult{}, perr
	}
	h.resolve(&r)
	pol, d, _ := h.analyse(r)
	switch d.Outcome {
	case execpolicy.Deny:
		return runResult{}, denied(denyReason(pol), d.Reason)
	case execpolicy.AskUser:
		if !p.approvedDecision() {
			return runResult{}, denied("approval-required", "approval required: "+d.Reason)
		}
		plan, why := h.plans.take(r, p.SystemRunPlan)
		if why != "" {
			return runResult{}, denied("execution-plan-miss", why)
		}
		if p.ApprovalDecision == "allow-always" {
			h.allowAlways(r.agentID, plan.Resolved)
		}
	}
	if r.path == "" {
		msg := "spawn failed: " + r.argv[0] + ": executable not found"
		return runResult{Error: &msg}, nil
	}
	return execute(ctx, runSpec{path: r.path, argv: r.argv, dir: r.cwd, env: environ(r.env), timeout: r.timeout}), nil
}

// executable finds argv[0] as the analyser did: on the PATH for a bare
// name, against cwd for a relative path.
func (h *Host) executable(name, cwd string) (string, error) {
	switch {
	case filepath.IsAbs(name):
		return name, nil
	case strings.ContainsRune(name, filepath.Separator) || strings.ContainsRune(name, '/'):
		if cwd == "" {
			return filepath.Abs(name)
		}
		return filepath.Join(cwd, name), nil
	}
	return h.lookPath(name)
}
