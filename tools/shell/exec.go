package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/policy/execpolicy"
	"github.com/openclaw-go/openclaw/tools"
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
	// MaxOutput caps stdout and stderr each. Default 10,000 bytes.
	MaxOutput int
	// LookPath and EvalSymlinks resolve executables; defaults from os/exec
	// and path/filepath.
	LookPath     func(string) (string, error)
	EvalSymlinks func(string) (string, error)
}

// ExecArgs are exec's arguments.
type ExecArgs struct {
	Command    string            `json:"command" jsonschema:"description=Shell command line (run with sh -c)"`
	Workdir    string            `json:"workdir,omitempty" jsonschema:"description=Directory inside the workspace to run in"`
	Env        map[string]string `json:"env,omitempty" jsonschema:"description=Extra environment variables"`
	YieldMs    *int              `json:"yieldMs,omitempty" jsonschema:"description=Milliseconds to wait before moving the run to the background (default 10000)"`
	Background bool              `json:"background,omitempty" jsonschema:"description=Start in the background at once"`
	Timeout    int               `json:"timeout,omitempty" jsonschema:"description=Seconds before the run is killed (default 1800)"`
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
}

// Tools returns exec and process over one process table.
func Tools(cfg Config, procs *Processes) []tools.Tool {
	if cfg.MaxOutput <= 0 {
		cfg.MaxOutput = 10_000
	}
	if cfg.LookPath == nil {
		cfg.LookPath = osexec.LookPath
	}
	if cfg.EvalSymlinks == nil {
		cfg.EvalSymlinks = filepath.EvalSymlinks
	}
	execTool := tools.NewTyped(tools.Spec{
		Name: "exec", Description: "Run a shell command in your workspace. Long runs move to the background (see process).",
		Source: tools.SourceCore, Groups: []string{"group:runtime"}, Dangerous: true, Timeout: 31 * time.Minute,
	}, func(ctx context.Context, c tools.Call, a ExecArgs) (tools.Result, error) {
		res, err := cfg.run(ctx, c, a, procs)
		if err != nil {
			return tools.Result{}, err
		}
		b, _ := json.Marshal(res)
		return tools.Result{Text: string(b), IsError: res.Status == "denied" || (res.ExitCode != nil && *res.ExitCode != 0)}, nil
	})
	return []tools.Tool{execTool, processTool(procs, cfg.MaxOutput)}
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
	dir, err := cfg.workdir(c.Who, a.Workdir)
	if err != nil {
		return Result{}, err
	}
	pol := execpolicy.DefaultPolicy()
	if cfg.Policy != nil {
		pol = cfg.Policy(c.Who.AgentID)
	}
	dec, _, _ := execpolicy.Evaluate(pol, execpolicy.Analyzer{LookPath: cfg.LookPath, EvalSymlinks: cfg.EvalSymlinks, Dir: dir}, a.Command)
	outcome := dec.Outcome
	if outcome == execpolicy.AskUser {
		if cfg.Approver == nil {
			outcome = dec.Fallback
		} else {
			args, _ := json.Marshal(map[string]string{"command": a.Command, "cwd": dir})
			ok, _, err := cfg.Approver.Approve(ctx, tools.ApprovalRequest{Tool: "exec", Args: args, Who: c.Who, Reason: dec.Reason})
			if err != nil || !ok {
				return Result{Status: "denied", Note: "the command was not approved: " + dec.Reason}, nil
			}
			outcome = execpolicy.Allow
		}
	}
	if outcome != execpolicy.Allow {
		return Result{Status: "denied", Note: "exec policy: " + dec.Reason}, nil
	}
	timeout := time.Duration(a.Timeout) * time.Second
	if timeout <= 0 {
		timeout = 1800 * time.Second
	}
	p, err := procs.start(c.Who.AgentID, a.Command, dir, a.Env, timeout)
	if err != nil {
		return Result{}, err
	}
	yield := 10 * time.Second
	if a.YieldMs != nil {
		yield = time.Duration(*a.YieldMs) * time.Millisecond
	}
	if a.Background {
		yield = 0
	}
	select {
	case <-p.done:
		res := p.result(cfg.MaxOutput)
		procs.remove(p.id)
		return res, nil
	case <-time.After(yield):
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
