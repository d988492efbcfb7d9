package policy

import "strings"

// This file is a small, forgiving shell lexer: enough of POSIX sh to find
// the simple commands of a line, their words with quotes removed, their
// output redirections and the command substitutions inside them. It never
// fails; input it does not understand becomes plain words. It is used only
// to look for dangerous commands, where a miss leaves the guard's decision
// as it was.

// shellCmd is one simple command.
type shellCmd struct {
	words     []string // quotes removed; substitutions kept as written
	redirects []string // targets of output redirections (>, >>, &>, <>)
	substs    []string // inner text of $(…), `…`, <(…) and >(…)
	pipeTo    bool     // its output feeds the next command
}

type shellLexer struct {
	src     string
	i       int
	cmds    []shellCmd
	cur     shellCmd
	word    strings.Builder
	inWord  bool
	next    byte // what the next word is: 0 word, 'r' redirect target, 's' skipped (input file, heredoc tag)
	fdDigit bool // the word so far is only digits (a possible fd before > or <)
}

func lexShell(src string) []shellCmd {
	lx := &shellLexer{src: src}
	for lx.i < len(src) {
		lx.step()
	}
	lx.endCmd(false)
	return lx.cmds
}

func (lx *shellLexer) peek(off int) byte {
	if lx.i+off < len(lx.src) {
		return lx.src[lx.i+off]
	}
	return 0
}

func (lx *shellLexer) step() {
	c := lx.src[lx.i]
	switch {
	case c == ' ' || c == '\t' || c == '\r':
		lx.endWord()
		lx.i++
	case c == '\n' || c == ';' || c == '(' || c == ')':
		lx.endCmd(false)
		lx.i++
	case c == '&':
		switch lx.peek(1) {
		case '&':
			lx.endCmd(false)
			lx.i += 2
		case '>':
			lx.endWord()
			lx.i += 2
			if lx.peek(0) == '>' {
				lx.i++
			}
			lx.next = 'r'
		default:
			lx.endCmd(false)
			lx.i++
		}
	case c == '|':
		if lx.peek(1) == '|' {
			lx.endCmd(false)
			lx.i += 2
			return
		}
		lx.endCmd(true)
		lx.i++
		if lx.peek(0) == '&' {
			lx.i++
		}
	case c == '>' || c == '<':
		lx.redirect(c)
	case c == '\'':
		lx.inWord = true
		end := strings.IndexByte(lx.src[lx.i+1:], '\'')
		if end < 0 {
			lx.add(lx.src[lx.i+1:])
			lx.i = len(lx.src)
			return
		}
		lx.add(lx.src[lx.i+1 : lx.i+1+end])
		lx.i += end + 2
	case c == '"':
		lx.inWord = true
		lx.i++
		lx.doubleQuoted()
	case c == '\\':
		switch {
		case lx.peek(1) == '\n':
			lx.i += 2
		case lx.i+1 < len(lx.src):
			lx.add(lx.src[lx.i+1 : lx.i+2])
			lx.i += 2
		default:
			lx.i++
		}
	case c == '$' && lx.peek(1) == '(':
		lx.i++
		lx.substitution("$")
	case c == '`':
		lx.backquoted()
	case c == '#' && !lx.inWord:
		if end := strings.IndexByte(lx.src[lx.i:], '\n'); end >= 0 {
			lx.i += end
		} else {
			lx.i = len(lx.src)
		}
	default:
		lx.fdDigit = (!lx.inWord || lx.fdDigit) && c >= '0' && c <= '9'
		lx.inWord = true
		lx.word.WriteByte(c)
		lx.i++
	}
}

func (lx *shellLexer) add(s string) {
	lx.inWord = true
	lx.fdDigit = false
	lx.word.WriteString(s)
}

// redirect handles > >> >| >& &> < << <<< <& <> and process substitution.
func (lx *shellLexer) redirect(c byte) {
	if lx.fdDigit { // "2>" — the digits are an fd, not a word
		lx.word.Reset()
		lx.inWord, lx.fdDigit = false, false
	}
	lx.endWord()
	lx.i++
	n := lx.peek(0)
	switch {
	case n == '(':
		lx.substitution(string(c))
		lx.endWord()
		return
	case c == '>' && (n == '>' || n == '|'):
		lx.i++
	case n == '&':
		lx.i++
		for d := lx.peek(0); (d >= '0' && d <= '9') || d == '-'; d = lx.peek(0) {
			lx.i++
		}
		if c == '<' || lx.peek(0) == ' ' || lx.peek(0) == 0 {
			return // an fd duplication, no file
		}
	case c == '<' && n == '<':
		lx.i++
		if lx.peek(0) == '-' {
			lx.i++
		}
		lx.next = 's'
		return
	case c == '<' && n == '>':
		lx.i++
	case c == '<':
		lx.next = 's'
		return
	}
	lx.next = 'r'
}

func (lx *shellLexer) doubleQuoted() {
	for lx.i < len(lx.src) {
		c := lx.src[lx.i]
		switch {
		case c == '"':
			lx.i++
			return
		case c == '\\' && lx.i+1 < len(lx.src) && strings.IndexByte("\"\\$`\n", lx.src[lx.i+1]) >= 0:
			if lx.src[lx.i+1] != '\n' {
				lx.add(lx.src[lx.i+1 : lx.i+2])
			}
			lx.i += 2
		case c == '$' && lx.peek(1) == '(':
			lx.i++
			lx.substitution("$")
		case c == '`':
			lx.backquoted()
		default:
			lx.add(lx.src[lx.i : lx.i+1])
			lx.i++
		}
	}
}

// substitution reads a parenthesized body starting at '(' (after the
// introducer, "$", "<" or ">"), records it and keeps it in the word.
func (lx *shellLexer) substitution(intro string) {
	start := lx.i + 1
	depth, quote := 0, byte(0)
	for lx.i < len(lx.src) {
		c := lx.src[lx.i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				lx.i++
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '\\':
			lx.i++
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				body := lx.src[start:lx.i]
				lx.cur.substs = append(lx.cur.substs, body)
				lx.add(intro + "(" + body + ")")
				lx.i++
				return
			}
		}
		lx.i++
	}
	body := lx.src[min(start, len(lx.src)):]
	lx.cur.substs = append(lx.cur.substs, body)
	lx.add(intro + "(" + body)
}

func (lx *shellLexer) backquoted() {
	start := lx.i + 1
	end := start
	for end < len(lx.src) && lx.src[end] != '`' {
		if lx.src[end] == '\\' {
			end++
		}
		end++
	}
	end = min(end, len(lx.src))
	body := lx.src[start:end]
	lx.cur.substs = append(lx.cur.substs, body)
	lx.add("`" + body + "`")
	lx.i = min(end+1, len(lx.src))
}

func (lx *shellLexer) endWord() {
	if !lx.inWord {
		return
	}
	w := lx.word.String()
	lx.word.Reset()
	lx.inWord, lx.fdDigit = false, false
	switch lx.next {
	case 'r':
		lx.cur.redirects = append(lx.cur.redirects, w)
	case 's':
	default:
		lx.cur.words = append(lx.cur.words, w)
	}
	lx.next = 0
}

func (lx *shellLexer) endCmd(pipe bool) {
	lx.endWord()
	lx.next = 0
	if len(lx.cur.words) > 0 || len(lx.cur.redirects) > 0 || len(lx.cur.substs) > 0 {
		lx.cur.pipeTo = pipe
		lx.cmds = append(lx.cmds, lx.cur)
	}
	lx.cur = shellCmd{}
}
