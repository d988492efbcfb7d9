package execpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// arg is one word of a command line.
type arg struct {
	val  string // the value after quote removal; meaningful only when lit
	text string // the word as written
	lit  bool   // the word is a fixed string: no expansion, glob, brace or substitution
}

// literal makes an arg from a string that is already a value, such as the
// attached value of an option.
func literal(s string) arg { return arg{val: s, text: s, lit: true} }

func (a arg) String() string {
	if a.lit {
		return a.val
	}
	return a.text
}

// evalWord performs quote removal on w when its value does not depend on
// anything but its own text, and marks it not literal otherwise. Anything the
// shell would expand (parameters, substitutions, arithmetic, globs, brace
// expansion, a leading tilde, $'…' and $"…" strings) makes the word not
// literal: the analyser never guesses what an expansion yields.
func (fr *frame) evalWord(w *syntax.Word) arg {
	a := arg{text: fr.text(w), lit: true}
	var b strings.Builder
	var sc globScan
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && strings.HasPrefix(v, "~") {
				a.lit = false
			}
			if fr.zsh && i == 0 && strings.HasPrefix(v, "=") {
				a.lit = false // zsh's =cmd expands to the path of cmd
			}
			for j := 0; j < len(v); j++ {
				c := v[j]
				if c == '\\' && j+1 < len(v) {
					j++
					if v[j] != '\n' {
						b.WriteByte(v[j])
					}
					continue
				}
				if sc.unquoted(c, fr.zsh) {
					a.lit = false
				}
				b.WriteByte(c)
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				a.lit = false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				a.lit = false
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					a.lit = false
					continue
				}
				b.WriteString(unescapeDouble(l.Value))
			}
		default:
			a.lit = false
		}
	}
	if sc.brace() {
		a.lit = false
	}
	if a.lit {
		a.val = b.String()
	} else {
		a.val = a.text
	}
	return a
}

// globScan notices unquoted characters that make a word a pattern.
type globScan struct {
	openBracket bool // an unquoted [ was seen
	openBrace   bool // an unquoted { was seen
	separator   bool // then an unquoted , or ..
	expands     bool // then an unquoted }: brace expansion
	lastDot     bool
}

// unquoted records c, an unquoted and unescaped byte of a word, and reports
// whether it makes the word a glob on its own.
func (g *globScan) unquoted(c byte, zsh bool) bool {
	dot := g.lastDot
	g.lastDot = c == '.'
	switch c {
	case '*', '?':
		return true
	case '[':
		g.openBracket = true
	case ']':
		return g.openBracket
	case '{':
		g.openBrace = true
	case ',':
		g.separator = g.separator || g.openBrace
	case '.':
		g.separator = g.separator || g.openBrace && dot
	case '}':
		g.expands = g.expands || g.openBrace && g.separator
	case '(', ')', '|', '^', '#', '~', '<', '>':
		return zsh // zsh glob operators and qualifiers, some of which run code
	}
	return false
}

// brace reports whether the word undergoes brace expansion, as {rm,-rf,x}
// and {a..z} do; "{}" and "{x}" are left alone by the shell.
func (g *globScan) brace() bool { return g.expands }

// unescapeDouble removes the backslashes that are special inside double
// quotes: before $, `, ", \ and newline.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				b.WriteByte(s[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeHeredoc removes the backslashes that are special in the body of a
// here-document whose delimiter is not quoted: before $, `, \ and newline.
func unescapeHeredoc(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '\\':
				b.WriteByte(s[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isNumber reports whether an arithmetic operand is a plain integer constant
// (decimal, octal, hex or base#digits), the only operands whose evaluation
// cannot reach an array subscript and so run a command substitution.
func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '#' || c == '_' || c == '@') {
			return false
		}
	}
	return s[0] >= '0' && s[0] <= '9'
}

// splitPlain splits s on blanks if it holds nothing that a shell-like
// splitter would treat specially (quotes, escapes, variables, comments);
// callers treat the other strings as unknowable.
func splitPlain(s string) ([]arg, bool) {
	if strings.ContainsAny(s, "\\'\"$#`\n;&|<>(){}*?[]~") {
		return nil, false
	}
	var out []arg
	for _, f := range strings.Fields(s) {
		out = append(out, literal(f))
	}
	return out, true
}
