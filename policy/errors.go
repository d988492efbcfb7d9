package policy

import "errors"

var (
	// ErrUnknownProfile means a profile key names no profile. The config is
	// invalid: report it with its key path and do not run the agent.
	ErrUnknownProfile = errors.New("unknown tool profile")

	// ErrNoCallableTools means explicit allow lists left the model no tool
	// at all. OpenClaw aborts the run before calling the model; do the same
	// and show the error to the operator (the allow list, or a missing
	// plugin, needs fixing).
	ErrNoCallableTools = errors.New("no callable tools remain after applying the explicit tool allow lists")

	// ErrInvalidInput means Resolve was given something it cannot judge (a
	// tool without a name, an unknown source). It is a programming error in
	// the caller.
	ErrInvalidInput = errors.New("invalid tool policy input")

	// ErrInvalidRule means a Tool Guard rule cannot be compiled; the error
	// names the rule's index. Fix the configuration.
	ErrInvalidRule = errors.New("invalid tool guard rule")
)
