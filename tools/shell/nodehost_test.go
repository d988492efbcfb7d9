package shell

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// fakeNodes is a NodeRunner over an in-memory set of nodes.
type fakeNodes struct {
	list       []NodeInfo
	plan       NodePlan
	prepareErr error
	runErr     error
	out        NodeRunResult

	prepared []string // node ids
	runs     []fakeRun
}

type fakeRun struct {
	node     string
	req      NodeRunRequest
	plan     NodePlan
	decision string
}

func (f *fakeNodes) Nodes(context.Context) ([]NodeInfo, error) { return f.list, nil }

func (f *fakeNodes) Prepare(_ context.Context, nodeID string, req NodeRunRequest) (NodePlan, error) {
	f.prepared = append(f.prepared, nodeID)
	if f.prepareErr != nil {
		return NodePlan{}, f.prepareErr
	}
	p := f.plan
	p.Raw = json.RawMessage(`{"planId":"p1"}`)
	p.Argv, p.Cwd = req.Argv, req.Cwd
	return p, nil
}

func (f *fakeNodes) Run(_ context.Context, nodeID string, req NodeRunRequest, plan NodePlan, decision string) (NodeRunResult, error) {
	f.runs = append(f.runs, fakeRun{nodeID, req, plan, decision})
	return f.out, f.runErr
}

// decider answers approvals with a fixed decision ("" = deny or timeout).
type decider struct {
	decision string
	asked    []tools.ApprovalRequest
}

func (d *decider) Approve(ctx context.Context, req tools.ApprovalRequest) (bool, string, error) {
	d.asked = append(d.asked, req)
	return d.decision != "", "id", nil
}

func (d *decider) ApproveDecision(ctx context.Context, req tools.ApprovalRequest) (string, error) {
	d.asked = append(d.asked, req)
	return d.decision, nil
}

// plainApprover has no DecisionApprover capability.
type plainApprover struct{ ok bool }

func (p plainApprover) Approve(context.Context, tools.ApprovalRequest) (bool, string, error) {
	return p.ok, "id", nil
}

func TestExecOnNode(t *testing.T) {
	zero := 0
	one := NodeInfo{ID: "n1", Name: "laptop", Platform: "linux"}
	two := NodeInfo{ID: "n2", Name: "server", Platform: "linux"}
	allow := NodePlan{Security: "full", Ask: "off", Outcome: "allow"}
	ask := NodePlan{Security: "allowlist", Ask: "on-miss", Outcome: "ask", Reason: "allowlist miss: rm"}
	ran := NodeRunResult{ExitCode: &zero, Stdout: "from-node\n"}

	tests := []struct {
		name     string
		args     string
		nodes    *fakeNodes
		approver tools.Approver
		noRunner bool

		wantErr      string // the call fails with this
		wantStatus   string
		wantNote     string
		wantNode     string
		wantDecision string // of the run; "-" = no run
		wantAsked    bool
	}{
		{name: "no runner wired", args: `{"command":"echo x","host":"node"}`, noRunner: true, wantErr: "not available"},
		{name: "no node connected", args: `{"command":"echo x","host":"node"}`, nodes: &fakeNodes{}, wantErr: "no node is connected"},
		{name: "several nodes and no node arg", args: `{"command":"echo x","host":"node"}`,
			nodes: &fakeNodes{list: []NodeInfo{one, two}}, wantErr: "laptop (n1), server (n2)"},
		{name: "unknown node", args: `{"command":"echo x","host":"node","node":"desk"}`,
			nodes: &fakeNodes{list: []NodeInfo{one, two}}, wantErr: `node "desk" is not connected`},
		{name: "relative workdir", args: `{"command":"echo x","host":"node","workdir":"sub"}`,
			nodes: &fakeNodes{list: []NodeInfo{one}}, wantErr: "absolute path on the node"},
		{name: "background refused", args: `{"command":"echo x","host":"node","background":true}`,
			nodes: &fakeNodes{list: []NodeInfo{one}}, wantErr: "background"},
		{name: "policy says run", args: `{"command":"echo from-node","host":"node"}`,
			nodes: &fakeNodes{list: []NodeInfo{one}, plan: allow, out: ran}, approver: &decider{decision: "allow-once"},
			wantStatus: "completed", wantNode: "n1", wantDecision: ""},
		{name: "node by name among several", args: `{"command":"echo from-node","host":"node","node":"SERVER"}`,
			nodes:      &fakeNodes{list: []NodeInfo{one, two}, plan: allow, out: ran},
			wantStatus: "completed", wantNode: "n2", wantDecision: ""},
		{name: "node by id", args: `{"command":"echo from-node","host":"node","node":"n1"}`,
			nodes:      &fakeNodes{list: []NodeInfo{one, two}, plan: allow, out: ran},
			wantStatus: "completed", wantNode: "n1", wantDecision: ""},
		{name: "call asks always", args: `{"command":"echo from-node","host":"node","ask":"always"}`,
			nodes: &fakeNodes{list: []NodeInfo{one}, plan: allow, out: ran}, approver: &decider{decision: "allow-once"},
			wantStatus: "completed", wantNode: "n1", wantDecision: "allow-once", wantAsked: true},
		{name: "call tightens full to allowlist", args: `{"command":"echo from-node","host":"node","security":"allowlist"}`,
			nodes: &fakeNodes{list: []NodeInfo{one}, plan: allow, out: ran}, approver: &decider{decision: ""},
			wantStatus: "denied", wantNote: "security=allowlist for this call", wantDecision: "-", wantAsked: true},
		{name: "ambiguous node name", args: `{"command":"echo x","host":"node","node":"laptop"}`,
			nodes: &fakeNodes{list: []NodeInfo{one, {ID: "n3", Name: "Laptop"}}}, wantErr: `node name "laptop" is ambiguous`},
		{name: "call says security deny", args: `{"command":"echo x","host":"node","security":"deny"}`,
			nodes:      &fakeNodes{list: []NodeInfo{one}, plan: allow, out: ran},
			wantStatus: "denied", wantNote: "security=deny", wantDecision: "-"},
		{name: "ask then allow-once", args: `{"command":"rm x","host":"node"}`,
			nodes: &fakeNodes{list: []NodeInfo{one}, plan: ask, out: ran}, approver: &decider{decision: "allow-once"},
			wantStatus: "completed", wantNode: "n1", wantDecision: "allow-once", wantAsked: true},
		{name: "ask then allow-always", args: `{"command":"rm x","host":"node"}`,
			nodes: &fakeNodes{list: []NodeInfo{one}, plan: ask, out: ran}, approver: &decider{decision: "allow-always"},
			wantStatus: "completed", wantNode: "n1", wantDecision: "allow-always", wantAsked: true},
		{name: "ask then plain approver allows once", args: `{"command":"rm x","host":"node"}`,
			nodes: &fakeNodes{list: []NodeInfo{one}, plan: ask, out: ran}, approver: plainApprover{ok: true},
			wantStatus: "completed", wantNode: "n1", wantDecision: "allow-once"},
		{name: "ask then denied", args: `{"command":"rm x","host":"node"}`,
			nodes: &fakeNodes{list: []NodeInfo{one}, plan: ask, out: ran}, approver: &decider{decision: ""},
			wantStatus: "denied", wantNote: "not approved for node laptop (n1): allowlist miss: rm", wantDecision: "-", wantAsked: true},
		{name: "ask then timeout", args: `{"command":"rm x","host":"node"}`,
			nodes: &fakeNodes{list: []NodeInfo{one}, plan: ask, out: ran}, approver: plainApprover{ok: false},
			wantStatus: "denied", wantNote: "not approved", wantDecision: "-"},
		{name: "ask with no approver", args: `{"command":"rm x","host":"node"}`,
			nodes:      &fakeNodes{list: []NodeInfo{one}, plan: ask, out: ran},
			wantStatus: "denied", wantNote: "not approved", wantDecision: "-"},
		{name: "node denies at prepare", args: `{"command":"rm x","host":"node"}`,
			nodes:      &fakeNodes{list: []NodeInfo{one}, prepareErr: &NodeDeniedError{Message: "SYSTEM_RUN_DENIED: security=deny"}},
			wantStatus: "denied", wantNote: "refused: SYSTEM_RUN_DENIED: security=deny", wantDecision: "-"},
		{name: "node denies at run", args: `{"command":"rm x","host":"node"}`,
			nodes:    &fakeNodes{list: []NodeInfo{one}, plan: ask, runErr: &NodeDeniedError{Message: "SYSTEM_RUN_DENIED: the command differs from the approved plan"}},
			approver: &decider{decision: "allow-once"}, wantStatus: "denied", wantNote: "differs from the approved plan",
			wantDecision: "allow-once", wantAsked: true},
		// GHSA-j425-whc4-4jgc on a node whose allowlist lets git run but
		// whose verdict did not weigh the environment: the gateway asks.
		{name: "node allowlist allows, env steers git", args: `{"command":"git status","host":"node","env":{"GIT_SSH_COMMAND":"touch /tmp/x"}}`,
			nodes:    &fakeNodes{list: []NodeInfo{one}, plan: NodePlan{Security: "allowlist", Ask: "on-miss", Outcome: "allow"}, out: ran},
			approver: &decider{decision: ""}, wantStatus: "denied", wantNote: "GIT_SSH_COMMAND", wantDecision: "-", wantAsked: true},
		{name: "node allowlist allows, env steers git, nobody to ask", args: `{"command":"git status","host":"node","env":{"GIT_CONFIG_COUNT":"1"}}`,
			nodes:      &fakeNodes{list: []NodeInfo{one}, plan: NodePlan{Security: "allowlist", Ask: "on-miss", Outcome: "allow"}, out: ran},
			wantStatus: "denied", wantNote: "GIT_CONFIG_COUNT", wantDecision: "-"},
		{name: "node allowlist allows, safe env", args: `{"command":"echo from-node","host":"node","env":{"LANG":"C","TZ":"UTC"}}`,
			nodes:      &fakeNodes{list: []NodeInfo{one}, plan: NodePlan{Security: "allowlist", Ask: "on-miss", Outcome: "allow"}, out: ran},
			wantStatus: "completed", wantNode: "n1", wantDecision: ""},
		{name: "node full runs anything, env adds nothing", args: `{"command":"echo from-node","host":"node","env":{"GIT_PAGER":"less"}}`,
			nodes:      &fakeNodes{list: []NodeInfo{one}, plan: allow, out: ran},
			wantStatus: "completed", wantNode: "n1", wantDecision: ""},
		{name: "refused env never reaches the node", args: `{"command":"echo x","host":"node","env":{"LD_PRELOAD":"/tmp/x.so"}}`,
			nodes: &fakeNodes{list: []NodeInfo{one}, plan: allow, out: ran}, wantErr: "LD_PRELOAD may not be set"},
		{name: "node unreachable", args: `{"command":"echo x","host":"node"}`,
			nodes: &fakeNodes{list: []NodeInfo{one}, prepareErr: errors.New("node not connected")}, wantErr: "prepare on node laptop (n1): node not connected"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			procs := NewProcesses()
			t.Cleanup(procs.Close)
			cfg := Config{Workspace: func(tools.Who) (string, error) { return t.TempDir(), nil }, Approver: tc.approver, MaxOutput: 64}
			if !tc.noRunner {
				cfg.Nodes = tc.nodes
			}
			ex := Tools(cfg, procs)[0]
			r := run(t, ex, tc.args)
			if tc.wantErr != "" {
				if r.Status != "error" || !strings.Contains(r.Note, tc.wantErr) {
					t.Fatalf("got %+v, want error containing %q", r, tc.wantErr)
				}
				return
			}
			if r.Status != tc.wantStatus || !strings.Contains(r.Note, tc.wantNote) || r.Host != "node" {
				t.Fatalf("got %+v, want status %q note containing %q", r, tc.wantStatus, tc.wantNote)
			}
			if tc.wantStatus == "completed" && (r.Node != tc.wantNode || r.Stdout != "from-node\n" || r.ExitCode == nil || *r.ExitCode != 0) {
				t.Fatalf("got %+v, want from-node on %s", r, tc.wantNode)
			}
			if d, ok := tc.approver.(*decider); ok && (len(d.asked) > 0) != tc.wantAsked {
				t.Fatalf("asked %d times, want asked=%v", len(d.asked), tc.wantAsked)
			}
			switch {
			case tc.wantDecision == "-" && len(tc.nodes.runs) != 0:
				t.Fatalf("ran %+v, want no run", tc.nodes.runs)
			case tc.wantDecision != "-" && len(tc.nodes.runs) != 1:
				t.Fatalf("ran %d times, want once", len(tc.nodes.runs))
			case tc.wantDecision != "-":
				got := tc.nodes.runs[0]
				if got.decision != tc.wantDecision || !slices.Equal(got.req.Argv, []string{"sh", "-c", strings.Split(tc.args, `"`)[3]}) ||
					got.req.AgentID != "main" || string(got.plan.Raw) != `{"planId":"p1"}` {
					t.Fatalf("run %+v, want decision %q", got, tc.wantDecision)
				}
			}
		})
	}
}

func TestExecOnNodeApprovalShowsNode(t *testing.T) {
	zero := 0
	d := &decider{decision: "allow-once"}
	nodes := &fakeNodes{list: []NodeInfo{{ID: "n1", Name: "laptop", Platform: "linux"}},
		plan: NodePlan{Outcome: "ask", Reason: "allowlist miss"}, out: NodeRunResult{ExitCode: &zero}}
	procs := NewProcesses()
	t.Cleanup(procs.Close)
	ex := Tools(Config{Workspace: func(tools.Who) (string, error) { return t.TempDir(), nil }, Approver: d, Nodes: nodes}, procs)[0]
	run(t, ex, `{"command":"make all","host":"node","workdir":"/srv/app","env":{"X":"1","API_TOKEN":"t0ps3cret"},"timeoutSeconds":5}`)
	if len(d.asked) != 1 {
		t.Fatalf("asked %d times", len(d.asked))
	}
	var args map[string]any
	if err := json.Unmarshal(d.asked[0].Args, &args); err != nil {
		t.Fatal(err)
	}
	env, _ := args["env"].(map[string]any)
	if args["host"] != "node" || args["node"] != "n1" || args["cwd"] != "/srv/app" || args["command"] != "make all" ||
		!strings.Contains(d.asked[0].Reason, "laptop (n1)") || env["X"] != "1" || env["API_TOKEN"] != tools.RedactedEnvValue {
		t.Fatalf("approval request %s reason %q", d.asked[0].Args, d.asked[0].Reason)
	}
	req := nodes.runs[0].req
	if req.Cwd != "/srv/app" || req.Env["X"] != "1" || req.Env["API_TOKEN"] != "t0ps3cret" || req.Timeout.Seconds() != 5 {
		t.Fatalf("run request %+v", req)
	}
}

func TestExecOnNodeCapsOutput(t *testing.T) {
	zero := 0
	nodes := &fakeNodes{list: []NodeInfo{{ID: "n1"}}, plan: NodePlan{Outcome: "allow"},
		out: NodeRunResult{ExitCode: &zero, Stdout: strings.Repeat("x", 1000)}}
	procs := NewProcesses()
	t.Cleanup(procs.Close)
	ex := Tools(Config{Workspace: func(tools.Who) (string, error) { return t.TempDir(), nil }, Nodes: nodes, MaxOutput: 64}, procs)[0]
	r := run(t, ex, `{"command":"yes","host":"node"}`)
	if !strings.HasPrefix(r.Stdout, strings.Repeat("x", 64)+"\n[output capped at 64 of 1000 bytes]") {
		t.Fatalf("stdout %q", r.Stdout)
	}
}

func TestNodeShellArgv(t *testing.T) {
	if got := nodeShellArgv("windows", "dir"); !slices.Equal(got, []string{"cmd.exe", "/d", "/s", "/c", "dir"}) {
		t.Fatalf("windows argv %v", got)
	}
	if got := nodeShellArgv("darwin", "ls"); !slices.Equal(got, []string{"sh", "-c", "ls"}) {
		t.Fatalf("darwin argv %v", got)
	}
}
