package execpolicy

import "errors"

// ErrUnparsable is wrapped by Analyze's error when a command line cannot be
// analysed at all: it does not parse, is longer than MaxCommandBytes, or
// holds a NUL byte. The caller must deny the command (Evaluate does).
var ErrUnparsable = errors.New("command cannot be analysed")

// ErrEnvRefused is wrapped by CheckEnv's error for a variable a caller may
// never set, not even with an approval. The caller refuses the whole
// command.
var ErrEnvRefused = errors.New("environment variable refused")
