package execpolicy

import (
	"path/filepath"
	"slices"
	"strings"
)

// invocation is a command about to be classified: a simple command from the
// script, or the command a wrapper runs.
type invocation struct {
	args     []arg
	wrappers []string
	stdin    *string // fixed text fed to standard input by a here-document
	trailing bool    // more arguments are appended at run time (xargs)
	fr       *frame
}

// inner returns the invocation of the command a wrapper runs.
func (inv invocation) inner(args []arg, wrapper string) invocation {
	n := inv
	n.args = args
	n.wrappers = append(slices.Clip(inv.wrappers), wrapper)
	return n
}

// exec classifies one invocation: builtins, wrappers and launchers are
// unwrapped, interpreters flagged, and everything else recorded as a
// program.
func (w *walker) exec(inv invocation) {
	if len(inv.args) == 0 {
		if inv.trailing {
			w.unknown(strings.Join(inv.wrappers, " "), "the command to run is read from input")
		}
		return
	}
	a0 := inv.args[0]
	if !a0.lit {
		w.unknown(a0.text, "command word is not a fixed string")
		return
	}
	name := a0.val
	if w.an.Dialect != Cmd && !hasSlash(name) && isBuiltin(name) {
		w.builtin(inv)
		return
	}
	base := baseName(name)
	if w.launcher(base, inv) {
		return
	}
	if fam := interpreterFamily(base); fam != "" {
		w.interpreter(fam, inv)
		return
	}
	w.program(inv)
}

// launcher handles the programs that run other programs. It reports false
// for anything else.
func (w *walker) launcher(base string, inv invocation) bool {
	switch base {
	case "env":
		w.env(inv)
	case "nice":
		w.nice(inv)
	case "nohup":
		w.simpleWrapper(inv, "nohup", optSpec{opts: []option{{0, "help", argNone}, {0, "version", argNone}}}, 0)
	case "timeout":
		w.simpleWrapper(inv, "timeout", timeoutSpec, 1)
	case "stdbuf":
		w.simpleWrapper(inv, "stdbuf", stdbufSpec, 0)
	case "time":
		w.timeProgram(inv)
	case "busybox", "toybox":
		w.multicall(inv, base)
	case "sh", "bash", "dash", "ash", "ksh", "ksh93", "mksh", "lksh", "pdksh", "yash", "posh", "rbash", "hush":
		w.shell(inv, base, false)
	case "zsh":
		w.shell(inv, base, true)
	case "fish", "csh", "tcsh", "nu", "elvish", "xonsh", "rc", "es":
		w.foreignShell(inv, base)
	case "sudo", "doas":
		w.sudo(inv, base)
	case "sudoedit":
		w.program(inv)
	case "su", "runuser":
		w.su(inv, base)
	case "xargs":
		w.xargs(inv)
	case "find":
		w.find(inv)
	case "watch":
		w.watch(inv)
	case "flock":
		w.flock(inv)
	case "chroot":
		w.program(inv)
		w.unknown(joinArgs(inv.args), "chroot runs a program inside another root directory")
	case "setsid":
		w.launch(inv, "setsid", setsidSpec, 0, nil)
	case "ionice":
		w.launch(inv, "ionice", ioniceSpec, 0, []string{"pid", "pgid", "uid"})
	case "taskset":
		w.launch(inv, "taskset", tasksetSpec, 1, []string{"pid"})
	case "ssh", "scp", "sftp":
		w.ssh(inv, base)
	case "rsync":
		w.rsync(inv)
	case "git":
		w.git(inv)
	case "awk", "gawk", "mawk", "nawk":
		w.awk(inv)
	case "sed", "gsed":
		w.sed(inv)
	default:
		return false
	}
	return true
}

// program records inv as a program run in its own right and returns its
// index in the analysis.
func (w *walker) program(inv invocation) int {
	c := Command{
		Argv:        make([]string, len(inv.args)),
		Executable:  inv.args[0].val,
		Wrappers:    slices.Clone(inv.wrappers),
		DynamicArgs: inv.trailing,
	}
	for i, a := range inv.args {
		c.Argv[i] = a.String()
		if !a.lit {
			c.DynamicArgs = true
		}
	}
	var relative bool
	c.Resolved, relative = w.resolve(c.Executable)
	w.out.Commands = append(w.out.Commands, c)
	i := len(w.out.Commands) - 1
	if relative {
		w.relative = append(w.relative, i)
	}
	return i
}

// wrapperProgram records inv as a program whose only job is to run what
// follows it.
func (w *walker) wrapperProgram(inv invocation) {
	i := w.program(inv)
	w.out.Commands[i].Wrapper = true
}

// builtin handles a shell builtin: the ones that run other code are
// unwrapped, the others recorded.
func (w *walker) builtin(inv invocation) {
	name, args := inv.args[0].val, inv.args[1:]
	switch name {
	case "exec":
		_, rest, err := execSpec.parse(args)
		if err != nil {
			w.unknown(joinArgs(inv.args), "exec: "+err.Error())
			return
		}
		w.exec(inv.inner(rest, "exec"))
		return
	case "command":
		opts, rest, err := commandSpec.parse(args)
		switch {
		case err != nil:
			w.unknown(joinArgs(inv.args), "command: "+err.Error())
		case opts.has("v") || opts.has("V"):
			// Only looks the name up.
		case opts.has("p"):
			w.unknown(joinArgs(inv.args), "command -p searches a default PATH, not the one analysed")
		default:
			w.exec(inv.inner(rest, "command"))
		}
		return
	case "builtin":
		if len(args) == 0 {
			return
		}
		if !args[0].lit {
			w.unknown(args[0].text, "builtin name is not a fixed string")
			return
		}
		w.builtin(inv.inner(args, "builtin"))
		return
	case "eval":
		script, ok := joinLiteral(args)
		if !ok {
			w.unknown(joinArgs(inv.args), "eval of a string that is not fixed")
			return
		}
		w.nested(script, inv, "eval", inv.fr.zsh)
		return
	case "trap":
		w.trap(inv)
		return
	case "source", ".":
		w.unknown(joinArgs(inv.args), "source runs the commands of a file")
		return
	case "declare", "typeset", "export", "local", "readonly":
		for _, a := range args {
			if !a.lit {
				w.unknown(a.text, name+" with a computed name can set any variable")
				continue
			}
			if !strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "+") {
				n, _, _ := strings.Cut(a.val, "=")
				w.assign(n)
			}
		}
		return
	case "cd", "pushd", "popd":
		w.dirChanged = true
	}
	c := Command{
		Argv:       make([]string, len(inv.args)),
		Executable: name,
		Wrappers:   slices.Clone(inv.wrappers),
		Builtin:    true,
	}
	for i, a := range inv.args {
		c.Argv[i] = a.String()
		if !a.lit {
			c.DynamicArgs = true
		}
	}
	c.DynamicArgs = c.DynamicArgs || inv.trailing
	w.out.Commands = append(w.out.Commands, c)
}

var (
	execSpec    = optSpec{opts: []option{{'a', "", argRequired}, {'c', "", argNone}, {'l', "", argNone}}}
	commandSpec = optSpec{opts: []option{{'p', "", argNone}, {'v', "", argNone}, {'V', "", argNone}}}
)

// trap's action is a script run later, on a signal or on exit.
func (w *walker) trap(inv invocation) {
	args := inv.args[1:]
	for _, a := range args {
		if !a.lit {
			w.unknown(a.text, "trap argument is not a fixed string and could be an action")
			return
		}
	}
	if len(args) > 0 && args[0].lit {
		switch args[0].val {
		case "-l", "-p", "-P":
			return // lists signals or traps
		case "--":
			args = args[1:]
		}
	}
	if len(args) < 2 {
		return // no action: resets the signal
	}
	switch action := args[0]; {
	case !action.lit:
		w.unknown(action.text, "trap action is not a fixed string")
	case action.val != "-":
		w.nested(action.val, inv, "trap", inv.fr.zsh)
	}
}

var envSpec = optSpec{opts: []option{
	{'i', "ignore-environment", argNone}, {'0', "null", argNone},
	{'u', "unset", argRequired}, {'C', "chdir", argRequired},
	{'S', "split-string", argRequired}, {'v', "debug", argNone},
	{0, "default-signal", argOptional}, {0, "ignore-signal", argOptional},
	{0, "block-signal", argOptional}, {0, "list-signal-handling", argNone},
	{0, "help", argNone}, {0, "version", argNone},
}}

// env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]… [COMMAND [ARG]…]
func (w *walker) env(inv invocation) {
	args := inv.args[1:]
	if len(args) > 0 && args[0].lit && args[0].val == "-" {
		args = args[1:] // obsolete spelling of -i
	}
	opts, rest, err := envSpec.parse(args)
	if err != nil {
		w.program(inv)
		w.unknown(joinArgs(inv.args), "env: "+err.Error())
		return
	}
	var split []arg
	for _, o := range opts {
		switch o.name {
		case "chdir":
			w.dirChanged = true
		case "split-string":
			// CVE-2026-31992: -S splits one string into a whole command.
			if !o.value.lit {
				w.program(inv)
				w.unknown(o.value.text, "env -S string is not fixed")
				return
			}
			parts, ok := splitPlain(o.value.val)
			if !ok {
				w.program(inv)
				w.unknown(o.value.val, "env -S string uses quotes, escapes or variables")
				return
			}
			split = append(split, parts...)
		case "help", "version", "list-signal-handling":
			w.program(inv)
			return
		}
	}
	rest = append(split, rest...)
	for len(rest) > 0 && rest[0].lit && strings.Contains(rest[0].val, "=") {
		name, _, _ := strings.Cut(rest[0].val, "=")
		w.assign(name)
		rest = rest[1:]
	}
	if len(rest) == 0 && !inv.trailing {
		w.program(inv) // prints the environment
		return
	}
	w.wrapperProgram(inv)
	w.exec(inv.inner(rest, "env"))
}

// nice [-n N | -N] [COMMAND [ARG]…]
func (w *walker) nice(inv invocation) {
	args := inv.args[1:]
	if len(args) > 0 && args[0].lit && isDecimal(strings.TrimPrefix(args[0].val, "-")) && strings.HasPrefix(args[0].val, "-") {
		args = args[1:] // nice -10 cmd, nice --10 cmd
	}
	opts, rest, err := niceSpec.parse(args)
	switch {
	case err != nil:
		w.program(inv)
		w.unknown(joinArgs(inv.args), "nice: "+err.Error())
	case opts.has("help") || opts.has("version") || len(rest) == 0 && !inv.trailing:
		w.program(inv)
	default:
		w.wrapperProgram(inv)
		w.exec(inv.inner(rest, "nice"))
	}
}

var (
	niceSpec    = optSpec{opts: []option{{'n', "adjustment", argRequired}, {0, "help", argNone}, {0, "version", argNone}}}
	timeoutSpec = optSpec{opts: []option{
		{'s', "signal", argRequired}, {'k', "kill-after", argRequired},
		{'f', "foreground", argNone}, {'p', "preserve-status", argNone},
		{'v', "verbose", argNone}, {0, "help", argNone}, {0, "version", argNone},
	}}
	stdbufSpec = optSpec{opts: []option{
		{'i', "input", argRequired}, {'o', "output", argRequired}, {'e', "error", argRequired},
		{0, "help", argNone}, {0, "version", argNone},
	}}
	timeSpec = optSpec{opts: []option{
		{'p', "portability", argNone}, {'f', "format", argRequired}, {'o', "output", argRequired},
		{'a', "append", argNone}, {'v', "verbose", argNone}, {'q', "quiet", argNone},
		{0, "help", argNone}, {0, "version", argNone},
	}}
)

// simpleWrapper handles a transparent wrapper: options, then skip fixed
// operands (timeout's DURATION), then the command.
func (w *walker) simpleWrapper(inv invocation, label string, spec optSpec, skip int) {
	opts, rest, err := spec.parse(inv.args[1:])
	if err != nil {
		w.program(inv)
		w.unknown(joinArgs(inv.args), label+": "+err.Error())
		return
	}
	if opts.has("help") || opts.has("version") {
		w.program(inv)
		return
	}
	if len(rest) < skip {
		w.program(inv)
		return
	}
	for _, a := range rest[:skip] {
		if !a.lit {
			w.program(inv)
			w.unknown(a.text, label+" operand is not a fixed string and may split into several words")
			return
		}
	}
	rest = rest[skip:]
	if len(rest) == 0 && !inv.trailing {
		w.program(inv)
		return
	}
	w.wrapperProgram(inv)
	w.exec(inv.inner(rest, label))
}

// timeProgram is /usr/bin/time, not the shell keyword.
func (w *walker) timeProgram(inv invocation) {
	opts, _, err := timeSpec.parse(inv.args[1:])
	if err == nil {
		if out, ok := opts.get("output"); ok {
			w.out.Redirections = append(w.out.Redirections, Redirection{Op: "time -o", Text: out.String()})
		}
	}
	w.simpleWrapper(inv, "time", timeSpec, 0)
}

// multicall handles busybox and toybox: the first operand names the applet.
func (w *walker) multicall(inv invocation, base string) {
	args := inv.args[1:]
	if len(args) == 0 || !args[0].lit || strings.HasPrefix(args[0].val, "-") {
		if len(args) > 0 && !args[0].lit {
			w.unknown(args[0].text, base+" applet is not a fixed string")
		}
		w.program(inv) // --list, --install, --help
		return
	}
	w.wrapperProgram(inv)
	applet := args[0]
	applet.val = baseName(applet.val)
	w.exec(inv.inner(append([]arg{applet}, args[1:]...), base))
}

func hasSlash(name string) bool {
	return strings.ContainsRune(name, '/') || filepath.Separator != '/' && strings.ContainsRune(name, filepath.Separator)
}

// baseName is the command name a wrapper is recognised by: the last path
// element, without a Windows ".exe".
func baseName(name string) string {
	b := name
	if i := strings.LastIndexAny(b, `/\`); i >= 0 {
		b = b[i+1:]
	}
	if len(b) > 4 && strings.EqualFold(b[len(b)-4:], ".exe") {
		b = b[:len(b)-4]
	}
	return b
}

func joinArgs(args []arg) string {
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = a.text
	}
	return strings.Join(s, " ")
}

// joinLiteral joins fixed words with spaces, as eval and watch do.
func joinLiteral(args []arg) (string, bool) {
	s := make([]string, len(args))
	for i, a := range args {
		if !a.lit {
			return "", false
		}
		s[i] = a.val
	}
	return strings.Join(s, " "), true
}

func shorten(s string) string {
	const n = 200
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
