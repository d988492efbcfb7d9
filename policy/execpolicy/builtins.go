package execpolicy

import (
	"slices"
	"strings"
)

// shellBuiltins are the names Bash runs itself, without looking at PATH.
// Keywords (if, time, [[ …) are handled by the parser.
var shellBuiltins = []string{
	".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd",
	"command", "compgen", "complete", "compopt", "continue", "declare", "dirs",
	"disown", "echo", "enable", "eval", "exec", "exit", "export", "false", "fc",
	"fg", "getopts", "hash", "help", "history", "jobs", "kill", "let", "local",
	"logout", "mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray",
	"readonly", "return", "set", "shift", "shopt", "source", "suspend", "test",
	"times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias",
	"unset", "wait",
}

func isBuiltin(name string) bool { return slices.Contains(shellBuiltins, name) }

// inertBuiltin reports whether a builtin invocation runs nothing and changes
// nothing that decides what runs later, so allowlist mode accepts it without
// an entry. Builtins that set variables, aliases, functions, hashed paths,
// traps or limits are not inert, nor are arguments that a builtin evaluates
// as arithmetic or as a variable name with a subscript.
func inertBuiltin(c Command) bool {
	if !c.Builtin || len(c.Argv) == 0 {
		return false
	}
	args := c.Argv[1:]
	switch c.Executable {
	case ":", "true", "false", "echo", "cd":
		return true
	case "printf":
		// printf -v NAME assigns; an expansion could expand to -v.
		return !c.DynamicArgs && !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-v") })
	case "test", "[":
		// -v and -R take a variable name and evaluate its subscript.
		return !c.DynamicArgs && !slices.Contains(args, "-v") && !slices.Contains(args, "-R")
	case "exit", "return", "break", "continue", "shift", "wait":
		return !c.DynamicArgs && len(args) <= 1 && (len(args) == 0 || isDecimal(args[0]))
	case "pwd", "set", "type", "jobs", "times", "dirs", "pushd", "popd", "help":
		return !c.DynamicArgs
	}
	return false
}

func isDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
