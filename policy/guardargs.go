package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"

	"github.com/openclaw-go/openclaw/policy/execpolicy"
	"mvdan.cc/sh/v3/syntax"
)

// This file is what a rule's argPattern is matched against: the command
// line of a shell tool, the path of a file tool, the arguments as compact
// JSON for any other tool. For an allow, a shell command line must also
// hold nothing the pattern did not judge (a second command, a
// substitution, a write to a file), because the pattern is usually written
// for its start ("^(ls|cat)\s") and "ls; rm -rf ~" starts that way too.

// fileTools are the tools whose argPattern sees the path they act on.
var fileTools = map[string]bool{"read": true, "write": true, "edit": true}

// argMember is one member of a call's argument object.
type argMember struct {
	key string
	val json.RawMessage
}

// argMembers reads the top level of a call's argument object, keeping
// every member in order, repeats included. Decoders disagree on repeated
// and case-variant keys (Go's picks the last case-insensitive match, a
// JavaScript tool the last exact one), so the guard judges all of them.
// ok is false when args is not one JSON object.
func argMembers(args json.RawMessage) (members []argMember, ok bool) {
	if len(bytes.TrimSpace(args)) == 0 {
		return nil, true
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, isKey := tok.(string)
		var val json.RawMessage
		if !isKey || dec.Decode(&val) != nil {
			return nil, false
		}
		members = append(members, argMember{key, val})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, false
	}
	return members, true
}

// values returns the values of every member whose key is one of names,
// compared as Go's decoder compares them (Unicode case folding).
func values(members []argMember, names ...string) []json.RawMessage {
	var out []json.RawMessage
	for _, m := range members {
		for _, n := range names {
			if strings.EqualFold(m.key, n) {
				out = append(out, m.val)
				break
			}
		}
	}
	return out
}

// strings of raw values that must all be strings (or, with argv, arrays of
// strings joined by spaces); ok is false if one is something else.
func textValues(raws []json.RawMessage, argv bool) (out []string, ok bool) {
	for _, raw := range raws {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			out = append(out, s)
			continue
		}
		if !argv {
			return nil, false
		}
		t, isArgv := commandText(raw)
		if !isArgv {
			return nil, false
		}
		out = append(out, t)
	}
	return out, true
}

// callView is one call as argPatterns see it. It is built once per Check
// and the shell analysis only when a rule needs it.
type callView struct {
	kind    byte // 's' shell tool, 'f' file tool, 'j' anything else
	compact string
	members []argMember
	parsed  bool // the arguments are one JSON object

	// Shell tools: the command lines (one per command member), and,
	// after analyze, the commands they run, each as its words.
	lines    []string
	linesOK  bool
	analyzed bool
	parts    []string
	block    string // why no allow by pattern can stand, "" if one can

	// File tools: the paths as given and cleaned.
	paths   []string
	cleaned []string
	pathsOK bool
}

func newCallView(name string, args json.RawMessage, shell map[string]bool) *callView {
	v := &callView{kind: 'j', compact: compactArgs(args)}
	v.members, v.parsed = argMembers(args)
	switch {
	case shell[name]:
		v.kind = 's'
		v.lines, v.linesOK = textValues(values(v.members, "command", "cmd"), true)
	case fileTools[name]:
		v.kind = 'f'
		v.paths, v.pathsOK = textValues(values(v.members, "path"), false)
		for _, p := range v.paths {
			v.cleaned = append(v.cleaned, path.Clean(p))
		}
	}
	return v
}

// match reports whether re matches the call. For an allow (strict) every
// subject must match and, for a shell tool, the line must run only
// commands that each match on their own; note then says why a pattern
// that matched the line's text still does not decide. A deny or
// require_approval matches if any subject, any command of the line or the
// compact JSON matches: those rules may catch more, never less, which
// also keeps rules written against the JSON before holding.
func (v *callView) match(re *regexp.Regexp, strict bool) (ok bool, note string) {
	if !strict {
		if re.MatchString(v.compact) {
			return true, ""
		}
		subjects := append(append([]string{}, v.lines...), v.paths...)
		subjects = append(subjects, v.cleaned...)
		if v.kind == 's' {
			v.analyze()
			subjects = append(subjects, v.parts...)
		}
		for _, s := range subjects {
			if re.MatchString(s) {
				return true, ""
			}
		}
		return false, ""
	}
	switch v.kind {
	case 's':
		if !v.parsed || !v.linesOK || len(v.lines) == 0 || !allMatch(re, v.lines) {
			return false, ""
		}
		v.analyze()
		for _, p := range v.parts {
			if !re.MatchString(p) {
				return false, fmt.Sprintf("matched the line but not the command %q in it", p)
			}
		}
		if v.block != "" {
			return false, "matched, but " + v.block
		}
		return true, ""
	case 'f':
		return v.parsed && v.pathsOK && len(v.cleaned) > 0 && allMatch(re, v.cleaned), ""
	}
	return re.MatchString(v.compact), ""
}

func allMatch(re *regexp.Regexp, subjects []string) bool {
	for _, s := range subjects {
		if !re.MatchString(s) {
			return false
		}
	}
	return true
}

// analyze splits the shell tool's command lines into the commands they
// run and notes the first thing an allow by pattern cannot vouch for.
func (v *callView) analyze() {
	if v.analyzed {
		return
	}
	v.analyzed = true
	blockf := func(format string, args ...any) {
		if v.block == "" {
			v.block = fmt.Sprintf(format, args...)
		}
	}
	if why := v.callBlock(); why != "" {
		blockf("%s", why)
	}
	for _, line := range v.lines {
		a, err := execpolicy.Analyzer{}.Analyze(line)
		if err != nil {
			blockf("the command line cannot be parsed")
			continue
		}
		switch {
		case len(a.Unknowable) > 0:
			blockf("what it runs cannot be told (%s)", a.Unknowable[0])
		case len(a.Substitutions) > 0:
			blockf("it runs a command substitution (%s)", a.Substitutions[0])
		case len(a.Assignments) > 0:
			blockf("it sets the variable %s", a.Assignments[0])
		}
		for _, r := range a.Redirections {
			if !harmlessRedirect(r) {
				blockf("it redirects to a file or device (%s)", r.Text)
			}
		}
		if len(a.Commands) == 0 {
			blockf("it runs no command")
		}
		for _, c := range a.Commands {
			part, err := quoteWords(c.Argv)
			if err != nil {
				blockf("a word of %q cannot be shown plainly", c.Executable)
				continue
			}
			if c.DynamicArgs {
				blockf("the words of %s expand when it runs (variables, globs, ~)", part)
			}
			v.parts = append(v.parts, part)
		}
	}
}

// callBlock checks the shell tool's arguments besides the command: an
// environment that steers the program, or a request for elevated rights,
// changes what runs without showing in the command line.
func (v *callView) callBlock() string {
	for _, raw := range values(v.members, "env") {
		var env map[string]string
		if json.Unmarshal(raw, &env) != nil {
			return "its env cannot be read"
		}
		if misses := execpolicy.DefaultPolicy().EnvMisses(env); len(misses) > 0 {
			return "it sets " + misses[0]
		}
	}
	for _, raw := range values(v.members, "elevated") {
		var on bool
		if json.Unmarshal(raw, &on) != nil || on {
			return "it asks for elevated rights"
		}
	}
	return ""
}

// quoteWords joins a command's words as a shell would read them back, so
// a word holding a space or a ";" cannot pass for two words.
func quoteWords(argv []string) (string, error) {
	out := make([]string, len(argv))
	for i, w := range argv {
		q, err := syntax.Quote(w, syntax.LangBash)
		if err != nil {
			return "", err
		}
		out[i] = q
	}
	return strings.Join(out, " "), nil
}

// harmlessRedirect reports whether a redirection only reads a file,
// copies a descriptor or discards output. Reading /dev/tcp or /dev/udp
// opens a network connection in bash, so it does not count.
func harmlessRedirect(r execpolicy.Redirection) bool {
	target := strings.TrimLeft(r.Text, "0123456789")
	target = strings.TrimSpace(strings.TrimPrefix(target, r.Op))
	switch r.Op {
	case "<<", "<<-", "<<<":
		return true
	case "<":
		return !strings.HasPrefix(target, "/dev/tcp/") && !strings.HasPrefix(target, "/dev/udp/")
	case ">&", "<&":
		return target == "-" || (target != "" && strings.Trim(target, "0123456789") == "")
	case ">", ">>", "&>", "&>>":
		return target == "/dev/null"
	}
	return false
}
