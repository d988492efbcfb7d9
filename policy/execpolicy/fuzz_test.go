package execpolicy

import (
	"errors"
	"path"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// fuzzResolver pretends that every plain command name is installed in
// /usr/bin, so that fuzzed inputs reach executables that are not
// allowlisted.
type fuzzResolver struct{}

func (fuzzResolver) lookPath(name string) (string, error) {
	if strings.Contains(name, "/") {
		if path.IsAbs(name) {
			return name, nil
		}
		return "", errors.New("relative")
	}
	if name == "" || strings.ContainsAny(name, " \t\n/\\\x00") {
		return "", errors.New("not found")
	}
	return "/usr/bin/" + name, nil
}

func (fuzzResolver) evalSymlinks(p string) (string, error) {
	p = path.Clean(p)
	if p == "/usr/local/bin/safe" {
		return "/usr/bin/rm", nil
	}
	return p, nil
}

var fuzzAllowlist = []string{"/usr/bin/ls", "/usr/bin/cat", "/usr/bin/git", "/usr/local/bin/safe"}

// wrapperNames are the programs Analyze may mark Wrapper.
var wrapperNames = []string{
	"env", "nice", "nohup", "timeout", "stdbuf", "time", "busybox", "toybox", "xargs",
	"sh", "bash", "dash", "ash", "ksh", "ksh93", "mksh", "lksh", "pdksh", "yash", "posh", "rbash", "hush", "zsh",
}

// FuzzExecAnalyzer checks, for any input: Analyze never panics; every
// command word that is not a fixed string is reported unknowable; and under
// security=allowlist nothing is allowed that runs an executable outside the
// allowlist, the safe bins or the trusted wrappers.
func FuzzExecAnalyzer(f *testing.F) {
	for _, tc := range corpus {
		if tc.dialect == Bash {
			f.Add(tc.cmd)
		}
	}
	var r fuzzResolver
	an := Analyzer{LookPath: r.lookPath, EvalSymlinks: r.evalSymlinks, Dir: "/work"}
	p := DefaultPolicy()
	p.Ask = AskOff
	for _, e := range fuzzAllowlist {
		p.Allowlist = append(p.Allowlist, Entry{e})
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		a, err := an.Analyze(cmd)
		if err != nil {
			if !errors.Is(err, ErrUnparsable) {
				t.Fatalf("Analyze error %v does not wrap ErrUnparsable", err)
			}
			return
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
		if err != nil {
			t.Fatalf("Analyze accepted what the parser rejects: %v", err)
		}
		var calls []*syntax.CallExpr
		syntax.Walk(file, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
				calls = append(calls, c)
			}
			return true
		})

		// Every command word that is not a fixed string is unknowable.
		for _, c := range calls {
			w := c.Args[0]
			if !expands(w) {
				continue
			}
			text := cmd[w.Pos().Offset():w.End().Offset()]
			if !slices.ContainsFunc(a.Unknowable, func(u Unknown) bool { return u.Text == text }) {
				t.Fatalf("command word %q is not reported unknowable: %v", text, a.Unknowable)
			}
		}

		if d := Decide(Policy{Security: SecurityDeny, Ask: AskOff}, a); d.Outcome != Deny {
			t.Fatalf("security=deny decided %s", d.Outcome)
		}
		if d := Decide(Policy{Security: SecurityFull, Ask: AskOff}, a); d.Outcome != Allow {
			t.Fatalf("security=full decided %s", d.Outcome)
		}
		d := Decide(p, a)
		if d.Outcome == AskUser {
			t.Fatalf("ask=off decided ask")
		}
		if d.Outcome != Allow {
			return
		}

		// Allowed: nothing unknowable, redirected, substituted or set...
		if len(a.Unknowable)+len(a.Redirections)+len(a.Substitutions) > 0 {
			t.Fatalf("allowed despite %v %v %v", a.Unknowable, a.Redirections, a.Substitutions)
		}
		for _, name := range a.Assignments {
			if !p.safeEnv(name) {
				t.Fatalf("allowed despite setting %s", name)
			}
		}
		// ...every analysed command is covered...
		for _, c := range a.Commands {
			if !covered(p, c) {
				t.Fatalf("allowed %+v", c)
			}
		}
		// ...and, independently of the unwrapping, every literal command
		// word of the script is a builtin, allowlisted, a safe bin or a
		// wrapper from a trusted directory.
		for _, c := range calls {
			name, ok := plainWord(c.Args[0])
			if !ok || isBuiltin(name) {
				continue
			}
			if strings.Contains(name, "/") && !path.IsAbs(name) {
				name = an.Dir + "/" + name
			}
			found, err := r.lookPath(name)
			if err != nil {
				t.Fatalf("allowed %q, which does not resolve", name)
			}
			resolved, _ := r.evalSymlinks(found)
			base := baseName(name)
			switch {
			case allowlistedFold(resolved) && resolved != "/usr/bin/rm":
			case slices.Contains(p.SafeBins, base) && trustedDir(resolved):
			case slices.Contains(wrapperNames, base) && trustedDir(resolved):
			default:
				t.Fatalf("allowed %q (%s), which is not on the allowlist", name, resolved)
			}
		}
	})
}

// covered restates, without sharing code paths beyond the bin profiles,
// what allowlist mode may allow.
func covered(p Policy, c Command) bool {
	switch {
	case c.Builtin:
		return inertBuiltin(c)
	case c.Resolved == "":
		return false
	case allowlistedFold(c.Resolved):
		return true
	case c.Wrapper && trustedDir(c.Resolved):
		return slices.Contains(wrapperNames, baseName(c.Executable))
	case slices.Contains(p.SafeBins, baseName(c.Executable)):
		return !c.DynamicArgs && !c.InlineCode && trustedDir(c.Resolved) &&
			DefaultProfiles[baseName(c.Executable)].Check(c.Argv[1:]) == nil
	}
	return false
}

// expands reports whether a word holds anything the shell expands, judged
// by its parts alone.
func expands(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
		case *syntax.SglQuoted:
			if p.Dollar {
				return true
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				return true
			}
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return true
				}
			}
		default:
			return true
		}
	}
	return false
}

// plainWord returns the value of a word made only of plain text and single
// quotes.
func plainWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "\\*?[]{}~") {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		default:
			return "", false
		}
	}
	return b.String(), true
}

// allowlistedFold matches like the allowlist: entries ignore case.
func allowlistedFold(resolved string) bool {
	return slices.ContainsFunc(fuzzAllowlist, func(e string) bool { return strings.EqualFold(e, resolved) })
}

func trustedDir(p string) bool { d := path.Dir(p); return d == "/usr/bin" || d == "/bin" }
