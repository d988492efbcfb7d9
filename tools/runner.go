package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Guard actions.
const (
	ActionAllow           = "allow"
	ActionDeny            = "deny"
	ActionRequireApproval = "require_approval"
)

// GuardDecision is what the Tool Guard says about one call.
type GuardDecision struct {
	Action string
	Rule   int // index of the deciding rule; -1 for the default policy
	Reason string
}

// Guard checks a call before it runs. Nil allows everything.
type Guard interface {
	Check(tool string, args json.RawMessage) GuardDecision
}

// Policy decides whether a caller may use a tool at all (the tool policy
// chain); the model is only ever shown allowed tools, and a call to any
// other is refused here too. Nil allows everything.
type Policy interface {
	Allowed(ctx context.Context, who Who, tool Spec) (ok bool, reason string)
}

// ToolSetPolicy is a Policy that can also tell when a caller's explicit
// allow lists leave it no tool at all (an allow list naming only tools no
// plugin provides). The run must then not call the model: OpenClaw stops
// such a run loudly rather than let the agent go on without its tools.
type ToolSetPolicy interface {
	Policy
	// NoCallableTools returns an error saying which allow lists left who
	// no tool, or nil.
	NoCallableTools(ctx context.Context, who Who) error
}

// CheckToolSet returns the policy's error when explicit allow lists leave
// who no tool at all, else nil.
func (r *Runner) CheckToolSet(ctx context.Context, who Who) error {
	if p, ok := r.Policy.(ToolSetPolicy); ok {
		return p.NoCallableTools(ctx, who)
	}
	return nil
}

// ApprovalRequest asks a person to allow one call.
type ApprovalRequest struct {
	Tool   string
	Args   json.RawMessage
	Who    Who
	Reason string
}

// Approver waits for a person's decision. It must persist the request
// before waiting and return false (deny) when the wait times out or ctx
// ends.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (approved bool, id string, err error)
}

// Hooks run around every call. BeforeTool may rewrite the arguments or
// block the call with an error; it runs before validation, the guard and
// approval, so they see the arguments the tool will get. AfterTool may
// rewrite the result.
type Hooks interface {
	BeforeTool(ctx context.Context, call Call) (json.RawMessage, error)
	AfterTool(ctx context.Context, call Call, res Result) Result
}

// AuditEntry records one guarded call. Arguments are kept as a digest.
type AuditEntry struct {
	At         time.Time
	Who        Who
	Tool       string
	ArgsDigest string
	Decision   string // allowed | denied | approved | refused (policy) | error
	Rule       int
	Reason     string
	ApprovalID string
	Duration   time.Duration
	IsError    bool
	// Env is the environment the call set for a command it ran (exec's
	// env), values of secret-looking names redacted; nil when none. A
	// tool reports it with NoteAudit.
	Env map[string]string
}

// Auditor stores audit entries; it must not block for long.
type Auditor interface {
	Audit(ctx context.Context, e AuditEntry)
}

// Runner runs tool calls through the whole chain.
type Runner struct {
	Registry *Registry
	Policy   Policy
	Guard    Guard
	Approver Approver
	Hooks    Hooks
	Auditor  Auditor
	// Settings hold the operator's per-tool overrides; nil: all enabled.
	Settings *Settings
	Log      *slog.Logger
	// MaxResultChars caps a result's characters (DefaultMaxResultChars
	// when 0). Each call is told it (Call.MaxChars) so the tool fits its
	// own answer; what still overflows is cut by FitResult.
	MaxResultChars int

	gates sync.Map // run id -> *runGate
}

// runGate serialises the guard phase of one run's calls.
type runGate struct {
	mu    sync.Mutex
	users atomic.Int32
}

// gate locks the run's guard phase and returns its unlock, which forgets
// the gate when no call of the run holds or waits for it.
func (r *Runner) gate(runID string) func() {
	v, _ := r.gates.LoadOrStore(runID, &runGate{})
	g := v.(*runGate)
	g.users.Add(1)
	g.mu.Lock()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Unlock()
			if g.users.Add(-1) == 0 {
				r.gates.CompareAndDelete(runID, g)
			}
		})
	}
}

// Permitted says whether who may use the tool at all: the operator has
// not disabled it, an owner-only tool is asked for by the owner, and the
// policy chain allows it. The model is shown only permitted tools, and
// Run checks again at call time.
func (r *Runner) Permitted(ctx context.Context, who Who, spec Spec) (ok bool, reason string) {
	if !r.Settings.Enabled(spec.Name) {
		return false, "disabled by the operator"
	}
	if spec.OwnerOnly && !who.Owner {
		return false, "only the owner may use it (an operator with operator.admin, or a sender in commands.ownerAllowFrom)"
	}
	if r.Policy != nil {
		if ok, why := r.Policy.Allowed(ctx, who, spec); !ok {
			return false, why
		}
	}
	return true, ""
}

// Run runs one call and always returns a result for the model.
func (r *Runner) Run(ctx context.Context, call Call) (res Result) {
	start := time.Now()
	entry := AuditEntry{At: start, Who: call.Who, Tool: call.Name, ArgsDigest: digest(call.Args), Rule: -1}
	defer func() {
		entry.Duration = time.Since(start)
		entry.IsError = res.IsError
		if r.Auditor != nil {
			r.Auditor.Audit(context.WithoutCancel(ctx), entry)
		}
	}()
	tool, ok := r.Registry.Get(call.Name)
	if !ok {
		entry.Decision, entry.Reason = "refused", "unknown tool"
		return Result{Text: fmt.Sprintf("unknown tool %q", call.Name), IsError: true}
	}
	spec := tool.Spec()
	// An alias (MateClaw's DelegateAgentTool) or another spelling reaches
	// the tool, its hooks, guard and audit under the tool's own name: a
	// tool serving several names dispatches on it.
	if call.Name != spec.Name {
		call.CalledAs = call.Name
	}
	call.Name, entry.Tool = spec.Name, spec.Name
	call.MaxChars = r.maxChars()
	if ok, why := r.Permitted(ctx, call.Who, spec); !ok {
		entry.Decision, entry.Reason = "refused", why
		return Result{Text: fmt.Sprintf("tool %s is not allowed here: %s", spec.Name, why), IsError: true}
	}
	// Before-hooks run before validation, the guard and any approval: a
	// hook may rewrite the arguments, and what the guard judges and a
	// person approves must be what runs, not what the model first asked.
	if r.Hooks != nil {
		args, err := r.Hooks.BeforeTool(ctx, call)
		if err != nil {
			entry.Decision, entry.Reason = "denied", "before_tool hook: "+err.Error()
			return Result{Text: fmt.Sprintf("tool %s was blocked: %v", spec.Name, err), IsError: true}
		}
		if args != nil {
			call.Args = args
			entry.ArgsDigest = digest(call.Args)
		}
	}
	if v, ok := tool.(interface{ Validate(json.RawMessage) error }); ok {
		if err := v.Validate(call.Args); err != nil {
			entry.Decision, entry.Reason = "error", err.Error()
			return Result{Text: fmt.Sprintf("invalid arguments for %s: %v", spec.Name, err), IsError: true}
		}
	}
	// Guard checks and approvals of one run go one at a time, in the order
	// the calls were made, so a person sees one request at a time; the
	// tools themselves still run concurrently.
	unlock := r.gate(call.Who.RunID)
	d := GuardDecision{Action: ActionAllow, Rule: -1}
	if r.Guard != nil {
		d = r.Guard.Check(spec.Name, call.Args)
	}
	if spec.Dangerous && !call.Who.Owner && d.Rule < 0 && d.Action == ActionAllow {
		d = GuardDecision{Action: ActionRequireApproval, Rule: -1, Reason: "a dangerous tool called for someone other than the owner"}
	}
	entry.Rule, entry.Reason = d.Rule, d.Reason
	switch d.Action {
	case ActionDeny:
		unlock()
		entry.Decision = "denied"
		return Result{Text: fmt.Sprintf("tool %s was blocked by the tool guard: %s", spec.Name, d.Reason), IsError: true}
	case ActionRequireApproval:
		if r.Approver == nil {
			unlock()
			entry.Decision = "denied"
			return Result{Text: fmt.Sprintf("tool %s needs approval and nobody can approve it here", spec.Name), IsError: true}
		}
		approved, id, err := r.Approver.Approve(ctx, ApprovalRequest{Tool: spec.Name, Args: call.Args, Who: call.Who, Reason: d.Reason})
		unlock()
		entry.ApprovalID = id
		if err != nil || !approved {
			entry.Decision = "denied"
			why := "the request was denied or timed out"
			if err != nil {
				why = err.Error()
			}
			return Result{Text: fmt.Sprintf("tool %s was not approved: %s", spec.Name, why), IsError: true}
		}
		entry.Decision = "approved"
		ctx = withGuardSettled(ctx, fmt.Sprintf("approved at the tool guard (approval %s)", id))
	default:
		unlock()
		entry.Decision = "allowed"
		if d.Rule >= 0 {
			ctx = withGuardSettled(ctx, fmt.Sprintf("allowed by tools.guard rule %d", d.Rule))
		}
	}
	toolCtx, notes := withAuditNotes(ctx)
	res = r.execute(toolCtx, tool, spec, call)
	notes.apply(&entry)
	if r.Hooks != nil {
		res = r.Hooks.AfterTool(ctx, call, res)
	}
	return r.truncate(res)
}

// execute runs the tool under its timeout, turning errors and panics
// into error results.
func (r *Runner) execute(ctx context.Context, tool Tool, spec Spec, call Call) (res Result) {
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			if r.Log != nil {
				r.Log.Error("tool panicked", "tool", spec.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			}
			res = Result{Text: fmt.Sprintf("tool %s failed: internal error", spec.Name), IsError: true}
		}
	}()
	out, err := tool.Call(ctx, call)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return Result{Text: fmt.Sprintf("tool %s timed out after %s", spec.Name, timeout), IsError: true}
	case err != nil:
		return Result{Text: fmt.Sprintf("tool %s failed: %v", spec.Name, err), IsError: true}
	}
	return out
}

func (r *Runner) maxChars() int {
	if r.MaxResultChars > 0 {
		return r.MaxResultChars
	}
	return DefaultMaxResultChars
}

func (r *Runner) truncate(res Result) Result {
	res.Text = FitResult(res.Text, r.maxChars())
	return res
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
