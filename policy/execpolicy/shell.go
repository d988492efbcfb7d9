package execpolicy

import (
	"slices"
	"strings"
)

// nested analyses a string that a shell will parse and run.
func (w *walker) nested(script string, inv invocation, label string, zsh bool) {
	if inv.fr.depth+1 > maxDepth {
		w.unknown(shorten(script), "commands nested too deeply")
		return
	}
	f, err := parse(script, zsh)
	if err != nil {
		w.unknown(shorten(script), "inner script does not parse: "+err.Error())
		return
	}
	fr := &frame{
		src:      script,
		wrappers: append(slices.Clip(inv.wrappers), label),
		zsh:      zsh,
		depth:    inv.fr.depth + 1,
	}
	for _, st := range f.Stmts {
		w.visit(st, fr)
	}
}

// shell handles sh, bash, zsh and friends: -c with a fixed script is parsed
// and analysed; a script file makes the shell the program that runs; a
// shell reading commands from standard input is analysed only when a fixed
// here-document feeds it.
func (w *walker) shell(inv invocation, base string, zsh bool) {
	args := inv.args[1:]
	cmdMode, stdinMode := false, false
	i := 0
options:
	for ; i < len(args); i++ {
		a := args[i]
		if !a.lit && cmdMode {
			break // the script operand, reported below
		}
		if !a.lit {
			w.program(inv)
			w.unknown(a.text, base+" option is not a fixed string")
			return
		}
		v := a.val
		switch {
		case v == "--" || v == "-":
			i++
			break options
		case strings.HasPrefix(v, "--"):
			switch v {
			case "--login", "--noprofile", "--norc", "--posix", "--restricted", "--verbose", "--noediting":
				continue
			case "--help", "--version":
				w.program(inv)
				return
			}
			w.program(inv)
			w.unknown(v, base+" option is not understood")
			return
		case len(v) < 2 || v[0] != '-' && v[0] != '+':
			break options
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			switch {
			case c == 'c' && v[0] == '-':
				cmdMode = true
			case c == 's' && v[0] == '-':
				stdinMode = true
			case c == 'o' || c == 'O':
				if i+1 >= len(args) || !args[i+1].lit {
					w.program(inv)
					w.unknown(v, base+" -o needs a fixed option name")
					return
				}
				i++
			case strings.IndexByte("abefhiklmnprtuvxBCEHPT", c) >= 0:
			default:
				w.program(inv)
				w.unknown(v, base+" option is not understood")
				return
			}
		}
	}
	operands := args[i:]
	switch {
	case cmdMode:
		if len(operands) == 0 {
			w.program(inv)
			if inv.trailing {
				w.unknown(joinArgs(inv.args), base+" -c script is read from input")
			}
			return
		}
		if !operands[0].lit {
			w.program(inv)
			w.unknown(operands[0].text, base+" -c script is not a fixed string")
			return
		}
		w.wrapperProgram(inv)
		w.nested(operands[0].val, inv, base+" -c", zsh)
	case len(operands) > 0 && !stdinMode:
		w.program(inv) // runs a script file: the shell is what must be allowed
	case inv.stdin != nil:
		w.wrapperProgram(inv)
		w.nested(*inv.stdin, inv, base+" <<", zsh)
	default:
		w.program(inv)
		w.unknown(joinArgs(inv.args), base+" reads its commands from standard input")
	}
}

// foreignShell is a shell whose syntax is not analysed.
func (w *walker) foreignShell(inv invocation, base string) {
	w.program(inv)
	args := inv.args[1:]
	for _, a := range args {
		if !a.lit || strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && strings.Contains(a.val, "c") || strings.HasPrefix(a.val, "--c") {
			w.unknown(joinArgs(inv.args), base+" commands are not analysed")
			return
		}
		if !strings.HasPrefix(a.val, "-") {
			return // script file
		}
	}
	w.unknown(joinArgs(inv.args), base+" reads its commands from standard input")
}
