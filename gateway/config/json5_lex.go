package config

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// space copies whitespace and comments to the output. JSON5 whitespace that
// HuJSON does not accept (vertical tab, form feed, no-break space, BOM,
// other Unicode space separators, U+2028 and U+2029) becomes as many ASCII
// spaces as it had bytes, so offsets stay aligned.
func (p *json5Parser) space() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; c {
		case ' ', '\t', '\n', '\r':
			end := p.pos + 1
			for end < len(p.src) && isJSONSpace(p.src[end]) {
				end++
			}
			p.copyThrough(end)
		case '\v', '\f':
			p.emit(p.pos, p.pos+1, []byte(" "))
			p.pos++
		case '/':
			if err := p.comment(); err != nil {
				return err
			}
		default:
			r, n := utf8.DecodeRune(p.src[p.pos:])
			if !isJSON5Space(r) {
				return nil
			}
			p.emit(p.pos, p.pos+n, bytes.Repeat([]byte(" "), n))
			p.pos += n
		}
	}
	return nil
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isJSON5Space(r rune) bool {
	switch r {
	case '\u00a0', '\ufeff', '\u2028', '\u2029':
		return true
	}
	return r > utf8.RuneSelf && unicode.Is(unicode.Zs, r)
}

func isLineTerminator(r rune) bool {
	return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029'
}

// comment copies one // or /* */ comment. A line comment always leaves the
// output ending in '\n', as HuJSON requires, even at the end of input or when
// JSON5 ended it with '\r', U+2028 or U+2029.
func (p *json5Parser) comment() error {
	start := p.pos
	if start+1 >= len(p.src) || (p.src[start+1] != '/' && p.src[start+1] != '*') {
		return p.errorf(start, "unexpected '/'; comments start with // or /*")
	}
	if p.src[start+1] == '*' {
		i := bytes.Index(p.src[start+2:], []byte("*/"))
		if i < 0 {
			return p.errorf(start, "unterminated /* comment")
		}
		p.copyThrough(start + 2 + i + 2)
		return nil
	}
	end := start + 2
	for end < len(p.src) {
		r, n := utf8.DecodeRune(p.src[end:])
		if isLineTerminator(r) {
			break
		}
		end += n
	}
	p.copyThrough(end)
	if end == len(p.src) {
		p.emit(end, end, []byte("\n"))
		return nil
	}
	r, n := utf8.DecodeRune(p.src[end:])
	switch {
	case r == '\n':
	case r == '\r' && end+1 < len(p.src) && p.src[end+1] == '\n':
	default: // lone CR, U+2028 or U+2029
		p.emit(end, end+n, append([]byte("\n"), bytes.Repeat([]byte(" "), n-1)...))
		p.pos = end + n
	}
	return nil
}

// stringToken reads a single- or double-quoted JSON5 string and writes it as
// a JSON string.
func (p *json5Parser) stringToken() error {
	start := p.pos
	s, end, err := p.scanString(start)
	if err != nil {
		return err
	}
	p.emit(start, end, appendJSONString(nil, s))
	p.pos = end
	return nil
}

// scanString decodes the JSON5 string starting at the quote at start and
// returns its value and the offset just past the closing quote.
func (p *json5Parser) scanString(start int) (string, int, error) {
	quote := p.src[start]
	var sb strings.Builder
	i := start + 1
	for {
		if i >= len(p.src) {
			return "", 0, p.errorf(start, "unterminated string")
		}
		c := p.src[i]
		switch {
		case c == quote:
			return sb.String(), i + 1, nil
		case c == '\n' || c == '\r':
			return "", 0, p.errorf(i, "line break inside a string; write \\n, or end the line with \\ to continue the string")
		case c == '\\':
			n, err := p.escape(i, &sb)
			if err != nil {
				return "", 0, err
			}
			i += n
		default:
			_, n := utf8.DecodeRune(p.src[i:])
			sb.Write(p.src[i : i+n])
			i += n
		}
	}
}

// escape decodes the escape sequence at src[i] == '\\' into sb and returns
// its length in bytes.
func (p *json5Parser) escape(i int, sb *strings.Builder) (int, error) {
	if i+1 >= len(p.src) {
		return 0, p.errorf(i, "unterminated string")
	}
	r, n := utf8.DecodeRune(p.src[i+1:])
	switch r {
	case 'b':
		sb.WriteByte('\b')
	case 'f':
		sb.WriteByte('\f')
	case 'n':
		sb.WriteByte('\n')
	case 'r':
		sb.WriteByte('\r')
	case '\r': // line continuation; CRLF counts as one line break
		if i+2 < len(p.src) && p.src[i+2] == '\n' {
			return 3, nil
		}
		return 2, nil
	case '\n', '\u2028', '\u2029':
		return 1 + n, nil // line continuation: nothing is added
	case 't':
		sb.WriteByte('\t')
	case 'v':
		sb.WriteByte('\v')
	case '0':
		if i+2 < len(p.src) && isDigit(p.src[i+2]) {
			return 0, p.errorf(i, "octal escapes are not allowed in strings")
		}
		sb.WriteByte(0)
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return 0, p.errorf(i, "octal escapes are not allowed in strings")
	case 'x':
		v, ok := p.hex(i+2, 2)
		if !ok {
			return 0, p.errorf(i, "invalid \\x escape: want two hex digits")
		}
		sb.WriteRune(rune(v))
		return 4, nil
	case 'u':
		r, size, err := p.unicodeEscape(i)
		if err != nil {
			return 0, err
		}
		sb.WriteRune(r)
		return size, nil
	default: // \" \' \\ \/ and any other character stand for themselves
		sb.WriteRune(r)
	}
	return 1 + n, nil
}

// unicodeEscape decodes \uXXXX at src[i], joining a surrogate pair when a
// second escape follows. A lone surrogate becomes U+FFFD.
func (p *json5Parser) unicodeEscape(i int) (rune, int, error) {
	v, ok := p.hex(i+2, 4)
	if !ok {
		return 0, 0, p.errorf(i, "invalid \\u escape: want four hex digits")
	}
	r := rune(v)
	if utf16.IsSurrogate(r) {
		if i+8 <= len(p.src) && p.src[i+6] == '\\' && p.src[i+7] == 'u' {
			if v2, ok := p.hex(i+8, 4); ok {
				if pair := utf16.DecodeRune(r, rune(v2)); pair != utf8.RuneError {
					return pair, 12, nil
				}
			}
		}
		return utf8.RuneError, 6, nil
	}
	return r, 6, nil
}

func (p *json5Parser) hex(at, digits int) (uint32, bool) {
	if at+digits > len(p.src) {
		return 0, false
	}
	var v uint32
	for _, c := range p.src[at : at+digits] {
		switch {
		case isDigit(c):
			v = v<<4 | uint32(c-'0')
		case isHexDigit(c):
			v = v<<4 | uint32(c|0x20-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// scanIdentifier reads an ECMAScript IdentifierName (the form of unquoted
// JSON5 keys) at off, decoding \uXXXX escapes.
func (p *json5Parser) scanIdentifier(off int) (name string, end int, ok bool) {
	var sb strings.Builder
	i := off
	for i < len(p.src) {
		r, n := utf8.DecodeRune(p.src[i:])
		if r == '\\' {
			if i+1 >= len(p.src) || p.src[i+1] != 'u' {
				break
			}
			v, okHex := p.hex(i+2, 4)
			if !okHex {
				break
			}
			r, n = rune(v), 6
		}
		if (i == off && !isIDStart(r)) || (i > off && !isIDPart(r)) {
			break
		}
		sb.WriteRune(r)
		i += n
	}
	if i == off {
		return "", off, false
	}
	return sb.String(), i, true
}

func isIDStart(r rune) bool {
	return r == '$' || r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') ||
		(r > utf8.RuneSelf && unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo, unicode.Nl))
}

func isIDPart(r rune) bool {
	return isIDStart(r) || ('0' <= r && r <= '9') || r == '\u200c' || r == '\u200d' ||
		(r > utf8.RuneSelf && unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc))
}

// appendJSONString appends s as a JSON string literal. Only the characters
// JSON requires are escaped, so non-ASCII text stays readable.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xf])
		case r == utf8.RuneError && n == 1:
			b = append(b, `\ufffd`...)
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}
