package execpolicy

import (
	"errors"
	"strings"
	"testing"
)

// TestDecideMatrix covers every security × ask × askFallback combination
// for a command the allowlist covers (hit) and one it does not (miss).
// Columns: security ask askFallback analysis → outcome fallback.
func TestDecideMatrix(t *testing.T) {
	rows := `
deny      off     deny      hit   deny  deny
deny      off     deny      miss  deny  deny
deny      off     allowlist hit   deny  deny
deny      off     allowlist miss  deny  deny
deny      off     full      hit   deny  deny
deny      off     full      miss  deny  deny
deny      on-miss deny      hit   deny  deny
deny      on-miss deny      miss  deny  deny
deny      on-miss allowlist hit   deny  deny
deny      on-miss allowlist miss  deny  deny
deny      on-miss full      hit   deny  deny
deny      on-miss full      miss  deny  deny
deny      always  deny      hit   deny  deny
deny      always  deny      miss  deny  deny
deny      always  allowlist hit   deny  deny
deny      always  allowlist miss  deny  deny
deny      always  full      hit   deny  deny
deny      always  full      miss  deny  deny
allowlist off     deny      hit   allow allow
allowlist off     deny      miss  deny  deny
allowlist off     allowlist hit   allow allow
allowlist off     allowlist miss  deny  deny
allowlist off     full      hit   allow allow
allowlist off     full      miss  deny  deny
allowlist on-miss deny      hit   allow allow
allowlist on-miss deny      miss  ask   deny
allowlist on-miss allowlist hit   allow allow
allowlist on-miss allowlist miss  ask   deny
allowlist on-miss full      hit   allow allow
allowlist on-miss full      miss  ask   allow
allowlist always  deny      hit   ask   deny
allowlist always  deny      miss  ask   deny
allowlist always  allowlist hit   ask   allow
allowlist always  allowlist miss  ask   deny
allowlist always  full      hit   ask   allow
allowlist always  full      miss  ask   allow
full      off     deny      hit   allow allow
full      off     deny      miss  allow allow
full      off     allowlist hit   allow allow
full      off     allowlist miss  allow allow
full      off     full      hit   allow allow
full      off     full      miss  allow allow
full      on-miss deny      hit   allow allow
full      on-miss deny      miss  allow allow
full      on-miss allowlist hit   allow allow
full      on-miss allowlist miss  allow allow
full      on-miss full      hit   allow allow
full      on-miss full      miss  allow allow
full      always  deny      hit   ask   deny
full      always  deny      miss  ask   deny
full      always  allowlist hit   ask   allow
full      always  allowlist miss  ask   deny
full      always  full      hit   ask   allow
full      always  full      miss  ask   allow
`
	an := newFakeFS().analyzer()
	analyses := map[string]Analysis{}
	for name, cmd := range map[string]string{"hit": "ls -l | head -n 3", "miss": "ls; rm -rf /tmp/x"} {
		a, err := an.Analyze(cmd)
		if err != nil {
			t.Fatal(err)
		}
		analyses[name] = a
	}
	n := 0
	for line := range strings.Lines(strings.TrimSpace(rows)) {
		f := strings.Fields(line)
		if len(f) != 6 {
			t.Fatalf("bad row %q", line)
		}
		n++
		t.Run(strings.Join(f[:4], "/"), func(t *testing.T) {
			p := Policy{
				Security:    Security(f[0]),
				Ask:         Ask(f[1]),
				AskFallback: Security(f[2]),
				Allowlist:   []Entry{{"/usr/bin/ls"}},
				SafeBins:    DefaultSafeBins,
			}
			d := Decide(p, analyses[f[3]])
			if d.Outcome != Outcome(f[4]) || d.Fallback != Outcome(f[5]) {
				t.Errorf("Decide = %s, fallback %s (%s); want %s, fallback %s", d.Outcome, d.Fallback, d.Reason, f[4], f[5])
			}
			if f[0] == "allowlist" && f[3] == "miss" && len(d.Misses) == 0 {
				t.Errorf("allowlist miss reported no misses")
			}
		})
	}
	if n != 3*3*3*2 {
		t.Fatalf("matrix has %d rows, want 54", n)
	}
}

func TestDecideInvalidPolicy(t *testing.T) {
	for name, p := range map[string]Policy{
		"zero":             {},
		"bad security":     {Security: "yolo", Ask: AskOff},
		"bad ask":          {Security: SecurityFull, Ask: "sometimes"},
		"bad fallback":     {Security: SecurityFull, Ask: AskOff, AskFallback: "maybe"},
		"relative pattern": {Security: SecurityAllowlist, Ask: AskOff, Allowlist: []Entry{{"ls"}}},
		"bad glob":         {Security: SecurityAllowlist, Ask: AskOff, Allowlist: []Entry{{"/usr/bin/["}}},
		"bad profile":      {Security: SecurityAllowlist, Ask: AskOff, SafeBinProfiles: map[string]BinProfile{"x": {MinPositional: 2, MaxPositional: 1}}},
	} {
		t.Run(name, func(t *testing.T) {
			if p.Validate() == nil {
				t.Errorf("Validate() = nil, want an error")
			}
			if d := Decide(p, Analysis{}); d.Outcome != Deny || d.Fallback != Deny {
				t.Errorf("Decide = %+v, want deny", d)
			}
		})
	}
	if err := DefaultPolicy().Validate(); err != nil {
		t.Errorf("DefaultPolicy().Validate() = %v", err)
	}
}

// TestDeniedOptionAbbreviations checks CVE-2026-28363 for every profile:
// every prefix of every denied long option is refused, with or without a
// value, unless it is itself an allowed option.
func TestDeniedOptionAbbreviations(t *testing.T) {
	for bin, prof := range DefaultProfiles {
		allowed := map[string]bool{}
		for _, f := range append(append([]string{}, prof.Flags...), prof.ValueFlags...) {
			allowed[f] = true
		}
		for _, d := range prof.DeniedFlags {
			if !strings.HasPrefix(d, "--") {
				if err := prof.Check(operandsFor(prof, d)); err == nil {
					t.Errorf("%s %s accepted", bin, d)
				}
				continue
			}
			for k := 3; k <= len(d); k++ {
				abbr := d[:k]
				if allowed[abbr] {
					continue
				}
				for _, args := range [][]string{{abbr}, {abbr + "=x"}, {abbr, "x"}} {
					if err := prof.Check(operandsFor(prof, args...)); err == nil {
						t.Errorf("%s %q accepted, want refused as an abbreviation of %s", bin, args, d)
					}
				}
			}
		}
	}
}

// operandsFor adds the operands a profile requires, so that only the
// option decides.
func operandsFor(p BinProfile, args ...string) []string {
	for range p.MinPositional {
		args = append(args, "x")
	}
	return args
}

func TestBinProfileCheck(t *testing.T) {
	for _, tc := range []struct {
		bin  string
		args string
		ok   bool
	}{
		{"head", "", true},
		{"head", "-n 5", true},
		{"head", "-n5", true},
		{"head", "--lines=5", true},
		{"head", "--lines 5", true},
		{"head", "-5", true},
		{"head", "-", true},
		{"head", "-n", false},
		{"head", "--lines", false},
		{"head", "--quiet=1", false},
		{"head", "-x", false},
		{"head", "file", false},
		{"head", "-- -n", false},
		{"tail", "-qn 5", true},
		{"tail", "-nf", true}, // "f" is -n's value
		{"tail", "-fn 5", false},
		{"tail", "--follow=name", false},
		{"tail", "-5f", false},
		{"tr", "a b", true},
		{"tr", "-d a", true},
		{"tr", "", false},
		{"tr", "a b c", false},
		{"sort", "-t, -k2,2n", true},
		{"sort", "-nro out", false},
		{"sort", "--output=x", false},
		{"sort", "--comp=x", false},
		{"grep", "-c foo", true},
		{"grep", "foo bar", false},
		{"grep", "--rec foo", false},
		{"cut", "-c 1-5", true},
		{"uniq", "-c", true},
		{"wc", "-lw", true},
	} {
		err := DefaultProfiles[tc.bin].Check(strings.Fields(tc.args))
		if (err == nil) != tc.ok {
			t.Errorf("%s %s: Check = %v, want ok %v", tc.bin, tc.args, err, tc.ok)
		}
	}
	var zero BinProfile
	if zero.Check(nil) != nil || zero.Check([]string{"-a"}) == nil || zero.Check([]string{"x"}) == nil {
		t.Errorf("a safe bin without a profile must accept only no arguments")
	}
}

func TestStrictInlineEval(t *testing.T) {
	an := newFakeFS().analyzer()
	p := corpusPolicy()
	for _, tc := range []struct {
		cmd    string
		strict Outcome
	}{
		{`python3 -c 'print(1)'`, Deny},
		{`python3`, Deny},
		{`python3 script.py`, Allow},
		{`python3 -m http.server`, Allow},
		{`awk '{print $1}'`, Deny},
		{`awk -f prog.awk`, Allow},
	} {
		a, err := an.Analyze(tc.cmd)
		if err != nil {
			t.Fatal(err)
		}
		if d := Decide(p, a); d.Outcome != Allow {
			t.Errorf("%q without strictInlineEval: %s (%q)", tc.cmd, d.Outcome, d.Misses)
		}
		p.StrictInlineEval = true
		if d := Decide(p, a); d.Outcome != tc.strict {
			t.Errorf("%q with strictInlineEval: %s, want %s (%q)", tc.cmd, d.Outcome, tc.strict, d.Misses)
		}
		p.StrictInlineEval = false
	}
}

func TestAnalyzeErrors(t *testing.T) {
	an := newFakeFS().analyzer()
	for name, cmd := range map[string]string{
		"unterminated quote": `echo 'x`,
		"unterminated subst": `echo $(ls`,
		"bad syntax":         `ls &&`,
		"nul byte":           "ls\x00; rm x",
		"too long":           strings.Repeat("a", MaxCommandBytes+1),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := an.Analyze(cmd)
			if !errors.Is(err, ErrUnparsable) {
				t.Fatalf("Analyze = %v, want ErrUnparsable", err)
			}
			for _, p := range []Policy{corpusPolicy(), {Security: SecurityAllowlist, Ask: AskOnMiss}} {
				if d, _, _ := Evaluate(p, an, cmd); d.Outcome != Deny || d.Fallback != Deny {
					t.Errorf("Evaluate under %s/%s = %s, want deny", p.Security, p.Ask, d.Outcome)
				}
			}
			if d, _, _ := Evaluate(Policy{Security: SecurityFull, Ask: AskOff}, an, cmd); d.Outcome != Allow {
				t.Errorf("Evaluate under full = %s, want allow", d.Outcome)
			}
			if d, _, _ := Evaluate(Policy{Security: SecurityFull, Ask: AskAlways}, an, cmd); d.Outcome != AskUser {
				t.Errorf("Evaluate under full/always = %s, want ask", d.Outcome)
			}
		})
	}
}

func TestNestingLimit(t *testing.T) {
	cmd := "rm x"
	for range maxDepth + 2 {
		cmd = "sh -c " + shQuote(cmd)
	}
	a, err := newFakeFS().analyzer().Analyze(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Unknowable) == 0 {
		t.Errorf("nesting beyond %d levels is not reported unknowable", maxDepth)
	}
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestResolveWithoutFunctions(t *testing.T) {
	a, err := Analyzer{}.Analyze("ls | head -n 1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range a.Commands {
		if c.Resolved != "" {
			t.Errorf("%s resolved to %q without LookPath", c.Executable, c.Resolved)
		}
	}
	p := corpusPolicy()
	if d := Decide(p, a); d.Outcome != Deny {
		t.Errorf("unresolved commands decided %s, want deny", d.Outcome)
	}
}
