package toolhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/nodes"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/shell"
)

// nodeExec runs exec host=node on paired nodes: system.run.prepare for
// the node's plan and verdict, then system.run with the approved plan.
// It goes through Registry.Invoke, which applies the node command policy
// but not node.invoke's refusal of system.run: the approval happened in
// the exec tool.
type nodeExec struct{ nodes func() *nodes.Registry }

var (
	_ shell.NodeRunner       = nodeExec{}
	_ shell.DecisionApprover = decisionApprover{}
)

// invokeSlack is added to a run's own timeout for the invoke's wait, so
// the node reports a timed-out run before the gateway gives up on it.
const invokeSlack = 30 * time.Second

func (n nodeExec) registry() (*nodes.Registry, error) {
	reg := n.nodes()
	if reg == nil {
		return nil, errors.New("nodes are not enabled on this gateway")
	}
	return reg, nil
}

func (n nodeExec) Nodes(ctx context.Context) ([]shell.NodeInfo, error) {
	reg, err := n.registry()
	if err != nil {
		return nil, err
	}
	var out []shell.NodeInfo
	for _, nd := range reg.List(ctx) {
		if nd.Connected {
			out = append(out, shell.NodeInfo{ID: nd.NodeID, Name: nd.DisplayName, Platform: nd.Platform})
		}
	}
	return out, nil
}

// runParams are system.run's params as nodes/host reads them.
func runParams(req shell.NodeRunRequest) map[string]any {
	p := map[string]any{"command": req.Argv}
	if req.Cwd != "" {
		p["cwd"] = req.Cwd
	}
	if len(req.Env) > 0 {
		p["env"] = req.Env
	}
	if req.Timeout > 0 {
		p["timeoutMs"] = req.Timeout.Milliseconds()
	}
	if req.AgentID != "" {
		p["agentId"] = req.AgentID
	}
	if req.SessionKey != "" {
		p["sessionKey"] = req.SessionKey
	}
	if req.NeedsScreenRecording {
		p["needsScreenRecording"] = true
	}
	return p
}

func (n nodeExec) Prepare(ctx context.Context, nodeID string, req shell.NodeRunRequest) (shell.NodePlan, error) {
	reg, err := n.registry()
	if err != nil {
		return shell.NodePlan{}, err
	}
	raw, err := reg.Invoke(ctx, nodeID, "system.run.prepare", runParams(req), 0)
	if err != nil {
		return shell.NodePlan{}, nodeRunError(err)
	}
	var out struct {
		Plan       json.RawMessage `json:"plan"`
		ExecPolicy struct {
			Security string `json:"security"`
			Ask      string `json:"ask"`
		} `json:"execPolicy"`
		Decision struct {
			Outcome string `json:"outcome"`
			Reason  string `json:"reason"`
		} `json:"decision"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return shell.NodePlan{}, fmt.Errorf("decode system.run.prepare answer: %w", err)
	}
	var plan struct {
		Argv        []string `json:"argv"`
		Cwd         string   `json:"cwd"`
		CommandText string   `json:"commandText"`
	}
	if len(out.Plan) == 0 || string(out.Plan) == "null" || json.Unmarshal(out.Plan, &plan) != nil {
		return shell.NodePlan{}, errors.New("system.run.prepare answered without a plan")
	}
	return shell.NodePlan{Raw: out.Plan, Argv: plan.Argv, Cwd: plan.Cwd, CommandText: plan.CommandText,
		Security: out.ExecPolicy.Security, Ask: out.ExecPolicy.Ask, Outcome: out.Decision.Outcome, Reason: out.Decision.Reason}, nil
}

func (n nodeExec) Run(ctx context.Context, nodeID string, req shell.NodeRunRequest, plan shell.NodePlan, decision string) (shell.NodeRunResult, error) {
	reg, err := n.registry()
	if err != nil {
		return shell.NodeRunResult{}, err
	}
	p := runParams(req)
	if decision != "" {
		p["systemRunPlan"] = plan.Raw
		p["approved"] = true
		p["approvalDecision"] = decision
		p["approvalSource"] = "gateway"
	}
	wait := invokeSlack
	switch {
	case req.InvokeTimeout > 0:
		wait = req.InvokeTimeout
	case req.Timeout > 0:
		wait += req.Timeout
	default:
		wait += 31 * time.Minute // beyond the node's own default
	}
	raw, err := reg.Invoke(ctx, nodeID, "system.run", p, wait)
	if err != nil {
		return shell.NodeRunResult{}, nodeRunError(err)
	}
	var out struct {
		ExitCode  *int    `json:"exitCode"`
		TimedOut  bool    `json:"timedOut"`
		Stdout    string  `json:"stdout"`
		Stderr    string  `json:"stderr"`
		Error     *string `json:"error"`
		Truncated bool    `json:"truncated"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return shell.NodeRunResult{}, fmt.Errorf("decode system.run answer: %w", err)
	}
	res := shell.NodeRunResult{ExitCode: out.ExitCode, TimedOut: out.TimedOut, Stdout: out.Stdout, Stderr: out.Stderr, Truncated: out.Truncated}
	if out.Error != nil {
		res.Error = *out.Error
	}
	return res, nil
}

// nodeRunError turns a node's SYSTEM_RUN_DENIED answer into the denial
// the exec tool reports; other errors pass through.
func nodeRunError(err error) error {
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		return err
	}
	d, _ := pe.Details.(map[string]any)
	if d["code"] != protocol.DetailNodeError {
		return err
	}
	code, msg := "", pe.Message
	switch ne := d["nodeError"].(type) {
	case map[string]string:
		code, msg = ne["code"], ne["message"]
	case map[string]any:
		code, _ = ne["code"].(string)
		msg, _ = ne["message"].(string)
	}
	if code != "SYSTEM_RUN_DENIED" {
		return err
	}
	return &shell.NodeDeniedError{Message: msg}
}

// ApproveDecision waits like Approve and reads back which allow the
// person chose, so an allow-always reaches the node.
func (d decisionApprover) ApproveDecision(ctx context.Context, req tools.ApprovalRequest) (string, error) {
	ok, id, err := d.a.Approve(ctx, req)
	if err != nil || !ok {
		return "", err
	}
	if _, decision, err := d.a.Status(ctx, id); err == nil && decision != "" {
		return decision, nil
	}
	return tools.DecisionAllowOnce, nil // approved; only the kind of allow is unknown
}
