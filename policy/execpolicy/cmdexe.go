package execpolicy

import (
	"fmt"
	"strings"
)

// cmdLine analyses a Windows cmd.exe command line. Only a single plain
// command is understood: words separated by blanks, with double quotes
// grouping. Every character cmd.exe treats specially is unknowable,
// including % and ! (variable expansion, even inside quotes) and & | < > ^ ( )
// outside quotes (CVE-2026-28391).
func (w *walker) cmdLine(command string) {
	var (
		args    []arg
		cur     strings.Builder
		quoted  bool
		started bool
		seen    = map[byte]bool{}
	)
	bad := func(c byte) {
		if !seen[c] {
			seen[c] = true
			w.unknown(command, fmt.Sprintf("cmd.exe metacharacter %q", c))
		}
	}
	flush := func() {
		if started {
			args = append(args, literal(cur.String()))
		}
		cur.Reset()
		started = false
	}
	for i := 0; i < len(command); i++ {
		c := command[i]
		switch {
		case c == '\\' && i+1 < len(command) && command[i+1] == '"':
			bad('\\') // the C runtime reads \" as a quote character
		case c == '"':
			quoted = !quoted
			started = true
		case c == '%' || c == '!' || c == '\n' || c == '\r':
			bad(c)
		case !quoted && strings.IndexByte("&|<>^()", c) >= 0:
			bad(c)
		case !quoted && (c == ' ' || c == '\t'):
			flush()
			continue
		}
		if c != '"' {
			cur.WriteByte(c)
			started = true
		}
	}
	if quoted {
		w.unknown(command, "unterminated quote")
	}
	flush()
	if len(args) == 0 {
		return
	}
	fr := &frame{src: command}
	if b := strings.ToLower(baseName(args[0].val)); b == "cmd" {
		w.program(invocation{args: args, fr: fr})
		w.unknown(command, "nested cmd.exe is not analysed")
		return
	}
	w.exec(invocation{args: args, fr: fr})
}
