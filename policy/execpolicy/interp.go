package execpolicy

import (
	"strings"
)

// Interpreters are recorded as the program that runs, with InlineCode set
// when their program comes from the command line or standard input rather
// than from a file: what such code does is not analysed (allowing the
// interpreter allows it; Policy.StrictInlineEval asks instead).

// interpreterFamily names the interpreter a command name belongs to
// (python3.12 → "python"), or "".
func interpreterFamily(base string) string {
	name := strings.TrimRight(base, "0123456789.")
	switch name {
	case "python", "pypy":
		return "python"
	case "node", "nodejs":
		return "node"
	case "perl", "ruby", "php", "lua", "luajit", "julia", "osascript", "deno", "bun", "irb":
		return name
	case "Rscript", "R":
		return "r"
	case "pwsh", "powershell":
		return name
	case "tclsh", "wish":
		return "tcl"
	}
	return ""
}

// interpreter records an interpreter invocation and whether it runs inline
// code.
func (w *walker) interpreter(family string, inv invocation) {
	i := w.program(inv)
	w.out.Commands[i].InlineCode = inlineCode(family, inv.args[1:])
}

// inlineCode reports whether an interpreter's program is given inline or on
// standard input. It errs towards true.
func inlineCode(family string, args []arg) bool {
	var (
		short   string   // letters that take inline code
		long    []string // long options that take inline code
		valued  string   // letters whose value is the next word
		longVal []string // long options whose value is the next word
		subcmds []string // first operands that take inline code
	)
	switch family {
	case "python":
		short, valued, longVal = "c", "WXQ", []string{"--check-hash-based-pycs"}
		for _, a := range args {
			if a.lit && (a.val == "-m" || strings.HasPrefix(a.val, "-m")) {
				return false // runs an installed module
			}
			if !a.lit || !strings.HasPrefix(a.val, "-") {
				break
			}
		}
	case "node":
		short, long = "ep", []string{"--eval", "--print"}
		valued, longVal = "rC", []string{"--require", "--import", "--loader", "--experimental-loader", "--conditions", "--input-type", "--env-file", "--title"}
	case "bun":
		short, long, subcmds = "ep", []string{"--eval", "--print"}, []string{"repl", "exec"}
	case "deno":
		subcmds = []string{"eval", "repl"}
	case "perl":
		short, valued = "eE", "I"
	case "ruby":
		short, valued = "e", "rICE"
	case "php":
		short, valued = "rBREFa", "dcztS"
	case "lua", "luajit":
		short, valued = "e", "l"
	case "julia":
		short, long = "eE", []string{"--eval", "--print"}
	case "r":
		short, long, valued = "e", []string{"--eval"}, "f"
	case "osascript":
		short, valued = "e", "l"
	case "pwsh", "powershell":
		for _, a := range args {
			v := strings.ToLower(a.val)
			if !a.lit {
				return true
			}
			if v == "-file" || v == "-f" {
				return false
			}
			if strings.HasPrefix(v, "-c") || strings.HasPrefix(v, "-e") {
				return true
			}
			if !strings.HasPrefix(v, "-") {
				return family == "powershell" // powershell.exe runs a positional command, pwsh a file
			}
		}
		return true
	case "irb":
		return true
	case "tcl":
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.lit {
			return true
		}
		v := a.val
		switch {
		case v == "-":
			return true // program on standard input
		case v == "--":
			return i+1 >= len(args)
		case strings.HasPrefix(v, "--"):
			name, _, has := strings.Cut(v, "=")
			for _, l := range long {
				if name == l {
					return true
				}
			}
			for _, l := range longVal {
				if name == l && !has {
					i++
				}
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			if strings.ContainsAny(v[1:], short) && short != "" {
				return true
			}
			if last := v[len(v)-1]; strings.IndexByte(valued, last) >= 0 && len(v) == 2 {
				i++
			}
		default:
			for _, s := range subcmds {
				if v == s {
					return true
				}
			}
			return false // a script file or subcommand
		}
	}
	return true // no program named: reads it from standard input, or a REPL
}

// awk programs are inline code; system() with a fixed string is analysed as
// a shell command, and any other way awk has of running commands (a
// computed system() argument, pipes to or from commands) is unknowable.
func (w *walker) awk(inv invocation) {
	i := w.program(inv)
	args := inv.args[1:]
	var progs []arg
	hasFile := false
	j := 0
options:
	for ; j < len(args); j++ {
		a := args[j]
		if !a.lit {
			w.unknown(a.text, "awk argument is not a fixed string")
			return
		}
		v := a.val
		switch {
		case v == "--":
			j++
			break options
		case v == "-" || !strings.HasPrefix(v, "-"):
			break options
		case strings.HasPrefix(v, "--"):
			name, val, has := strings.Cut(v[2:], "=")
			o, err := gawkLong.long(name)
			if err != nil {
				w.unknown(v, "awk: "+err.Error())
				return
			}
			if !has && o.arity == argRequired {
				j++
				if j >= len(args) || !args[j].lit {
					w.unknown(v, "awk option value is missing or not fixed")
					return
				}
				val = args[j].val
			}
			switch o.long {
			case "file", "exec":
				hasFile = true
			case "source":
				progs = append(progs, literal(val))
			case "load", "include":
				w.unknown(v, "awk loads code from a file or library")
				return
			}
		default:
			c, attached := v[1], v[2:]
			switch {
			case strings.IndexByte("fEevFWil", c) >= 0:
				val := attached
				if val == "" {
					j++
					if j >= len(args) || !args[j].lit {
						w.unknown(v, "awk option value is missing or not fixed")
						return
					}
					val = args[j].val
				}
				switch c {
				case 'f', 'E':
					hasFile = true
				case 'e':
					progs = append(progs, literal(val))
				case 'i', 'l':
					w.unknown(v, "awk loads code from a file or library")
					return
				case 'W':
					switch val {
					case "interactive", "version", "posix", "traditional", "lint", "sandbox", "usage", "dump":
					default:
						w.unknown(v+" "+val, "awk -W option is not understood")
						return
					}
				}
			case strings.IndexByte("bcCdDgGhLMnNoOpPrsStV", c) >= 0:
			default:
				w.unknown(v, "awk option is not understood")
				return
			}
		}
	}
	if len(progs) == 0 && !hasFile && j < len(args) {
		progs = append(progs, args[j])
	}
	if len(progs) > 0 {
		w.out.Commands[i].InlineCode = true
	}
	for _, p := range progs {
		w.awkProgram(p.val, inv)
	}
}

var gawkLong = optSpec{opts: []option{
	{0, "file", argRequired}, {0, "exec", argRequired}, {0, "source", argRequired},
	{0, "assign", argRequired}, {0, "field-separator", argRequired}, {0, "load", argRequired},
	{0, "include", argRequired}, {0, "characters-as-bytes", argNone}, {0, "traditional", argNone},
	{0, "copyright", argNone}, {0, "dump-variables", argOptional}, {0, "debug", argOptional},
	{0, "gen-pot", argNone}, {0, "help", argNone}, {0, "lint", argOptional}, {0, "bignum", argNone},
	{0, "use-lc-numeric", argNone}, {0, "non-decimal-data", argNone}, {0, "pretty-print", argOptional},
	{0, "optimize", argNone}, {0, "no-optimize", argNone}, {0, "profile", argOptional},
	{0, "posix", argNone}, {0, "re-interval", argNone}, {0, "sandbox", argNone},
	{0, "lint-old", argNone}, {0, "version", argNone}, {0, "csv", argNone},
}}

// awkProgram scans an awk program for the ways it can run commands.
func (w *walker) awkProgram(prog string, inv invocation) {
	for i := 0; i < len(prog); i++ {
		c := prog[i]
		switch {
		case c == '"':
			_, n := awkString(prog[i:])
			i += n - 1
		case c == '#':
			for i < len(prog) && prog[i] != '\n' {
				i++
			}
		case c == '|':
			if i+1 < len(prog) && prog[i+1] == '|' {
				i++
				continue
			}
			w.unknown(shorten(prog), "awk pipes run shell commands")
			return
		case isIdentByte(c) && (i == 0 || !isIdentByte(prog[i-1])):
			j := i
			for j < len(prog) && isIdentByte(prog[j]) {
				j++
			}
			if prog[i:j] != "system" {
				i = j - 1
				continue
			}
			rest := strings.TrimLeft(prog[j:], " \t")
			cmd, ok := awkSystemArg(rest)
			if !ok {
				w.unknown(shorten(prog), "awk system() runs a computed shell command")
				return
			}
			w.nested(cmd, inv, "awk system()", false)
			i = j - 1
		}
	}
}

// awkSystemArg parses `("fixed string")` and returns the string.
func awkSystemArg(s string) (string, bool) {
	if !strings.HasPrefix(s, "(") {
		return "", false
	}
	s = strings.TrimLeft(s[1:], " \t")
	if !strings.HasPrefix(s, `"`) {
		return "", false
	}
	str, n := awkString(s)
	if n < 2 || s[n-1] != '"' {
		return "", false
	}
	if !strings.HasPrefix(strings.TrimLeft(s[n:], " \t"), ")") {
		return "", false
	}
	return str, true
}

// awkString decodes the string literal at the start of s and returns it
// with the number of bytes it spans.
func awkString(s string) (string, int) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '"':
			return b.String(), i + 1
		case '\\':
			if i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(s[i])
				}
			}
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), len(s)
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// sed scripts are programs, and GNU sed's e command and s///e flag run
// shell commands, so an inline script sets InlineCode.
func (w *walker) sed(inv invocation) {
	i := w.program(inv)
	inline, file := false, false
	args := inv.args[1:]
	for j := 0; j < len(args); j++ {
		a := args[j]
		if !a.lit {
			inline = true
			continue
		}
		v := a.val
		switch {
		case v == "-e" || v == "--expression" || strings.HasPrefix(v, "--expression="):
			inline = true
		case v == "-f" || v == "--file" || strings.HasPrefix(v, "--file="):
			file = true
		case strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && len(v) > 1:
			if strings.ContainsAny(v[1:], "e") {
				inline = true
			}
			if strings.ContainsAny(v[1:], "f") {
				file = true
			}
		}
	}
	w.out.Commands[i].InlineCode = inline || !file
}
