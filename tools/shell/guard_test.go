package shell

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/policy/execpolicy"
	"github.com/openclaw-go/openclaw/tools"
)

type fixedGuard tools.GuardDecision

func (g fixedGuard) Check(string, json.RawMessage) tools.GuardDecision { return tools.GuardDecision(g) }

// TestGuardAndExecApprovals: the Tool Guard and exec's own approvals are
// one decision, not two prompts. A guard rule's allow, or a person's
// approval at the guard, runs the command without exec asking again; what
// exec's policy forbids outright stays forbidden; with no rule deciding,
// exec asks as before; and a non-owner's call still needs approval.
func TestGuardAndExecApprovals(t *testing.T) {
	denyAll := execpolicy.DefaultPolicy()
	denyAll.Security = execpolicy.SecurityDeny
	askOff := execpolicy.DefaultPolicy()
	askOff.Ask = execpolicy.AskOff
	for _, tc := range []struct {
		name   string
		guard  tools.GuardDecision
		pol    execpolicy.Policy
		owner  bool
		asks   int    // prompts a person sees
		status string // exec's result, "" when the runner refused
	}{
		{"guard rule allows: no exec prompt", tools.GuardDecision{Action: tools.ActionAllow, Rule: 0}, execpolicy.DefaultPolicy(), true, 0, "completed"},
		{"guard asks and a person approves: one prompt", tools.GuardDecision{Action: tools.ActionRequireApproval, Rule: 0}, execpolicy.DefaultPolicy(), true, 1, "completed"},
		{"no rule decides: exec asks", tools.GuardDecision{Action: tools.ActionAllow, Rule: -1}, execpolicy.DefaultPolicy(), true, 1, "completed"},
		{"guard allow does not beat security deny", tools.GuardDecision{Action: tools.ActionAllow, Rule: 0}, denyAll, true, 0, "denied"},
		{"guard allow does not beat an allowlist miss with ask off", tools.GuardDecision{Action: tools.ActionAllow, Rule: 0}, askOff, true, 0, "denied"},
		{"guard deny wins", tools.GuardDecision{Action: tools.ActionDeny, Rule: 0}, full(), true, 0, ""},
		{"stranger with no rule: approval at the guard, then none at exec", tools.GuardDecision{Action: tools.ActionAllow, Rule: -1}, execpolicy.DefaultPolicy(), false, 1, "completed"},
		{"stranger with security full: still one approval", tools.GuardDecision{Action: tools.ActionAllow, Rule: -1}, full(), false, 1, "completed"},
		{"stranger allowed by a guard rule: the rule decides", tools.GuardDecision{Action: tools.ActionAllow, Rule: 2}, execpolicy.DefaultPolicy(), false, 0, "completed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ap := &approveAll{}
			ws := t.TempDir()
			procs := NewProcesses()
			t.Cleanup(procs.Close)
			pol := tc.pol
			reg := tools.NewRegistry()
			if err := reg.Register(Tools(Config{Workspace: func(tools.Who) (string, error) { return ws, nil },
				Policy: func(string) execpolicy.Policy { return pol }, Approver: ap}, procs)...); err != nil {
				t.Fatal(err)
			}
			r := &tools.Runner{Registry: reg, Guard: fixedGuard(tc.guard), Approver: ap}
			res := r.Run(context.Background(), tools.Call{ID: "1", Name: "exec", Args: json.RawMessage(`{"command":"touch made"}`),
				Who: tools.Who{AgentID: "main", RunID: "r", Owner: tc.owner}})
			if ap.asked != tc.asks {
				t.Errorf("asked %d times, want %d: %s", ap.asked, tc.asks, res.Text)
			}
			var out Result
			_ = json.Unmarshal([]byte(res.Text), &out)
			if out.Status != tc.status {
				t.Errorf("status %q, want %q: %s", out.Status, tc.status, res.Text)
			}
			if tc.status == "" && !strings.Contains(res.Text, "blocked by the tool guard") {
				t.Errorf("result %s", res.Text)
			}
		})
	}
}

// TestModelCannotLoosenExec: the exec arguments a prompt-injected model
// controls can only tighten the configured policy. Under the default
// (allowlist, ask on a miss) a call asking for security full and ask off
// is still asked; under security full, a call asking for always is asked.
func TestModelCannotLoosenExec(t *testing.T) {
	for _, tc := range []struct {
		name string
		pol  execpolicy.Policy
		args string
		asks int
	}{
		{"default stays asking", execpolicy.DefaultPolicy(), `{"command":"touch x","security":"full","ask":"off"}`, 1},
		{"deny stays deny", func() execpolicy.Policy { p := full(); p.Security = execpolicy.SecurityDeny; return p }(), `{"command":"touch x","security":"full"}`, 0},
		{"full can be tightened", full(), `{"command":"touch x","ask":"always"}`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ap := &approveAll{}
			ex, _, _ := setupWith(t, func(c *Config) {
				pol := tc.pol
				c.Policy = func(string) execpolicy.Policy { return pol }
				c.Approver = ap
			})
			run(t, ex, tc.args)
			if ap.asked != tc.asks {
				t.Fatalf("asked %d, want %d", ap.asked, tc.asks)
			}
		})
	}
}
