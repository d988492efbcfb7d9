package policy

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Limits on what DangerousCommand inspects; past them the command itself
// is reported, so a guard asks instead of guessing.
const (
	maxInspectLen   = 64 << 10
	maxInspectDepth = 8
)

// DangerousCommand reports why a shell command line is dangerous, or ""
// when it finds nothing it knows: recursive deletes of / (and ~, system
// directories, the working directory), find -delete, a download piped into a
// shell, mkfs, dd or redirections onto a disk device, fork bombs, recursive
// chmod/chown of /, writes under /etc, shutdown and kill -1. It reads the
// line with a small shell lexer (quotes, pipes, sudo/env/timeout wrappers,
// sh -c and $(…) are followed), so "echo rm -rf /" and "rm -rf ./build" do
// not count. It is a heuristic: it catches the usual forms, not every
// obfuscation.
func DangerousCommand(cmd string) string {
	return dangerIn(cmd, 0)
}

var (
	funcDef = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`([A-Za-z_:.][A-Za-z0-9_:.-]*)\s*\(\s*\)\s*\{([^}]*)\}`)
	})
	perlBomb  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`fork\s*while\s*fork`) })
	spaceRuns = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s+`) })
)

func dangerIn(src string, depth int) string {
	switch {
	case len(src) > maxInspectLen:
		return "command is too long to inspect"
	case depth > maxInspectDepth:
		return "command nests too deeply to inspect"
	case perlBomb().MatchString(src):
		return "fork bomb"
	}
	bare := unquoted(src)
	if strings.Contains(bare, "--no-preserve-root") {
		return "rm --no-preserve-root"
	}
	for _, m := range funcDef().FindAllStringSubmatch(bare, -1) {
		name, body := m[1], spaceRuns().ReplaceAllString(m[2], "")
		if strings.Contains(body, name+"|"+name) && strings.Contains(body, "&") {
			return "fork bomb"
		}
	}
	cmds := lexShell(src)
	for i, c := range cmds {
		if why := commandDanger(cmds, i, depth); why != "" {
			return why
		}
		for _, s := range c.substs {
			if why := dangerIn(s, depth+1); why != "" {
				return why
			}
		}
	}
	return ""
}

// unquoted blanks out quoted text, so patterns that only matter when the
// shell runs them (a fork bomb, --no-preserve-root) are not found inside an
// argument; sh -c and eval scripts are inspected on their own.
func unquoted(src string) string {
	b := []byte(src)
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '\'', '"':
			q := b[i]
			for i++; i < len(b) && b[i] != q; i++ {
				if q == '"' && b[i] == '\\' && i+1 < len(b) {
					b[i] = ' '
					i++
				}
				b[i] = ' '
			}
		}
	}
	return string(b)
}

var shells = []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh"}

// commandDanger checks cmds[i].
func commandDanger(cmds []shellCmd, i, depth int) string {
	c := cmds[i]
	for _, t := range c.redirects {
		if why := writeTarget(t); why != "" {
			return why
		}
	}
	name, args := commandWords(c.words)
	switch {
	case name == "":
		return ""
	case slices.Contains(shells, name):
		if runsDownload(c) {
			return name + " runs a downloaded script"
		}
		if script, ok := shellScript(args); ok {
			return dangerIn(script, depth+1)
		}
	case name == "eval":
		return dangerIn(strings.Join(args, " "), depth+1)
	case name == "source" || name == ".":
		if runsDownload(c) {
			return name + " runs a downloaded script"
		}
	case name == "curl" || name == "wget" || name == "fetch":
		for j := i; j < len(cmds)-1 && cmds[j].pipeTo; j++ {
			next, nargs := commandWords(cmds[j+1].words)
			if slices.Contains(shells, next) || (isInterpreter(next) && (len(nargs) == 0 || nargs[0] == "-")) {
				return fmt.Sprintf("pipes a download (%s) into %s", name, next)
			}
		}
	case name == "rm":
		if why := rmDanger(args); why != "" {
			return why
		}
	case name == "find":
		return findDanger(args)
	case strings.HasPrefix(name, "mkfs") || name == "mke2fs" || name == "wipefs":
		return "formats a filesystem (" + name + ")"
	case name == "dd":
		for _, a := range args {
			if t, ok := strings.CutPrefix(a, "of="); ok {
				if why := writeTarget(t); why != "" {
					return "dd " + why
				}
			}
		}
	case name == "chmod" || name == "chown" || name == "chgrp":
		return modeDanger(name, args)
	case name == "shutdown" || name == "reboot" || name == "halt" || name == "poweroff":
		return name + " stops the host"
	case name == "systemctl" && len(args) > 0 && slices.Contains([]string{"poweroff", "reboot", "halt"}, args[0]):
		return "systemctl " + args[0] + " stops the host"
	case name == "kill" && len(args) > 0 && args[len(args)-1] == "-1":
		return "kill -1 signals every process"
	}
	return etcWriteDanger(name, args)
}

func isInterpreter(name string) bool {
	return slices.Contains([]string{"python", "python3", "perl", "ruby", "node"}, name)
}

// runsDownload reports whether a command substitution of c starts with a
// download (bash <(curl …), sh -c "$(wget -O- …)").
func runsDownload(c shellCmd) bool {
	for _, s := range c.substs {
		for _, inner := range lexShell(s) {
			if n, _ := commandWords(inner.words); n == "curl" || n == "wget" || n == "fetch" {
				return true
			}
		}
	}
	return false
}

// shellScript returns the script of "sh -c script" (or -ec, -xc, …).
func shellScript(args []string) (string, bool) {
	for i, a := range args {
		if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
			return "", false
		}
		if strings.Contains(a[1:], "c") && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

func rmDanger(args []string) string {
	recursive, opts := false, true
	var targets []string
	for _, a := range args {
		switch {
		case opts && a == "--":
			opts = false
		case opts && a == "--recursive":
			recursive = true
		case opts && strings.HasPrefix(a, "--"):
		case opts && len(a) > 1 && a[0] == '-':
			recursive = recursive || strings.ContainsAny(a[1:], "rR")
		default:
			targets = append(targets, a)
		}
	}
	if !recursive {
		return ""
	}
	for _, t := range targets {
		if why := criticalTarget(t, true); why != "" {
			return "recursive delete of " + why
		}
	}
	return ""
}

func findDanger(args []string) string {
	for i, a := range args {
		if a == "-delete" {
			return "find -delete"
		}
		if (a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir") && i+1 < len(args) {
			if n := baseName(args[i+1]); n == "rm" || n == "shred" || n == "unlink" || n == "rmdir" {
				return "find " + a + " " + n
			}
		}
	}
	return ""
}

func modeDanger(name string, args []string) string {
	recursive, reference := false, false
	var operands []string
	for _, a := range args {
		switch {
		case a == "--recursive":
			recursive = true
		case strings.HasPrefix(a, "--reference"):
			reference = true
		case strings.HasPrefix(a, "--"):
		case len(a) > 1 && a[0] == '-' && (name != "chmod" || strings.Trim(a[1:], "Rcfv") == ""):
			recursive = recursive || strings.Contains(a, "R")
		default:
			operands = append(operands, a)
		}
	}
	if !reference && len(operands) > 0 {
		operands = operands[1:] // the mode or the owner
	}
	for _, t := range operands {
		if underEtc(t) {
			return name + " changes " + t
		}
		why := criticalTarget(t, false)
		switch {
		case why != "" && recursive:
			return fmt.Sprintf("%s -R of %s", name, why)
		case why != "" && path.Clean(t) == "/":
			return fmt.Sprintf("%s of %s", name, why)
		}
	}
	return ""
}

// criticalTarget describes a path whose (recursive) removal or permission
// change wrecks the host: /, a top-level system directory, the home
// directory, and (when cwd is true) the working directory itself.
func criticalTarget(t string, cwd bool) string {
	switch t {
	case ".", "./", "..", "../", "*", "./*", "../*", ".*", "./.*":
		if cwd {
			return fmt.Sprintf("%q (the working directory)", t)
		}
		return ""
	}
	for _, home := range []string{"~", "$HOME", "${HOME}"} {
		if rest, ok := strings.CutPrefix(t, home); ok && strings.Trim(rest, "/.*") == "" {
			return fmt.Sprintf("%q (the home directory)", t)
		}
	}
	if !strings.HasPrefix(t, "/") {
		return ""
	}
	c := path.Clean(strings.TrimSuffix(t, "*"))
	if c == "/" {
		return fmt.Sprintf("%q (the root directory)", t)
	}
	if path.Dir(c) == "/" && slices.Contains(systemDirs, c[1:]) {
		return fmt.Sprintf("%q (a system directory)", t)
	}
	return ""
}

var systemDirs = []string{
	"bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "mnt", "media",
	"opt", "proc", "root", "run", "sbin", "snap", "srv", "sys", "usr", "var",
	"Applications", "Library", "System", "Users", "Volumes", "private",
}
