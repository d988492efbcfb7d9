package policy

import (
	"path"
	"slices"
	"strings"
)

// commandWords finds the command a simple command really runs: it skips
// leading VAR=value assignments and wrappers that run another command
// (sudo, env, nice, nohup, timeout, xargs, …), strips a leading backslash
// and any directory from the name, and returns the name in lower case with
// its arguments.
func commandWords(words []string) (string, []string) {
	i := 0
	for i < len(words) {
		w := words[i]
		if isAssignment(w) {
			i++
			continue
		}
		name := baseName(w)
		takesValue, ok := wrappers[name]
		if !ok {
			return name, words[i+1:]
		}
		i++
		for i < len(words) && strings.HasPrefix(words[i], "-") && len(words[i]) > 1 {
			flag := words[i]
			i++
			if flag == "--" {
				break
			}
			if slices.Contains(takesValue, flag) {
				i++
			}
		}
		for name == "env" && i < len(words) && isAssignment(words[i]) {
			i++
		}
		if (name == "timeout" || name == "taskset") && i < len(words) {
			i++ // the duration or CPU mask
		}
	}
	return "", nil
}

// wrappers run the command that follows them; the value lists the flags
// that take a separate argument.
var wrappers = map[string][]string{
	"sudo":    {"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "--user", "--group", "--chdir"},
	"doas":    {"-u", "-C"},
	"env":     {"-u", "-C", "--unset", "--chdir"},
	"nice":    {"-n", "--adjustment"},
	"ionice":  {"-c", "-n", "-p", "--class", "--classdata"},
	"timeout": {"-s", "-k", "--signal", "--kill-after"},
	"taskset": {},
	"stdbuf":  {"-i", "-o", "-e"},
	"xargs":   {"-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a", "--max-args", "--max-procs", "--delimiter", "--arg-file"},
	"exec":    {"-a"},
	"nohup":   {}, "command": {}, "builtin": {}, "time": {}, "setsid": {}, "busybox": {},
	"{": {}, "!": {}, "then": {}, "do": {}, "else": {}, "elif": {}, "if": {}, "while": {}, "until": {},
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

func baseName(w string) string {
	w = strings.TrimPrefix(w, `\`)
	if i := strings.LastIndexByte(w, '/'); i >= 0 && i < len(w)-1 {
		w = w[i+1:]
	}
	return strings.ToLower(w)
}

// writeTarget describes a file a command writes that must not be written
// lightly: anything under /etc, or a disk device.
func writeTarget(t string) string {
	if underEtc(t) {
		return "writes to " + t
	}
	if rawDevice(t) {
		return "writes to device " + t
	}
	return ""
}

// underEtc reports whether an absolute path is /etc or below it (also
// macOS's /private/etc).
func underEtc(t string) bool {
	if !strings.HasPrefix(t, "/") {
		return false
	}
	c := path.Clean(t)
	for _, etc := range []string{"/etc", "/private/etc"} {
		if c == etc || strings.HasPrefix(c, etc+"/") {
			return true
		}
	}
	return false
}

// rawDevice reports whether t is a device node other than the harmless ones
// (null, zero, tty, the std streams, fd/N, pts/N, shm).
func rawDevice(t string) bool {
	if !strings.HasPrefix(t, "/dev/") {
		return false
	}
	dev := strings.TrimPrefix(path.Clean(t), "/dev/")
	if slices.Contains([]string{"null", "zero", "full", "random", "urandom", "stdin", "stdout", "stderr", "tty", "ptmx", "console"}, dev) {
		return false
	}
	for _, dir := range []string{"fd/", "pts/", "shm/", "mqueue/"} {
		if strings.HasPrefix(dev, dir) {
			return false
		}
	}
	return dev != "" && dev != "/dev"
}

// etcWriteDanger flags commands that write or remove files under /etc (or a
// device, for tee and shred) through their arguments.
func etcWriteDanger(name string, args []string) string {
	var operands []string
	dest, inPlace := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "-t" || a == "--target-directory") && i+1 < len(args):
			dest = args[i+1]
			i++
		case strings.HasPrefix(a, "--target-directory="):
			dest = strings.TrimPrefix(a, "--target-directory=")
		case name == "sed" && (a == "--in-place" || strings.HasPrefix(a, "--in-place=") ||
			(len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.Contains(a, "i"))):
			inPlace = true
		case len(a) > 1 && a[0] == '-':
		default:
			operands = append(operands, a)
		}
	}
	var check []string
	switch name {
	case "tee", "truncate", "touch", "rm", "rmdir", "unlink", "shred", "chattr", "mkdir", "mv":
		check = operands
	case "cp", "install", "ln", "rsync", "scp":
		if dest == "" && len(operands) > 1 {
			dest = operands[len(operands)-1]
		}
		check = []string{dest}
	case "sed":
		if inPlace {
			check = operands
		}
	}
	if dest != "" && name == "mv" {
		check = append(check, dest)
	}
	for _, t := range check {
		if underEtc(t) {
			return name + " modifies " + t
		}
		if (name == "tee" || name == "shred") && rawDevice(t) {
			return name + " writes to device " + t
		}
	}
	return ""
}
