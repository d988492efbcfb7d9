package execpolicy

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The environment a caller gives a command (exec's env argument,
// system.run's env) decides what an allowlisted program does as much as
// its arguments: GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor
// GIT_CONFIG_VALUE_0=<command> makes `git status` run the command, and so
// do GIT_SSH_COMMAND, GIT_PAGER, PAGER, LD_PRELOAD and BASH_ENV
// (GHSA-j425-whc4-4jgc). Such variables are judged like assignments in
// the command line: by an allowlist of names (Policy.SafeEnv), never by a
// list of known-bad ones, since no such list is ever complete. The
// hazards below only explain a miss and overrule a SafeEnv entry that is
// too broad.

// envHazard is a family of variables that make programs run code, read
// configuration from elsewhere or talk to other hosts.
type envHazard struct {
	pattern string // path.Match pattern over the upper-case name
	why     string
}

var envHazards = []envHazard{
	{"PATH", "it changes which program every command name runs"},
	{"LD_*", "the dynamic loader loads code from it"},
	{"DYLD_*", "the dynamic loader loads code from it"},
	{"GCONV_PATH", "glibc loads character-set modules (code) from it"},
	{"GLIBC_TUNABLES", "it changes how the C library behaves"},
	{"BASH_ENV", "bash runs the file it names first"},
	{"ENV", "sh runs the file it names first"},
	{"BASH_FUNC_*", "it defines shell functions that replace commands"},
	{"SHELLOPTS", "it sets shell options"},
	{"BASHOPTS", "it sets shell options"},
	{"PS4", "the shell expands it, running command substitutions, when tracing"},
	{"PROMPT_COMMAND", "the shell runs it as a command"},
	{"IFS", "it changes how the shell splits words"},
	{"CDPATH", "it changes where cd goes"},
	{"ZDOTDIR", "it moves zsh's startup files"},
	{"SHELL", "it names the shell programs start"},
	{"HOME", "it moves every program's configuration (~/.gitconfig, ~/.ssh/config, …)"},
	{"XDG_*", "it moves programs' configuration"},
	{"GIT_*", "it steers git: configuration (GIT_CONFIG_* can set core.fsmonitor, core.sshCommand, …), ssh, pager, editor, exec path"},
	{"SSH_*", "it steers ssh"},
	{"*ASKPASS", "it names a program run to ask for a password"},
	{"*PAGER", "it names a program run to page output"},
	{"LESS*", "less runs commands it names (LESSOPEN, LESS=+!…)"},
	{"EDITOR", "it names a program run to edit"},
	{"VISUAL", "it names a program run to edit"},
	{"*_EDITOR", "it names a program run to edit"},
	{"*_PROXY", "it routes network traffic through another host"},
	{"NPM_CONFIG_*", "it configures npm (scripts, registry, prefix)"},
	{"NODE_*", "node loads code or options from it"},
	{"PYTHON*", "python loads code from it"},
	{"PERL*", "perl loads code from it"},
	{"RUBY*", "ruby loads code from it"},
	{"*JAVA_*OPTIONS", "the JVM loads agents and options from it"},
}

// refusedEnv are the variables no approval can make acceptable: they
// change which program the analysed command line starts, or make the
// shell that runs it execute a file first, so what a person approves
// would not be what runs. OpenClaw refuses PATH and the loader's
// variables on host execution the same way.
var refusedEnv = []string{"PATH", "LD_*", "DYLD_*", "BASH_ENV", "ENV"}

var envNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// CheckEnv refuses a variable that a caller may never set, approval or
// not: a name that is not a portable variable name, PATH, the dynamic
// loader's LD_* and DYLD_*, BASH_ENV and ENV (compared ignoring case,
// as Windows does), or a value holding a NUL byte. The error wraps
// ErrEnvRefused.
func CheckEnv(name, value string) error {
	if !envNamePattern().MatchString(name) {
		return fmt.Errorf("%w: %q is not a valid variable name", ErrEnvRefused, name)
	}
	upper := strings.ToUpper(name)
	for _, p := range refusedEnv {
		if ok, _ := path.Match(p, upper); ok {
			return fmt.Errorf("%w: %s may not be set (it changes which program runs)", ErrEnvRefused, name)
		}
	}
	if strings.IndexByte(value, 0) >= 0 {
		return fmt.Errorf("%w: %s holds a NUL byte", ErrEnvRefused, name)
	}
	return nil
}

// envHazardOf says why name is dangerous, or returns "".
func envHazardOf(name string) string {
	upper := strings.ToUpper(name)
	for _, h := range envHazards {
		if ok, _ := path.Match(h.pattern, upper); ok {
			return h.why
		}
	}
	return ""
}

// noPager reports whether name=value only turns paging off, which
// OpenClaw accepts for exec: GIT_PAGER or PAGER set to "" or "cat".
func noPager(name, value string) bool {
	return (name == "GIT_PAGER" || name == "PAGER") && (value == "" || value == "cat")
}

// envMiss reports whether setting name (to value, when known) needs
// approval, and the hazard that explains it ("" for a name that is only
// not known to be safe). A hazard is never safe, whatever SafeEnv says.
func (p Policy) envMiss(name string, value *string) (miss bool, why string) {
	if value != nil && noPager(name, *value) {
		return false, ""
	}
	if why := envHazardOf(name); why != "" {
		return true, why
	}
	return !p.safeEnv(name), ""
}

// envMissText renders one miss: what set the variable, its name, why.
func envMissText(setBy, name, why string) string {
	if why == "" {
		return setBy + " " + name + ", not a known-safe variable"
	}
	return setBy + " " + name + ": " + why
}

// EnvMisses lists, by name, the variables of env that need approval: all
// but those in Policy.SafeEnv (and GIT_PAGER or PAGER set to "" or
// "cat"). A name matching a known hazard (loader, shell start-up, git,
// ssh, pager, editor, proxy, language runtime variables) always misses.
func (p Policy) EnvMisses(env map[string]string) []string {
	var misses []string
	for _, name := range slices.Sorted(maps.Keys(env)) {
		v := env[name]
		if miss, why := p.envMiss(name, &v); miss {
			misses = append(misses, envMissText("environment sets", name, why))
		}
	}
	return misses
}
