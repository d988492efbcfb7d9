package shell

import (
	"context"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
)

// MateClaw's ShellExecuteTool reaches exec through the registry's alias
// table, but a model that calls it by that name expects MateClaw's
// contract rather than exec's: every call waits for the command, 60 s
// unless it asks for less or more, never more than 300 s, and the answer
// is exactly {exitCode, stdout, stderr, timedOut}, each stream capped at
// 10,000 bytes.
const (
	shellExecuteName           = "ShellExecuteTool"
	shellExecuteDefaultTimeout = 60
	shellExecuteMaxTimeout     = 300
	shellExecuteMaxOutput      = 10_000
)

// calledAsShellExecute reports whether the model used MateClaw's name.
func calledAsShellExecute(c tools.Call) bool {
	return strings.EqualFold(c.CalledAs, shellExecuteName)
}

// shellExecuteArgs turns a ShellExecuteTool call into exec arguments with
// MateClaw's limits: no background run, a timeout of 60 s by default and
// at most 300 s (0, which exec reads as "no limit", is the cap too).
func shellExecuteArgs(a ExecArgs) ExecArgs {
	secs := shellExecuteDefaultTimeout
	switch {
	case a.TimeoutSeconds != nil:
		secs = *a.TimeoutSeconds
	case a.Timeout != nil:
		secs = *a.Timeout
	}
	if secs <= 0 || secs > shellExecuteMaxTimeout {
		secs = shellExecuteMaxTimeout
	}
	a.TimeoutSeconds, a.Timeout = &secs, nil
	// The call waits for the command: the yield is past the timeout, so
	// the run is killed before it could move to the background.
	yield := (secs + 5) * 1000
	a.YieldMs, a.Background = &yield, false
	return a
}

// shellExecuteResult is ShellExecuteTool's answer.
type shellExecuteResult struct {
	ExitCode int    `json:"exitCode"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	TimedOut bool   `json:"timedOut"`
}

// runShellExecute runs a ShellExecuteTool call through exec's whole path
// (policy, approvals, audit) and answers in MateClaw's shape.
func (cfg Config) runShellExecute(ctx context.Context, c tools.Call, a ExecArgs, procs *Processes) (tools.Result, error) {
	cfg.MaxOutput = min(cfg.MaxOutput, shellExecuteMaxOutput)
	res, err := cfg.run(ctx, c, shellExecuteArgs(a), procs)
	if err != nil {
		return tools.Result{}, err
	}
	if res.Status == "denied" {
		return tools.Result{Text: res.Note, IsError: true}, nil
	}
	if res.Status != "completed" || res.ExitCode == nil {
		// Not reachable with the yield past the timeout; say what
		// happened rather than invent an exit code.
		return tools.Result{Text: "the command did not finish: " + res.Note, IsError: true}, nil
	}
	out := shellExecuteResult{ExitCode: *res.ExitCode, TimedOut: res.TimedOut}
	text := fitStreams(res.Stdout, res.Stderr, c.MaxChars, func(stdout, stderr string) string {
		out.Stdout, out.Stderr = stdout, stderr
		return tools.EncodeJSON(out)
	})
	return tools.Result{Text: text, IsError: out.ExitCode != 0 || out.TimedOut}, nil
}
