package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// TestCLITreeHelp walks the built binary's command tree as a user
// exploring it would: every command and subcommand answers --help with
// exit 0 and says how it is used, and a mistyped command is refused with
// the nearest name, with exit 1.
func TestCLITreeHelp(t *testing.T) {
	bin := needOurBin(t)
	t.Parallel()
	env, _, _ := isolatedEnv(t, t.TempDir())
	dir := t.TempDir()
	run := func(args ...string) result { return runCmd(t, env, dir, append([]string{bin}, args...)...) }

	root := run("--help")
	if root.Code != 0 {
		t.Fatalf("openclaw --help:\n%s", root)
	}
	top := commandsIn(root.Stdout)
	if len(top) < 20 {
		t.Fatalf("openclaw --help lists %d commands:\n%s", len(top), root.Stdout)
	}
	for _, name := range top {
		r := run(name, "--help")
		if r.Code != 0 || !strings.Contains(r.Stdout, "Usage") {
			t.Errorf("openclaw %s --help:\n%s", name, r)
			continue
		}
		for _, sub := range commandsIn(r.Stdout) {
			if s := run(name, sub, "--help"); s.Code != 0 || !strings.Contains(s.Stdout+s.Stderr, "Usage") {
				t.Errorf("openclaw %s %s --help:\n%s", name, sub, s)
			}
		}
	}

	typo := run("devcies", "list")
	if typo.Code != 1 || !strings.Contains(typo.Stderr, "openclaw devices") {
		t.Errorf("typo:\n%s", typo)
	}
	comp := run("completion", "bash")
	if comp.Code != 0 || !strings.Contains(comp.Stdout, "__start_openclaw") {
		t.Errorf("completion bash:\n%s", comp)
	}
	// The shell asks the binary what completes; it must offer the
	// subcommands and the flags of a subcommand.
	if c := run("__complete", "devices", ""); c.Code != 0 || !strings.Contains(c.Stdout, "approve\t") {
		t.Errorf("__complete devices:\n%s", c)
	}
	if c := run("__complete", "devices", "list", "--"); c.Code != 0 || !strings.Contains(c.Stdout, "--json\t") {
		t.Errorf("__complete devices list --:\n%s", c)
	}
}

var commandLine = regexp.MustCompile(`^  ([a-z][a-z0-9-]*)\s`)

// commandsIn returns the names under "Available Commands:" of a cobra
// help text, without help and completion themselves.
func commandsIn(help string) []string {
	_, rest, ok := strings.Cut(help, "Available Commands:\n")
	if !ok {
		return nil
	}
	var out []string
	for _, line := range strings.Split(rest, "\n") {
		if strings.TrimSpace(line) == "" {
			break
		}
		if m := commandLine.FindStringSubmatch(line); m != nil && m[1] != "help" {
			out = append(out, m[1])
		}
	}
	return out
}
