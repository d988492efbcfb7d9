package execpolicy

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// Security is the exec security level.
type Security string

const (
	SecurityDeny      Security = "deny"      // nothing runs
	SecurityAllowlist Security = "allowlist" // only allowlisted executables and safe bins run
	SecurityFull      Security = "full"      // anything runs
)

// Ask says when a human is asked.
type Ask string

const (
	AskOff    Ask = "off"     // never: allowlist misses are denied
	AskOnMiss Ask = "on-miss" // when the allowlist does not cover the command
	AskAlways Ask = "always"  // for every command
)

// Outcome is the decision on one command.
type Outcome string

const (
	Allow   Outcome = "allow"
	Deny    Outcome = "deny"
	AskUser Outcome = "ask" // an operator must approve (allow-once, allow-always or deny)
)

// Policy is the effective exec approval policy of one agent on one host.
type Policy struct {
	// Security is deny, allowlist or full. Required.
	Security Security
	// Ask is off, on-miss or always. Required.
	Ask Ask
	// AskFallback is what happens when an approval is needed but no
	// approval UI is reachable: deny, allowlist (allow only if nothing
	// missed) or full. Empty means deny.
	AskFallback Security
	// Allowlist entries match resolved executable paths.
	Allowlist []Entry
	// SafeBins are command names (cut, head, …) that run without an
	// allowlist entry when their arguments fit the bin's profile and they
	// resolve into SafeBinTrustedDirs. DefaultSafeBins is the usual list.
	SafeBins []string
	// SafeBinTrustedDirs are the directories safe bins (and wrappers such as
	// env or nice) must resolve into. Nil means DefaultTrustedDirs.
	SafeBinTrustedDirs []string
	// SafeBinProfiles override DefaultProfiles per bin name. A safe bin
	// with no profile accepts no options and no operands.
	SafeBinProfiles map[string]BinProfile
	// SafeEnv are the variables a command line, or the caller's added
	// environment (Analyzer.Env), may set without an approval; a trailing
	// * matches a prefix. Nil means DefaultSafeEnv. A variable of a known
	// hazard family (LD_*, GIT_*, *PAGER, …) is never safe, even if listed.
	SafeEnv []string
	// StrictInlineEval makes interpreters given inline code (python -c,
	// node -e, awk '…') miss even when allowlisted.
	StrictInlineEval bool
}

// Entry is one allowlist entry.
type Entry struct {
	// Pattern is an absolute path or a glob over absolute paths (path.Match
	// syntax, * does not cross /), matched case-insensitively against the
	// fully resolved executable. A "~" must be expanded by the caller;
	// entries that are not absolute (bare command names) never match.
	Pattern string
}

// Defaults from the OpenClaw exec approvals reference.
var (
	DefaultSafeBins    = []string{"cut", "uniq", "head", "tail", "tr", "wc"}
	DefaultTrustedDirs = []string{"/bin", "/usr/bin"}
	// DefaultSafeEnv is OpenClaw's list for shell wrappers (TERM, LANG,
	// LC_*, COLORTERM, NO_COLOR, FORCE_COLOR) and, ours, the variables
	// that only choose a language, time zone, terminal size or
	// non-interactive behaviour: none names a program, a file of code or
	// another host.
	DefaultSafeEnv = []string{"TERM", "LANG", "LANGUAGE", "LC_*", "TZ", "COLORTERM", "NO_COLOR", "FORCE_COLOR",
		"CLICOLOR", "CLICOLOR_FORCE", "COLUMNS", "LINES", "CI"}
)

// DefaultPolicy is allowlist mode asking on a miss, denying when nobody can
// be asked, with the default safe bins and an empty allowlist.
func DefaultPolicy() Policy {
	return Policy{
		Security:    SecurityAllowlist,
		Ask:         AskOnMiss,
		AskFallback: SecurityDeny,
		SafeBins:    slices.Clone(DefaultSafeBins),
	}
}

// Decision is the outcome for one analysed command line.
type Decision struct {
	Outcome Outcome
	// Reason says why, for the approval prompt and the log.
	Reason string
	// Misses lists what the allowlist did not cover (allowlist mode, and
	// for askFallback=allowlist).
	Misses []string
	// Fallback is the outcome to use instead of AskUser when no approval
	// UI is reachable (askFallback); it equals Outcome otherwise.
	Fallback Outcome
}

// Validate reports every problem with p at once.
func (p Policy) Validate() error {
	var errs []error
	switch p.Security {
	case SecurityDeny, SecurityAllowlist, SecurityFull:
	default:
		errs = append(errs, fmt.Errorf("security %q: want deny, allowlist or full", p.Security))
	}
	switch p.Ask {
	case AskOff, AskOnMiss, AskAlways:
	default:
		errs = append(errs, fmt.Errorf("ask %q: want off, on-miss or always", p.Ask))
	}
	switch p.AskFallback {
	case "", SecurityDeny, SecurityAllowlist, SecurityFull:
	default:
		errs = append(errs, fmt.Errorf("askFallback %q: want deny, allowlist or full", p.AskFallback))
	}
	for i, e := range p.Allowlist {
		if !filepath.IsAbs(e.Pattern) {
			errs = append(errs, fmt.Errorf("allowlist[%d] %q: not an absolute path (bare names are ignored)", i, e.Pattern))
		} else if _, err := filepath.Match(e.Pattern, ""); err != nil {
			errs = append(errs, fmt.Errorf("allowlist[%d] %q: %w", i, e.Pattern, err))
		}
	}
	for name, bp := range p.SafeBinProfiles {
		if bp.MaxPositional >= 0 && bp.MinPositional > bp.MaxPositional {
			errs = append(errs, fmt.Errorf("safeBinProfiles.%s: minPositional %d > maxPositional %d", name, bp.MinPositional, bp.MaxPositional))
		}
	}
	return errors.Join(errs...)
}

// Decide applies p to an analysis:
//   - security=deny denies;
//   - security=full allows, except that ask=always asks;
//   - security=allowlist allows when every command is covered (allowlisted,
//     a safe bin, a wrapper from a trusted directory or an inert builtin) and
//     nothing is unknowable, redirected, substituted or set; otherwise it
//     asks (ask=on-miss) or denies (ask=off). ask=always always asks.
//
// An invalid policy denies.
func Decide(p Policy, a Analysis) Decision {
	if err := p.Validate(); err != nil {
		return Decision{Outcome: Deny, Reason: "invalid exec policy: " + err.Error(), Fallback: Deny}
	}
	d := p.decide(a)
	d.Fallback = d.Outcome
	if d.Outcome == AskUser {
		d.Fallback = p.fallback(a)
	}
	return d
}

func (p Policy) decide(a Analysis) Decision {
	switch p.Security {
	case SecurityDeny:
		return Decision{Outcome: Deny, Reason: "exec security is deny"}
	case SecurityFull:
		if p.Ask == AskAlways {
			return Decision{Outcome: AskUser, Reason: "ask=always"}
		}
		return Decision{Outcome: Allow, Reason: "exec security is full"}
	}
	misses := p.Misses(a)
	switch {
	case p.Ask == AskAlways:
		return Decision{Outcome: AskUser, Reason: "ask=always", Misses: misses}
	case len(misses) == 0:
		return Decision{Outcome: Allow, Reason: "every command is allowlisted or a safe bin"}
	case p.Ask == AskOnMiss:
		return Decision{Outcome: AskUser, Reason: "allowlist miss: " + misses[0], Misses: misses}
	}
	return Decision{Outcome: Deny, Reason: "allowlist miss: " + misses[0], Misses: misses}
}

func (p Policy) fallback(a Analysis) Outcome {
	switch p.AskFallback {
	case SecurityFull:
		return Allow
	case SecurityAllowlist:
		if len(p.Misses(a)) == 0 {
			return Allow
		}
	}
	return Deny
}

// Misses lists everything in a that the allowlist, the safe bins and the
// safe environment do not cover. An empty list means allowlist mode allows.
func (p Policy) Misses(a Analysis) []string {
	var misses []string
	for _, u := range a.Unknowable {
		misses = append(misses, "cannot tell what runs: "+u.String())
	}
	for _, r := range a.Redirections {
		misses = append(misses, "redirection "+r.Text)
	}
	for _, s := range a.Substitutions {
		misses = append(misses, "substitution "+s)
	}
	for _, name := range a.Assignments {
		if miss, why := p.envMiss(name, nil); miss {
			misses = append(misses, envMissText("sets variable", name, why))
		}
	}
	misses = append(misses, p.EnvMisses(a.Env)...)
	for _, c := range a.Commands {
		if why := p.commandMiss(c); why != "" {
			misses = append(misses, why)
		}
	}
	return misses
}

// commandMiss says why c is not covered, or returns "".
func (p Policy) commandMiss(c Command) string {
	if c.Builtin {
		if inertBuiltin(c) {
			return ""
		}
		return fmt.Sprintf("shell builtin %q needs approval", strings.Join(c.Argv, " "))
	}
	if c.Resolved == "" {
		return fmt.Sprintf("%s: executable not found", c.Executable)
	}
	if c.InlineCode && p.StrictInlineEval {
		return fmt.Sprintf("%s (%s) runs inline code", c.Executable, c.Resolved)
	}
	if p.allowlisted(c.Resolved) {
		return ""
	}
	if c.Wrapper && p.trusted(c.Resolved) {
		return ""
	}
	ok, why := p.safeBin(c)
	if ok {
		return ""
	}
	return fmt.Sprintf("%s (%s) is not allowlisted%s", c.Executable, c.Resolved, why)
}

func (p Policy) allowlisted(resolved string) bool {
	for _, e := range p.Allowlist {
		if matchPath(e.Pattern, resolved) {
			return true
		}
	}
	return false
}

// matchPath matches an allowlist pattern against a resolved path, ignoring
// case.
func matchPath(pattern, path string) bool {
	if !filepath.IsAbs(pattern) {
		return false
	}
	pattern, path = strings.ToLower(pattern), strings.ToLower(path)
	if !strings.ContainsAny(pattern, `*?[\`) {
		return filepath.Clean(pattern) == path
	}
	ok, err := filepath.Match(pattern, path)
	return err == nil && ok
}

func (p Policy) trusted(resolved string) bool {
	dirs := p.SafeBinTrustedDirs
	if dirs == nil {
		dirs = DefaultTrustedDirs
	}
	dir := filepath.Dir(resolved)
	for _, d := range dirs {
		if filepath.Clean(d) == dir {
			return true
		}
	}
	return false
}

func (p Policy) safeEnv(name string) bool {
	list := p.SafeEnv
	if list == nil {
		list = DefaultSafeEnv
	}
	for _, s := range list {
		if prefix, ok := strings.CutSuffix(s, "*"); ok && strings.HasPrefix(name, prefix) || s == name {
			return true
		}
	}
	return false
}

// Evaluate analyses command with an and decides it under p. A command that
// cannot be analysed is denied, unless security is full, where it is
// treated like any other command; the analysis error is returned for the
// log either way.
func Evaluate(p Policy, an Analyzer, command string) (Decision, Analysis, error) {
	a, err := an.Analyze(command)
	if err != nil {
		if p.Security == SecurityFull {
			return Decide(p, Analysis{Unknowable: []Unknown{{Text: shorten(command), Reason: err.Error()}}, Env: maps.Clone(an.Env)}), a, err
		}
		return Decision{Outcome: Deny, Reason: err.Error(), Fallback: Deny}, a, err
	}
	return Decide(p, a), a, nil
}
