package execpolicy

import (
	"slices"
	"strings"
)

// git runs commands it finds in configuration (core.sshCommand, core.pager,
// aliases starting with "!", filter drivers, …), in options of some
// subcommands (rebase --exec, submodule foreach, --upload-pack, …) and as
// external subcommands (git foo runs git-foo). Configuration given on the
// command line is analysed; configuration already on disk belongs to the
// operator and is trusted like the git binary itself.

var gitGlobalSpec = optSpec{opts: []option{
	{'c', "", argRequired}, {0, "config-env", argRequired}, {'C', "", argRequired},
	{0, "exec-path", argOptional}, {0, "git-dir", argRequired}, {0, "work-tree", argRequired},
	{0, "namespace", argRequired}, {0, "super-prefix", argRequired}, {0, "list-cmds", argRequired},
	{0, "attr-source", argRequired}, {'p', "paginate", argNone}, {'P', "no-pager", argNone},
	{0, "bare", argNone}, {0, "no-replace-objects", argNone}, {0, "no-lazy-fetch", argNone},
	{0, "no-optional-locks", argNone}, {0, "no-advice", argNone}, {0, "literal-pathspecs", argNone},
	{0, "glob-pathspecs", argNone}, {0, "noglob-pathspecs", argNone}, {0, "icase-pathspecs", argNone},
	{0, "html-path", argNone}, {0, "man-path", argNone}, {0, "info-path", argNone},
	{0, "version", argNone}, {0, "help", argNone}, {'v', "", argNone}, {'h', "", argNone},
}}

func (w *walker) git(inv invocation) {
	w.program(inv)
	opts, rest, err := gitGlobalSpec.parse(inv.args[1:])
	if err != nil {
		w.unknown(joinArgs(inv.args), "git: "+err.Error())
		return
	}
	for _, o := range opts {
		switch o.name {
		case "c":
			w.gitConfigValue(o.value, inv)
		case "config-env":
			w.unknown(o.value.String(), "git --config-env takes configuration from the environment")
		case "exec-path":
			if o.has {
				w.unknown(o.value.String(), "git --exec-path runs git commands from another directory")
			}
		}
	}
	if len(rest) == 0 {
		return
	}
	sub, args := rest[0], rest[1:]
	if !sub.lit {
		w.unknown(sub.text, "git subcommand is not a fixed string")
		return
	}
	label := "git " + sub.val
	switch sub.val {
	case "config":
		w.gitConfigCommand(args)
	case "submodule":
		w.gitForeach(args, inv)
	case "rebase":
		w.gitShellOptions(args, inv, label, map[string]string{"exec": "x"})
	case "difftool", "mergetool":
		w.gitShellOptions(args, inv, label, map[string]string{"extcmd": "x"})
	case "clone", "ls-remote":
		w.gitShellOptions(args, inv, label, map[string]string{"upload-pack": "u"})
	case "fetch", "pull", "fetch-pack":
		w.gitShellOptions(args, inv, label, map[string]string{"upload-pack": ""})
	case "push", "send-pack":
		w.gitShellOptions(args, inv, label, map[string]string{"receive-pack": "", "exec": ""})
	case "archive":
		w.gitShellOptions(args, inv, label, map[string]string{"exec": ""})
	case "grep":
		w.gitShellOptions(args, inv, label, map[string]string{"open-files-in-pager": "O"})
	case "bisect":
		if len(args) > 0 && args[0].lit && args[0].val == "run" {
			w.exec(inv.inner(args[1:], "git bisect run"))
		}
	case "filter-branch", "send-email":
		w.unknown(joinArgs(inv.args), label+" runs shell commands given in its options")
	default:
		if !slices.Contains(gitSubcommands, sub.val) {
			// git foo runs git-foo from the exec path or PATH.
			w.exec(inv.inner(append([]arg{literal("git-" + sub.val)}, args...), "git"))
		}
	}
}

// gitSubcommands are the subcommands shipped with git that run no command
// given on the command line.
var gitSubcommands = []string{
	"add", "am", "annotate", "apply", "backfill", "blame", "branch", "bundle", "cat-file",
	"check-attr", "check-ignore", "check-mailmap", "check-ref-format", "checkout",
	"checkout-index", "cherry", "cherry-pick", "clean", "column", "commit", "commit-graph",
	"commit-tree", "count-objects", "credential", "describe", "diff", "diff-files", "diff-index",
	"diff-tree", "fast-export", "fast-import", "fmt-merge-msg", "for-each-ref", "format-patch",
	"fsck", "gc", "get-tar-commit-id", "hash-object", "help", "index-pack", "init", "init-db",
	"interpret-trailers", "log", "ls-files", "ls-tree", "mailinfo", "mailsplit", "maintenance",
	"merge", "merge-base", "merge-file", "merge-tree", "mktag", "mktree", "multi-pack-index",
	"mv", "name-rev", "notes", "pack-objects", "pack-refs", "prune", "prune-packed", "range-diff",
	"read-tree", "reflog", "refs", "remote", "repack", "replace", "replay", "rerere", "reset",
	"restore", "rev-list", "rev-parse", "revert", "rm", "shortlog", "show", "show-branch",
	"show-index", "show-ref", "sparse-checkout", "stash", "status", "stripspace", "switch",
	"symbolic-ref", "tag", "unpack-file", "unpack-objects", "update-index", "update-ref",
	"update-server-info", "var", "verify-commit", "verify-pack", "verify-tag", "version",
	"whatchanged", "worktree", "write-tree",
}

// gitShellOptions analyses the values of options that git runs as shell
// commands. long maps each such long option to its short letter ("" if
// none). git accepts unambiguous abbreviations of long options, so any
// prefix is taken to mean the option.
func (w *walker) gitShellOptions(args []arg, inv invocation, label string, long map[string]string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.lit {
			w.unknown(a.text, label+" argument is not a fixed string and could be an option that runs commands")
			continue
		}
		v := a.val
		if v == "--" {
			return
		}
		var val *arg
		var opt string
		switch {
		case strings.HasPrefix(v, "--"):
			name, value, has := strings.Cut(v[2:], "=")
			for l := range long {
				if name == "" || !strings.HasPrefix(l, name) {
					continue
				}
				opt = "--" + l
				switch {
				case has:
					lv := literal(value)
					val = &lv
				case l == "open-files-in-pager":
					// optional value; none means the configured pager
				case i+1 < len(args):
					i++
					val = &args[i]
				}
				break
			}
		case strings.HasPrefix(v, "-") && len(v) >= 2:
			for l, s := range long {
				if s == "" {
					continue
				}
				// Short options may be clustered: -ix cmd is -i -x cmd.
				p := strings.IndexByte(v[1:], s[0]) + 1
				if p == 0 {
					continue
				}
				opt = "--" + l
				switch {
				case len(v) > p+1:
					lv := literal(v[p+1:])
					val = &lv
				case s == "O":
				case i+1 < len(args):
					i++
					val = &args[i]
				}
			}
		}
		if val == nil {
			continue
		}
		if !val.lit {
			w.unknown(val.text, label+" "+opt+" is not a fixed string")
			continue
		}
		w.nested(val.val, inv, label+" "+opt, false)
	}
}

// gitForeach handles git submodule [--quiet] foreach [--recursive] <command>.
func (w *walker) gitForeach(args []arg, inv invocation) {
	for i, a := range args {
		if !a.lit {
			w.unknown(a.text, "git submodule argument is not a fixed string and could be foreach")
			return
		}
		if a.val != "foreach" {
			continue
		}
		rest := args[i+1:]
		for len(rest) > 0 && rest[0].lit && strings.HasPrefix(rest[0].val, "-") {
			rest = rest[1:]
		}
		script, ok := joinLiteral(rest)
		if !ok {
			w.unknown(joinArgs(rest), "git submodule foreach command is not a fixed string")
			return
		}
		w.nested(script, inv, "git submodule foreach", false)
		return
	}
}

// gitConfigValue analyses one -c key=value.
func (w *walker) gitConfigValue(kv arg, inv invocation) {
	if !kv.lit {
		w.unknown(kv.text, "git -c value is not a fixed string")
		return
	}
	key, value, _ := strings.Cut(kv.val, "=")
	switch gitConfigKind(key, value) {
	case gitSafe:
	case gitShell:
		w.nested(strings.TrimPrefix(value, "!"), inv, "git -c "+strings.ToLower(key), false)
	default:
		w.unknown(kv.val, "git -c "+strings.ToLower(key)+" may run commands")
	}
}

// gitConfigCommand flags git config writing a key that is not known to be
// harmless: the command it holds would run on a later git invocation.
func (w *walker) gitConfigCommand(args []arg) {
	var positional []string
	read, write := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.lit {
			w.unknown(a.text, "git config argument is not a fixed string")
			return
		}
		v := a.val
		if !strings.HasPrefix(v, "-") {
			positional = append(positional, v)
			continue
		}
		name, value, has := strings.Cut(v, "=")
		switch name {
		case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "--unset",
			"--unset-all", "--remove-section", "--rename-section", "--get-color", "--get-colorbool", "-e", "--edit":
			read = true
		case "--add", "--replace-all":
			write = true
		case "-f", "--file", "--blob", "--type", "--default", "--comment", "--value":
			if !has && i+1 < len(args) {
				i++
				value = args[i].String()
			}
			if name == "-f" || name == "--file" {
				w.out.Redirections = append(w.out.Redirections, Redirection{Op: "git config --file", Text: value})
			}
		}
	}
	key := ""
	switch {
	case len(positional) == 0:
		return
	case positional[0] == "set" && len(positional) > 1:
		key = positional[1]
	case slices.Contains([]string{"get", "list", "unset", "remove-section", "rename-section", "edit"}, positional[0]):
		return
	case !read && (write || len(positional) >= 2):
		key = positional[0]
	}
	if key != "" && gitConfigKind(key, "") != gitSafe {
		w.unknown(key, "git config stores "+strings.ToLower(key)+", which may run commands later")
	}
}

type gitKind uint8

const (
	gitUnknown gitKind = iota
	gitSafe            // cannot run anything
	gitShell           // the value is a shell command
)

var gitSafeKeys = []string{
	"user.name", "user.email", "core.quotepath", "core.autocrlf", "core.safecrlf", "core.eol",
	"core.abbrev", "init.defaultbranch", "pull.rebase", "pull.ff", "push.default",
	"push.autosetupremote", "fetch.prune", "merge.conflictstyle", "diff.algorithm",
	"diff.renames", "log.date", "column.ui", "gc.auto", "maintenance.auto", "protocol.version",
	"commit.verbose", "status.short", "status.branch",
}

// gitConfigKind classifies a configuration key (and, for aliases and
// credential helpers, its value).
func gitConfigKind(key, value string) gitKind {
	k := strings.ToLower(key)
	parts := strings.Split(k, ".")
	if len(parts) < 2 {
		return gitUnknown
	}
	section, name := parts[0], parts[len(parts)-1]
	switch {
	case slices.Contains(gitSafeKeys, k), section == "color" || section == "advice" || section == "i18n":
		return gitSafe
	case section == "alias" || k == "credential.helper" || section == "credential" && name == "helper":
		if strings.HasPrefix(value, "!") {
			return gitShell
		}
		return gitUnknown
	case slices.Contains([]string{"core.sshcommand", "core.pager", "core.editor", "sequence.editor",
		"diff.external", "gpg.program", "core.askpass", "core.gitproxy", "uploadpack.packobjectshook"}, k),
		section == "pager",
		section == "diff" && (name == "textconv" || name == "command"),
		(section == "difftool" || section == "mergetool" || section == "browser") && name == "cmd",
		section == "merge" && name == "driver",
		section == "filter" && (name == "clean" || name == "smudge" || name == "process"),
		section == "gpg" && name == "program",
		section == "remote" && (name == "uploadpack" || name == "receivepack"):
		return gitShell
	}
	return gitUnknown
}
