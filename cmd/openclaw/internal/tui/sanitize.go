package tui

import (
	"strings"
	"unicode/utf8"
)

// Sanitize makes text from the gateway (model output, tool arguments and
// results, approval reasons, session labels) inert before it reaches the
// terminal. A prompt-injected model or a hostile tool result could
// otherwise write the clipboard (OSC 52), retitle the window, move the
// cursor to forge the screen, or hide text with bidi overrides. Escape
// sequences (CSI, OSC, DCS, SOS, PM, APC, in their 7-bit and 8-bit forms)
// are removed whole; any other control character is shown in caret
// notation (^G) so the operator sees that something was there. Newlines
// stay, tabs become spaces and invalid UTF-8 becomes U+FFFD.
func Sanitize(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune('\uFFFD')
			i++
			continue
		case r == 0x1b: // ESC: a 7-bit sequence
			i = skipEscape(s, i+1)
			continue
		case r == 0x9b: // 8-bit CSI
			i = skipCSI(s, i+size)
			continue
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // 8-bit OSC, DCS, SOS, PM, APC
			i = skipString(s, i+size)
			continue
		case r == '\n':
			b.WriteByte('\n')
		case r == '\t':
			b.WriteString("    ")
		case r == '\r':
			// A lone carriage return would let later text overwrite what
			// came before on the same line.
		case r < 0x20 || r == 0x7f:
			b.WriteByte('^')
			b.WriteByte(byte(r) ^ 0x40)
		case r >= 0x80 && r <= 0x9f:
			b.WriteRune('\uFFFD')
		case isBidiControl(r):
			// Reordering controls can make shown text differ from what
			// runs (as in an approval's command line).
			b.WriteRune('\uFFFD')
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isPlain reports whether s is printable ASCII plus newlines, which needs
// no work.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c == 0x7f || (c < 0x20 && c != '\n') {
			return false
		}
	}
	return true
}

func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

// skipEscape returns the index after the escape sequence whose ESC was
// just before i.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_':
		return skipString(s, i+1)
	}
	// ESC followed by intermediates (0x20-0x2f) then one final byte.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipCSI skips a control sequence's parameters and intermediates up to
// and including its final byte. A sequence cut short by a byte that
// cannot be in it ends there, so that byte is judged on its own.
func skipCSI(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c >= 0x20 && c <= 0x3f:
			i++
		case c >= 0x40 && c <= 0x7e:
			return i + 1
		default:
			return i
		}
	}
	return i
}

// skipString skips an OSC/DCS/SOS/PM/APC body up to its terminator: BEL,
// ESC \ or the 8-bit ST. An unterminated string ends at the end of its
// line, so one stray introducer cannot hide the rest of an answer.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == '\n':
			return i
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i + 1
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + len("\u009c")
		}
		i++
	}
	return i
}
