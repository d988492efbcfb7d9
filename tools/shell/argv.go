package shell

import "strings"

// shellArgv is the argv that runs command through the platform's shell:
// `sh -c` on Unix, `cmd.exe /D /S /C` on Windows (/D skips AutoRun
// commands from the registry, which would run before every command;
// /S makes cmd strip exactly the outer quotes of what follows /C, so the
// command keeps its own quotes). goos is a GOOS value, a parameter so the
// choice is testable on any platform.
func shellArgv(goos, command string) []string {
	if goos == "windows" {
		return []string{"cmd.exe", "/D", "/S", "/C", command}
	}
	return []string{"/bin/sh", "-c", command}
}

// cmdLine is the Windows command line for a cmd.exe argv from
// shellArgv: the switches, then the command in one pair of quotes, left
// as it is inside them. os/exec would escape the command's own quotes
// with backslashes, as C programs parse arguments, which cmd.exe does not
// understand; /S makes cmd drop exactly the outer pair.
func cmdLine(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	last := len(argv) - 1
	return strings.Join(argv[:last], " ") + ` "` + argv[last] + `"`
}
