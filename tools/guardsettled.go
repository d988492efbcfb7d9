package tools

import "context"

type guardSettledKey struct{}

// GuardSettled says whether the Tool Guard already decided this call may
// run (a rule allowed it, or a person approved it at the guard), and how.
// A tool with approvals of its own (exec) then does not ask a second
// time: one decision, one prompt. Only the Runner sets it, in the context
// it hands the tool; no argument of the call can.
func GuardSettled(ctx context.Context) (how string, ok bool) {
	how, ok = ctx.Value(guardSettledKey{}).(string)
	return how, ok
}

func withGuardSettled(ctx context.Context, how string) context.Context {
	return context.WithValue(ctx, guardSettledKey{}, how)
}
