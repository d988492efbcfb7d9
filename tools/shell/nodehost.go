package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/policy/execpolicy"
	"github.com/openclaw-go/openclaw/tools"
)

// NodeRunner runs commands on paired nodes for exec host=node. The
// gateway implements it over its node registry with system.run.prepare
// and system.run. Every method may block on the network and must honour
// ctx; none is idempotent on the node (a prepared plan is used up by the
// approved run that claims it).
type NodeRunner interface {
	// Nodes lists the nodes connected now.
	Nodes(ctx context.Context) ([]NodeInfo, error)
	// Prepare asks the node for a plan of req and its own policy's
	// verdict. A node that refuses outright returns a *NodeDeniedError.
	Prepare(ctx context.Context, nodeID string, req NodeRunRequest) (NodePlan, error)
	// Run runs req on the node. decision is "" when the node's policy
	// lets the command run without asking, else the person's
	// "allow-once" or "allow-always"; plan is then forwarded so the node
	// can check that what runs is what was approved. A node that refuses
	// returns a *NodeDeniedError.
	Run(ctx context.Context, nodeID string, req NodeRunRequest, plan NodePlan, decision string) (NodeRunResult, error)
}

// DecisionApprover is an optional capability of a [tools.Approver]: it
// says which allow the person chose, so an allow-always reaches the node
// that persists it. Without it an approval is forwarded as allow-once.
type DecisionApprover interface {
	// ApproveDecision waits like Approve and returns "allow-once",
	// "allow-always", or "" when the request was denied or expired.
	ApproveDecision(ctx context.Context, req tools.ApprovalRequest) (decision string, err error)
}

// NodeInfo is one connected node.
type NodeInfo struct {
	ID       string
	Name     string // display name; may be empty
	Platform string // "linux", "darwin", "windows", …
}

// label names a node for people.
func (n NodeInfo) label() string {
	if n.Name == "" || n.Name == n.ID {
		return n.ID
	}
	return fmt.Sprintf("%s (%s)", n.Name, n.ID)
}

// NodeRunRequest is one command for a node, as system.run takes it.
type NodeRunRequest struct {
	Argv       []string
	Cwd        string // absolute on the node; "" = the node host's own directory
	Env        map[string]string
	Timeout    time.Duration // 0 = the node's default
	AgentID    string
	SessionKey string
	// InvokeTimeout is how long to wait for the node's answer; 0 = the
	// command's timeout and some slack.
	InvokeTimeout time.Duration
	// NeedsScreenRecording asks a macOS node to run the command with its
	// screen-recording permission.
	NeedsScreenRecording bool
}

// NodeArgv is a command given as an argv array for a node: the nodes
// tool's run, as OpenClaw's seed documents it.
type NodeArgv struct {
	Node                 string
	Argv                 []string
	Cwd                  string
	Env                  map[string]string
	CommandTimeout       time.Duration // 0 = exec's default
	InvokeTimeout        time.Duration // 0 = the command's timeout and some slack
	NeedsScreenRecording bool
}

// RunArgvOnNode runs an argv command on a node on exec host=node's path:
// the same environment rules, the node's own plan and verdict, a person's
// approval where the node's policy or the gateway asks for one, and the
// audit notes. The answer is exec's, with host and node.
func (cfg Config) RunArgvOnNode(ctx context.Context, c tools.Call, r NodeArgv) (tools.Result, error) {
	if len(r.Argv) == 0 || strings.TrimSpace(r.Argv[0]) == "" {
		return tools.Result{}, errors.New("run: command must be a non-empty argv array, such as [\"echo\", \"Hello\"]")
	}
	if r.CommandTimeout < 0 || r.InvokeTimeout < 0 {
		return tools.Result{}, errors.New("run: commandTimeoutMs and invokeTimeoutMs must not be negative")
	}
	a := ExecArgs{Command: argvText(r.Argv), Workdir: r.Cwd, Env: r.Env, Host: "node", Node: r.Node, node: &r}
	res, err := cfg.withDefaults().runOnNode(ctx, c, a)
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Text: res.fit(c.MaxChars), IsError: res.Status == "denied" || (res.ExitCode != nil && *res.ExitCode != 0)}, nil
}

// argvText is argv as one line a person can read in an approval, each
// word quoted when the shell would split or expand it.
func argvText(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		if w != "" && !strings.ContainsFunc(w, func(r rune) bool {
			return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ':' || r == ',' || r == '+' || r == '@' ||
				('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9'))
		}) {
			words[i] = w
			continue
		}
		words[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(words, " ")
}

// NodePlan is a node's answer to system.run.prepare.
type NodePlan struct {
	// Raw is the plan exactly as the node sent it, forwarded with an
	// approved run.
	Raw         json.RawMessage
	Argv        []string
	Cwd         string
	CommandText string
	// Security and Ask are the node's effective exec policy.
	Security string
	Ask      string
	// Outcome is the node's verdict for this command: "allow" runs
	// without asking, "ask" needs a person.
	Outcome string
	Reason  string
}

// mayRunUnasked reports whether the node's own policy lets the command run
// without a person.
func (p NodePlan) mayRunUnasked() bool {
	if p.Outcome != "" {
		return p.Outcome == "allow"
	}
	return p.Security == "full" && p.Ask == "off"
}

// NodeRunResult is a node's answer to system.run.
type NodeRunResult struct {
	ExitCode  *int
	Stdout    string
	Stderr    string
	TimedOut  bool
	Truncated bool
	// Error is set when the command could not start on the node.
	Error string
}

// NodeDeniedError is a node's refusal to run a command
// (SYSTEM_RUN_DENIED): its exec approvals deny it, or the approved plan
// no longer matches. It is reported to the model as a denial.
type NodeDeniedError struct {
	Message string
}

func (e *NodeDeniedError) Error() string { return e.Message }

// nodeShellArgv wraps a command line in the node's shell.
func nodeShellArgv(platform, command string) []string {
	if strings.HasPrefix(strings.ToLower(platform), "win") {
		return []string{"cmd.exe", "/d", "/s", "/c", command}
	}
	return []string{"sh", "-c", command}
}

// pickNode finds the node the call names, or the only one connected.
func pickNode(list []NodeInfo, want string) (NodeInfo, error) {
	names := make([]string, len(list))
	for i, n := range list {
		names[i] = n.label()
	}
	slices.Sort(names)
	connected := "connected nodes: " + strings.Join(names, ", ")
	switch {
	case len(list) == 0:
		return NodeInfo{}, errors.New(`host "node": no node is connected to this gateway; pair and start one (openclaw node run)`)
	case want == "" && len(list) == 1:
		return list[0], nil
	case want == "":
		return NodeInfo{}, fmt.Errorf(`host "node": %d nodes are connected; name one with "node" (%s)`, len(list), connected)
	}
	for _, n := range list {
		if n.ID == want {
			return n, nil
		}
	}
	var byName []NodeInfo
	for _, n := range list {
		if n.Name != "" && strings.EqualFold(n.Name, want) {
			byName = append(byName, n)
		}
	}
	switch len(byName) {
	case 1:
		return byName[0], nil
	case 0:
		return NodeInfo{}, fmt.Errorf(`node %q is not connected (%s)`, want, connected)
	}
	return NodeInfo{}, fmt.Errorf(`node name %q is ambiguous; use the node id (%s)`, want, connected)
}

// runOnNode serves exec host=node: prepare on the node, ask a person when
// the node's policy (or the call) wants it, then run the approved plan.
func (cfg Config) runOnNode(ctx context.Context, c tools.Call, a ExecArgs) (Result, error) {
	if cfg.Nodes == nil {
		return Result{}, errors.New(`host "node": running commands on nodes is not available in this gateway; use host "gateway"`)
	}
	switch {
	case a.Background:
		return Result{}, errors.New(`background: not supported with host "node" (the node runs the command to the end)`)
	case a.PTY:
		return Result{}, errors.New(`pty: not supported with host "node"`)
	case a.Workdir != "" && !filepath.IsAbs(a.Workdir) && !strings.HasPrefix(a.Workdir, "/"):
		return Result{}, fmt.Errorf("workdir %q: with host \"node\" it must be an absolute path on the node", a.Workdir)
	}
	if _, err := a.extraEnv(); err != nil {
		tools.NoteAudit(ctx, tools.AuditNote{Decision: "denied", Reason: err.Error()})
		return Result{}, err
	}
	// The node's own approvals decide; the call's security and ask may
	// only tighten them, so they are checked here all the same.
	if _, err := a.tighten(execpolicy.DefaultPolicy()); err != nil {
		return Result{}, err
	}
	if a.Security == "deny" {
		return Result{Status: "denied", Host: "node", Note: "exec policy: security=deny for this call"}, nil
	}
	list, err := cfg.Nodes.Nodes(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("list nodes: %w", err)
	}
	node, err := pickNode(list, strings.TrimSpace(a.Node))
	if err != nil {
		return Result{}, err
	}
	req := NodeRunRequest{Argv: nodeShellArgv(node.Platform, a.Command), Cwd: a.Workdir, Env: a.Env,
		Timeout: a.timeout(cfg.settings().Timeout), AgentID: c.Who.AgentID, SessionKey: c.Who.SessionKey}
	if r := a.node; r != nil {
		// An argv runs as given, with no shell in between.
		req.Argv = slices.Clone(r.Argv)
		if r.CommandTimeout > 0 {
			req.Timeout = r.CommandTimeout
		}
		req.InvokeTimeout, req.NeedsScreenRecording = r.InvokeTimeout, r.NeedsScreenRecording
	}
	denied := func(note string) Result {
		tools.NoteAudit(ctx, tools.AuditNote{Decision: "denied", Reason: note})
		return Result{Status: "denied", Host: "node", Node: node.ID, Note: note}
	}
	var nd *NodeDeniedError

	plan, err := cfg.Nodes.Prepare(ctx, node.ID, req)
	if errors.As(err, &nd) {
		return denied("node " + node.label() + " refused: " + nd.Message), nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("prepare on node %s: %w", node.label(), err)
	}
	decision := ""
	if reason, ask := nodeAsk(plan, a); ask {
		decision = cfg.askForNode(ctx, c, a, node, plan, req, reason)
		if decision == "" {
			return denied("the command was not approved for node " + node.label() + ": " + reason), nil
		}
		tools.NoteAudit(ctx, tools.AuditNote{Decision: "approved", Reason: reason})
	}
	out, err := cfg.Nodes.Run(ctx, node.ID, req, plan, decision)
	if errors.As(err, &nd) {
		return denied("node " + node.label() + " refused: " + nd.Message), nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("run on node %s: %w", node.label(), err)
	}
	res := Result{Status: "completed", Host: "node", Node: node.ID, ExitCode: out.ExitCode, TimedOut: out.TimedOut,
		Stdout: capString(out.Stdout, cfg.MaxOutput), Stderr: capString(out.Stderr, cfg.MaxOutput)}
	if out.Error != "" {
		res.Note = out.Error
		if res.ExitCode == nil {
			failed := 127
			res.ExitCode = &failed
		}
	}
	if out.Truncated {
		res.Note = strings.TrimSpace(res.Note + " output truncated by the node")
	}
	return res, nil
}

// nodeAsk reports whether a person must approve the run, and why: the
// node's verdict is ask, or the call tightened what the node would allow
// unasked (ask=always, or security=allowlist where the node runs
// everything; the gateway cannot check the node's allowlist itself).
func nodeAsk(plan NodePlan, a ExecArgs) (string, bool) {
	envMisses := execpolicy.DefaultPolicy().EnvMisses(a.Env)
	switch {
	case !plan.mayRunUnasked():
		if plan.Reason == "" {
			return "ask=" + plan.Ask, true
		}
		return plan.Reason, true
	case len(envMisses) > 0 && plan.Security != "full":
		// A node whose allowlist would run the command may not have
		// judged its environment (an older or foreign node host): the
		// same variables that need approval here need it there.
		return "the node allows the command, but " + strings.Join(envMisses, "; "), true
	case a.Ask == "always":
		return "ask=always for this call", true
	case a.Security == "allowlist" && plan.Security == "full":
		return "security=allowlist for this call; the node's own policy is full", true
	}
	return "", false
}

// askForNode raises the gateway's approval for a node run and returns the
// decision, "" for deny or timeout.
func (cfg Config) askForNode(ctx context.Context, c tools.Call, a ExecArgs, node NodeInfo, plan NodePlan, req NodeRunRequest, reason string) string {
	if cfg.Approver == nil {
		return ""
	}
	argv, cwd := plan.Argv, plan.Cwd
	if argv == nil {
		argv, cwd = req.Argv, req.Cwd
	}
	args, _ := json.Marshal(approvalShape{Host: "node", Node: node.ID, NodeName: node.Name,
		Command: a.Command, Argv: argv, Cwd: cwd, Env: tools.RedactEnv(req.Env)})
	ar := tools.ApprovalRequest{Tool: "exec", Args: args, Who: c.Who, Reason: "node " + node.label() + ": " + reason}
	if da, ok := cfg.Approver.(DecisionApprover); ok {
		d, err := da.ApproveDecision(ctx, ar)
		if err != nil {
			return "" // as for gateway runs: a failed approval is a denial
		}
		return d
	}
	if ok, _, err := cfg.Approver.Approve(ctx, ar); err != nil || !ok {
		return ""
	}
	return "allow-once"
}

// capString keeps at most limit bytes of s, saying so when cut.
func capString(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	return s[:limit] + fmt.Sprintf("\n[output capped at %d of %d bytes]", limit, len(s))
}
