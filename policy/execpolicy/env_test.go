package execpolicy

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// envAttacks are GHSA-j425-whc4-4jgc's environment overrides: each one
// makes an allowlisted git (or the shell running it) run a command of the
// caller's choosing.
var envAttacks = []struct {
	name string
	env  map[string]string
	cmd  string // the allowlisted command the variables steer
}{
	{"GIT_CONFIG core.fsmonitor", map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": "touch /tmp/pwned"}, "git status"},
	{"GIT_CONFIG core.pager", map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.pager", "GIT_CONFIG_VALUE_0": "sh -c 'touch /tmp/pwned'"}, "git log"},
	{"GIT_SSH_COMMAND", map[string]string{"GIT_SSH_COMMAND": "touch /tmp/pwned"}, "git fetch"},
	{"GIT_SSH", map[string]string{"GIT_SSH": "/tmp/evil"}, "git fetch"},
	{"GIT_PAGER", map[string]string{"GIT_PAGER": "touch /tmp/pwned"}, "git log"},
	{"PAGER", map[string]string{"PAGER": "touch /tmp/pwned"}, "git log"},
	{"GIT_EDITOR", map[string]string{"GIT_EDITOR": "touch /tmp/pwned"}, "git commit"},
	{"EDITOR", map[string]string{"EDITOR": "touch /tmp/pwned"}, "git commit"},
	{"GIT_EXEC_PATH", map[string]string{"GIT_EXEC_PATH": "/tmp/evil"}, "git status"},
	{"GIT_ASKPASS", map[string]string{"GIT_ASKPASS": "/tmp/evil"}, "git fetch"},
	{"GIT_DIR elsewhere", map[string]string{"GIT_DIR": "/tmp/evil/.git"}, "git status"},
	{"HOME with a hostile gitconfig", map[string]string{"HOME": "/tmp/evil"}, "git status"},
	{"XDG_CONFIG_HOME", map[string]string{"XDG_CONFIG_HOME": "/tmp/evil"}, "git status"},
	{"GIT_PROXY_COMMAND", map[string]string{"GIT_PROXY_COMMAND": "/tmp/evil"}, "git fetch"},
	{"HTTPS_PROXY", map[string]string{"HTTPS_PROXY": "http://evil.example"}, "git fetch"},
	{"lower-case proxy", map[string]string{"https_proxy": "http://evil.example"}, "git fetch"},
	{"LESSOPEN", map[string]string{"LESSOPEN": "|touch /tmp/pwned %s"}, "git log"},
	{"BASH_FUNC", map[string]string{"BASH_FUNC_git": "() { touch /tmp/pwned; }"}, "git status"},
	{"SHELLOPTS and PS4", map[string]string{"SHELLOPTS": "xtrace", "PS4": "$(touch /tmp/pwned)"}, "git status"},
	{"GCONV_PATH", map[string]string{"GCONV_PATH": "/tmp/evil"}, "git status"},
	{"NODE_OPTIONS", map[string]string{"NODE_OPTIONS": "--require /tmp/evil.js"}, "npm i"},
	{"NPM_CONFIG", map[string]string{"NPM_CONFIG_SCRIPT_SHELL": "/tmp/evil"}, "npm i"},
	{"PYTHONSTARTUP", map[string]string{"PYTHONPATH": "/tmp/evil"}, "python3 x.py"},
	{"unknown variable", map[string]string{"FROBNICATE": "1"}, "git status"},
}

// inline renders env as the command line's own prefix assignments, in
// the three spellings a caller could use instead of the env argument.
func inline(env map[string]string, cmd string) []string {
	var words []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		words = append(words, k+"="+"'"+strings.ReplaceAll(env[k], "'", `'\''`)+"'")
	}
	assigns := strings.Join(words, " ")
	return []string{
		assigns + " " + cmd,
		"env " + assigns + " " + cmd,
		"export " + assigns + "; " + cmd,
	}
}

// TestEnvOverridesNeedApproval performs each environment attack against
// an allowlisted git, through the env argument (Analyzer.Env) and through
// the command line's own assignments: every one must ask, and be denied
// where nobody can be asked; without the variables the command is
// allowed, so it is the environment that misses.
func TestEnvOverridesNeedApproval(t *testing.T) {
	p := corpusPolicy()
	p.Ask = AskOnMiss
	p.AskFallback = SecurityAllowlist
	for _, tc := range envAttacks {
		t.Run(tc.name, func(t *testing.T) {
			an := newFakeFS().analyzer()
			if d, _, err := Evaluate(p, an, tc.cmd); err != nil || d.Outcome != Allow {
				t.Fatalf("%q without the environment: %s %v (%v); the test needs an allowed command", tc.cmd, d.Outcome, d.Misses, err)
			}
			an.Env = tc.env
			d, a, err := Evaluate(p, an, tc.cmd)
			if err != nil {
				t.Fatal(err)
			}
			if d.Outcome != AskUser || d.Fallback != Deny {
				t.Errorf("env %v %q: outcome %s fallback %s, want ask and deny", tc.env, tc.cmd, d.Outcome, d.Fallback)
			}
			if !maps.Equal(a.Env, tc.env) {
				t.Errorf("Analysis.Env = %v, want %v", a.Env, tc.env)
			}
			for name := range tc.env {
				if !slices.ContainsFunc(d.Misses, func(m string) bool { return strings.Contains(m, "environment sets "+name) }) {
					t.Errorf("misses %q do not name %s", d.Misses, name)
				}
			}
			for _, line := range inline(tc.env, tc.cmd) {
				d, _, err := Evaluate(p, newFakeFS().analyzer(), line)
				if err != nil {
					t.Fatal(err)
				}
				if d.Outcome != AskUser || d.Fallback != Deny {
					t.Errorf("%q: outcome %s fallback %s, want ask and deny (misses %q)", line, d.Outcome, d.Fallback, d.Misses)
				}
			}
			p := p
			p.Ask = AskOff
			if d, _, _ := Evaluate(p, an, tc.cmd); d.Outcome != Deny {
				t.Errorf("ask=off: outcome %s, want deny", d.Outcome)
			}
		})
	}
}

// TestSafeEnvPasses: the variables that only choose a language, time
// zone or colours, and a pager turned off, run without asking.
func TestSafeEnvPasses(t *testing.T) {
	p := corpusPolicy()
	for _, env := range []map[string]string{
		{"LANG": "C.UTF-8", "LC_ALL": "C", "LANGUAGE": "en", "TZ": "UTC"},
		{"TERM": "dumb", "NO_COLOR": "1", "FORCE_COLOR": "0", "COLORTERM": "truecolor", "CLICOLOR": "0"},
		{"CI": "true", "COLUMNS": "120", "LINES": "40"},
		{"GIT_PAGER": "cat", "PAGER": ""},
	} {
		an := newFakeFS().analyzer()
		an.Env = env
		d, _, err := Evaluate(p, an, "git log")
		if err != nil || d.Outcome != Allow {
			t.Errorf("env %v: %s %q (%v), want allow", env, d.Outcome, d.Misses, err)
		}
	}
}

// TestSafeEnvCannotAdmitHazards: an operator's SafeEnv that is too broad
// still does not let a hazard through; what it lists otherwise passes.
func TestSafeEnvCannotAdmitHazards(t *testing.T) {
	p := corpusPolicy()
	p.SafeEnv = []string{"*", "GIT_*", "MY_SETTING"}
	cases := []struct {
		name string
		miss bool
	}{
		{"GIT_SSH_COMMAND", true}, {"GIT_CONFIG_COUNT", true}, {"PAGER", true}, {"HOME", true}, {"LD_PRELOAD", true},
		{"MY_SETTING", false}, {"ANYTHING", false},
	}
	for _, c := range cases {
		miss, why := p.envMiss(c.name, nil)
		if miss != c.miss {
			t.Errorf("%s: miss %v (%q), want %v", c.name, miss, why, c.miss)
		}
		if c.miss && why == "" {
			t.Errorf("%s: a hazard's miss must say why", c.name)
		}
	}
}

func TestCheckEnv(t *testing.T) {
	cases := []struct {
		name, value string
		refused     bool
	}{
		{"PATH", "/tmp", true}, {"Path", "/tmp", true}, {"LD_PRELOAD", "/x.so", true}, {"ld_library_path", "/x", true},
		{"DYLD_INSERT_LIBRARIES", "/x", true}, {"BASH_ENV", "/x", true}, {"ENV", "/x", true},
		{"", "x", true}, {"A=B", "x", true}, {"BASH_FUNC_ls%%", "() { :; }", true}, {"1X", "x", true}, {"X Y", "x", true},
		{"LANG", "C\x00", true},
		{"GIT_SSH_COMMAND", "x", false}, {"LANG", "C", false}, {"_X1", "", false}, {"ENVIRONMENT", "x", false},
	}
	for _, c := range cases {
		err := CheckEnv(c.name, c.value)
		if (err != nil) != c.refused {
			t.Errorf("CheckEnv(%q, %q) = %v, want refused %v", c.name, c.value, err, c.refused)
		}
		if err != nil && !errors.Is(err, ErrEnvRefused) {
			t.Errorf("CheckEnv(%q): %v does not wrap ErrEnvRefused", c.name, err)
		}
	}
}

// FuzzEnvMisses: whatever the names, a variable is either safe, a miss
// or refused, and nothing outside the safe list passes.
func FuzzEnvMisses(f *testing.F) {
	for _, tc := range envAttacks {
		for k, v := range tc.env {
			f.Add(k, v)
		}
	}
	f.Add("LANG", "C")
	f.Add("LC_ALL", "C")
	f.Add("GIT_PAGER", "cat")
	p := DefaultPolicy()
	f.Fuzz(func(t *testing.T, name, value string) {
		misses := p.EnvMisses(map[string]string{name: value})
		passed := len(misses) == 0
		if passed && !p.safeEnv(name) && !noPager(name, value) {
			t.Fatalf("%q=%q passed without being in the safe list", name, value)
		}
		if passed && envHazardOf(name) != "" && !noPager(name, value) {
			t.Fatalf("hazard %q passed", name)
		}
		_ = fmt.Sprint(CheckEnv(name, value))
	})
}
