package execpolicy

import (
	"slices"
	"strings"
)

// Launchers are programs that run other programs but are not transparent:
// they are recorded as programs in their own right (sudo changes who runs,
// find and flock do work of their own), and what they run is analysed too.

var sudoSpec = optSpec{opts: []option{
	{'A', "askpass", argNone}, {'a', "auth-type", argRequired}, {'b', "background", argNone},
	{'B', "bell", argNone}, {'C', "close-from", argRequired}, {'c', "login-class", argRequired},
	{'D', "chdir", argRequired}, {0, "preserve-env", argOptional}, {'E', "", argNone},
	{'e', "edit", argNone}, {'g', "group", argRequired}, {'H', "set-home", argNone},
	{0, "help", argNone}, {'h', "host", argOptional}, {'i', "login", argNone},
	{'K', "remove-timestamp", argNone}, {'k', "reset-timestamp", argNone}, {'l', "list", argNone},
	{'N', "no-update", argNone}, {'n', "non-interactive", argNone}, {'P', "preserve-groups", argNone},
	{'p', "prompt", argRequired}, {'R', "chroot", argRequired}, {'r', "role", argRequired},
	{'S', "stdin", argNone}, {'s', "shell", argNone}, {'T', "command-timeout", argRequired},
	{'t', "type", argRequired}, {'U', "other-user", argRequired}, {'u', "user", argRequired},
	{'V', "version", argNone}, {'v', "validate", argNone},
}}

var doasSpec = optSpec{opts: []option{
	{'C', "", argRequired}, {'L', "", argNone}, {'n', "", argNone}, {'s', "", argNone}, {'u', "", argRequired},
}}

// sudo [options] [command [args]] and doas [options] command [args].
func (w *walker) sudo(inv invocation, base string) {
	spec := sudoSpec
	if base == "doas" {
		spec = doasSpec
	}
	w.program(inv)
	opts, rest, err := spec.parse(inv.args[1:])
	if err != nil {
		w.unknown(joinArgs(inv.args), base+": "+err.Error())
		return
	}
	for _, o := range []string{"edit", "list", "validate", "version", "help", "remove-timestamp", "reset-timestamp", "C", "L"} {
		if opts.has(o) {
			return // runs no command
		}
	}
	if h, ok := opts.get("host"); ok && h.val == "" {
		return // -h alone is help
	}
	if opts.has("chroot") {
		w.unknown(joinArgs(inv.args), base+" runs the command inside another root directory")
		return
	}
	if opts.has("chdir") {
		w.dirChanged = true
	}
	if len(rest) == 0 && !inv.trailing {
		if opts.has("shell") || opts.has("login") || opts.has("s") {
			w.unknown(joinArgs(inv.args), base+" starts an interactive shell")
		}
		return
	}
	w.exec(inv.inner(rest, base))
}

var suSpec = optSpec{permute: true, opts: []option{
	{'c', "command", argRequired}, {0, "session-command", argRequired},
	{'s', "shell", argRequired}, {'g', "group", argRequired}, {'G', "supp-group", argRequired},
	{'w', "whitelist-environment", argRequired}, {'l', "login", argNone},
	{'m', "preserve-environment", argNone}, {'p', "", argNone}, {'f', "fast", argNone},
	{'P', "pty", argNone}, {'u', "user", argRequired}, {'h', "help", argNone}, {'V', "version", argNone},
}}

// su [options] [-] [user [args]]: -c hands a string to the target user's
// shell; runuser -u user command runs the command directly.
func (w *walker) su(inv invocation, base string) {
	w.program(inv)
	opts, operands, err := suSpec.parse(inv.args[1:])
	if err != nil {
		w.unknown(joinArgs(inv.args), base+": "+err.Error())
		return
	}
	if opts.has("help") || opts.has("version") {
		return
	}
	cmd, ok := opts.get("command")
	if !ok {
		cmd, ok = opts.get("session-command")
	}
	switch {
	case ok && !cmd.lit:
		w.unknown(cmd.text, base+" -c command is not a fixed string")
	case ok:
		w.nested(cmd.val, inv, base+" -c", false)
	case base == "runuser" && opts.has("user") && len(operands) > 0:
		w.exec(inv.inner(operands, base))
	default:
		w.unknown(joinArgs(inv.args), base+" starts an interactive shell")
	}
}

var xargsSpec = optSpec{opts: []option{
	{'0', "null", argNone}, {'a', "arg-file", argRequired}, {'d', "delimiter", argRequired},
	{'E', "", argRequired}, {'e', "eof", argOptional}, {'I', "", argRequired},
	{'i', "replace", argOptional}, {'L', "", argRequired}, {0, "max-lines", argOptional},
	{'l', "", argOptional}, {'n', "max-args", argRequired}, {'P', "max-procs", argRequired},
	{'p', "interactive", argNone}, {0, "process-slot-var", argRequired},
	{'r', "no-run-if-empty", argNone}, {'s', "max-chars", argRequired}, {'t', "verbose", argNone},
	{'x', "exit", argNone}, {0, "show-limits", argNone}, {'o', "open-tty", argNone},
	{0, "help", argNone}, {0, "version", argNone},
}}

// xargs [options] [command [initial-arguments]]: the command gets more
// arguments from input, or has them substituted for the replace string.
func (w *walker) xargs(inv invocation) {
	opts, rest, err := xargsSpec.parse(inv.args[1:])
	if err != nil {
		w.program(inv)
		w.unknown(joinArgs(inv.args), "xargs: "+err.Error())
		return
	}
	if opts.has("help") || opts.has("version") {
		w.program(inv)
		return
	}
	if v, ok := opts.get("process-slot-var"); ok {
		w.assign(v.val)
	}
	replace := ""
	if v, ok := opts.get("I"); ok {
		replace = v.val
	}
	if v, ok := opts.get("replace"); ok {
		replace = v.val
		if replace == "" {
			replace = "{}"
		}
	}
	if len(rest) == 0 {
		rest = []arg{literal("echo")}
	}
	w.wrapperProgram(inv)
	in := inv.inner(placeholders(rest, replace), "xargs")
	in.trailing = replace == ""
	in.stdin = nil
	w.exec(in)
}

// placeholders marks the words that contain a string replaced at run time
// (find's {} and xargs -I): their value is not known.
func placeholders(args []arg, mark string) []arg {
	if mark == "" {
		return args
	}
	out := slices.Clone(args)
	for i, a := range out {
		if a.lit && strings.Contains(a.val, mark) {
			out[i].lit = false
			out[i].text = a.val
			out[i].val = a.val
		}
	}
	return out
}

// find runs the commands of -exec, -execdir, -ok and -okdir, with {}
// replaced by file names.
func (w *walker) find(inv invocation) {
	w.program(inv)
	args := inv.args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.lit {
			w.unknown(a.text, "find expression word is not a fixed string and could be -exec")
			continue
		}
		switch a.val {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && !(args[j].lit && (args[j].val == ";" || args[j].val == "+")) {
				if !args[j].lit {
					// An unquoted expansion may split into ";" -exec …
					w.unknown(args[j].text, "find -exec argument is not a fixed string and could end the command")
				}
				j++
			}
			w.exec(invocation{
				args:     placeholders(args[i+1:j], "{}"),
				wrappers: append(slices.Clip(inv.wrappers), "find "+a.val),
				fr:       inv.fr,
			})
			i = j
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(args) {
				w.out.Redirections = append(w.out.Redirections, Redirection{Op: "find " + a.val, Text: args[i+1].String()})
			}
		}
	}
}

var watchSpec = optSpec{opts: []option{
	{'n', "interval", argRequired}, {'d', "differences", argOptional}, {'g', "chgexit", argNone},
	{'t', "no-title", argNone}, {'b', "beep", argNone}, {'e', "errexit", argNone},
	{'c', "color", argNone}, {'C', "no-color", argNone}, {'x', "exec", argNone},
	{'p', "precise", argNone}, {'w', "no-wrap", argNone}, {'q', "equexit", argRequired},
	{'r', "no-rerun", argNone}, {'s', "shotsdir", argRequired},
	{'h', "help", argNone}, {'v', "version", argNone},
}}

// watch runs its arguments, joined, through sh -c, or directly with -x.
func (w *walker) watch(inv invocation) {
	w.program(inv)
	opts, rest, err := watchSpec.parse(inv.args[1:])
	switch {
	case err != nil:
		w.unknown(joinArgs(inv.args), "watch: "+err.Error())
	case opts.has("help") || opts.has("version") || len(rest) == 0:
	case opts.has("exec"):
		w.exec(inv.inner(rest, "watch"))
	default:
		script, ok := joinLiteral(rest)
		if !ok {
			w.unknown(joinArgs(rest), "watch command is not a fixed string")
			return
		}
		w.nested(script, inv, "watch", false)
	}
}

var flockSpec = optSpec{opts: []option{
	{'s', "shared", argNone}, {'x', "exclusive", argNone}, {'e', "", argNone}, {'u', "unlock", argNone},
	{'n', "nonblock", argNone}, {0, "nb", argNone}, {'w', "timeout", argRequired}, {0, "wait", argRequired},
	{'E', "conflict-exit-code", argRequired}, {'o', "close", argNone}, {'F', "no-fork", argNone},
	{'c', "command", argRequired}, {0, "verbose", argNone}, {'h', "help", argNone}, {'V', "version", argNone},
}}

// flock [options] file|dir command [args] | flock [options] file -c cmd.
func (w *walker) flock(inv invocation) {
	w.program(inv)
	opts, rest, err := flockSpec.parse(inv.args[1:])
	if err != nil {
		w.unknown(joinArgs(inv.args), "flock: "+err.Error())
		return
	}
	if c, ok := opts.get("command"); ok {
		if !c.lit {
			w.unknown(c.text, "flock -c command is not a fixed string")
			return
		}
		w.nested(c.val, inv, "flock -c", false)
		return
	}
	if len(rest) > 1 {
		if !rest[0].lit {
			w.unknown(rest[0].text, "flock lock file is not a fixed string and may split into several words")
			return
		}
		w.exec(inv.inner(rest[1:], "flock"))
	}
}

var (
	setsidSpec  = optSpec{opts: []option{{'c', "ctty", argNone}, {'f', "fork", argNone}, {'w', "wait", argNone}, {'h', "help", argNone}, {'V', "version", argNone}}}
	ioniceSpec  = optSpec{opts: []option{{'c', "class", argRequired}, {'n', "classdata", argRequired}, {'p', "pid", argRequired}, {'P', "pgid", argRequired}, {'u', "uid", argRequired}, {'t', "ignore", argNone}, {'h', "help", argNone}, {'V', "version", argNone}}}
	tasksetSpec = optSpec{opts: []option{{'a', "all-tasks", argNone}, {'p', "pid", argNone}, {'c', "cpu-list", argNone}, {'h', "help", argNone}, {'V', "version", argNone}}}
)

// launch handles a launcher of the shape: options, skip fixed operands,
// command. Options in stop mean no command is run.
func (w *walker) launch(inv invocation, label string, spec optSpec, skip int, stop []string) {
	w.program(inv)
	opts, rest, err := spec.parse(inv.args[1:])
	if err != nil {
		w.unknown(joinArgs(inv.args), label+": "+err.Error())
		return
	}
	for _, s := range append(stop, "help", "version") {
		if opts.has(s) {
			return
		}
	}
	if len(rest) <= skip {
		return
	}
	for _, a := range rest[:skip] {
		if !a.lit {
			w.unknown(a.text, label+" operand is not a fixed string and may split into several words")
			return
		}
	}
	w.exec(inv.inner(rest[skip:], label))
}

// sshLocalCommands are ssh_config keywords whose value runs locally.
var sshLocalCommands = []string{"proxycommand", "localcommand", "knownhostscommand", "permitlocalcommand", "match", "include"}

// ssh, scp and sftp run the remote command elsewhere, but some options run
// a local command: -o ProxyCommand=…, -F with a config file, scp -S, sftp -S/-D.
func (w *walker) ssh(inv invocation, base string) {
	w.program(inv)
	valued := "BbcDEeFIiJLlmOoPpQRSWw"
	args := inv.args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.lit {
			w.unknown(a.text, base+" argument is not a fixed string")
			return
		}
		v := a.val
		if v == "--" || !strings.HasPrefix(v, "-") {
			return // destination: the rest runs remotely
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			if strings.IndexByte(valued, c) < 0 {
				continue
			}
			val := v[j+1:]
			if val == "" && i+1 < len(args) {
				i++
				if !args[i].lit {
					w.unknown(args[i].text, base+" option value is not a fixed string")
					return
				}
				val = args[i].val
			}
			switch {
			case c == 'o':
				key := val
				if k := strings.IndexAny(val, "= \t"); k >= 0 {
					key = val[:k]
				}
				key = strings.ToLower(key)
				if slices.Contains(sshLocalCommands, key) {
					w.unknown(val, base+" option "+key+" runs a local command")
				}
			case c == 'F' && val != "/dev/null" && val != "none":
				w.unknown(val, base+" config file may run local commands")
			case c == 'S' && base != "ssh", c == 'D' && base == "sftp":
				w.unknown(val, base+" -"+string(c)+" runs a local program")
			}
			break
		}
	}
}

// rsync -e/--rsh names the remote shell, run locally.
func (w *walker) rsync(inv invocation) {
	w.program(inv)
	args := inv.args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.lit {
			w.unknown(a.text, "rsync argument is not a fixed string and could be -e")
			continue
		}
		v := a.val
		var rsh *arg
		switch {
		case v == "--":
			return
		case strings.HasPrefix(v, "--"):
			name, val, has := strings.Cut(v[2:], "=")
			if len(name) >= 2 && strings.HasPrefix("rsh", name) {
				if has {
					l := literal(val)
					rsh = &l
				} else if i+1 < len(args) {
					i++
					rsh = &args[i]
				}
			}
		case strings.HasPrefix(v, "-"):
			if k := strings.IndexByte(v, 'e'); k > 0 {
				if k+1 < len(v) {
					l := literal(v[k+1:])
					rsh = &l
				} else if i+1 < len(args) {
					i++
					rsh = &args[i]
				}
			}
		}
		if rsh == nil {
			continue
		}
		if !rsh.lit {
			w.unknown(rsh.text, "rsync remote shell is not a fixed string")
			continue
		}
		parts, ok := splitPlain(rsh.val)
		if !ok {
			w.unknown(rsh.val, "rsync remote shell uses quotes, escapes or variables")
			continue
		}
		w.exec(invocation{args: parts, wrappers: append(slices.Clip(inv.wrappers), "rsync -e"), fr: inv.fr})
	}
}
