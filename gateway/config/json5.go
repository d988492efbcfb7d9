package config

import (
	"fmt"
	"math/big"
	"strconv"
	"unicode/utf8"
)

// maxNesting bounds how deeply objects and arrays may nest, so hostile input
// cannot exhaust the stack of this parser or of hujson's.
const maxNesting = 256

// emptyDocument starts the error for input with no value at all.
const emptyDocument = "the document is empty"

// syntaxError is a JSON5 syntax error at a byte offset of the original text.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

// translation is JSON5 source rewritten as HuJSON (JSON with comments and
// trailing commas), with a map from output offsets back to source offsets.
type translation struct {
	out     []byte
	anchors []anchor // sorted by out and by src
}

// anchor says that output offset out corresponds to source offset src.
// Between two anchors the mapping is linear, clamped to the next anchor.
type anchor struct{ out, src int }

// srcOffset maps an offset in the HuJSON output back to the JSON5 source.
// Every token boundary maps exactly.
func (t *translation) srcOffset(out int) int {
	lo, hi := 0, len(t.anchors)
	for lo < hi {
		mid := (lo + hi) / 2
		if t.anchors[mid].out <= out {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	i := lo - 1
	if i < 0 {
		return out
	}
	a := t.anchors[i]
	s := a.src + (out - a.out)
	if i+1 < len(t.anchors) && s > t.anchors[i+1].src {
		s = t.anchors[i+1].src
	}
	return s
}

// translateJSON5 validates src as one JSON5 value and rewrites it as HuJSON.
// Comments and whitespace are kept byte for byte where HuJSON allows them;
// keys are quoted, single-quoted strings become double-quoted, and JSON5-only
// numbers (hex, leading or trailing point, leading plus) become JSON numbers.
func translateJSON5(src []byte) (*translation, error) {
	if !utf8.Valid(src) {
		off := 0
		for off < len(src) {
			r, n := utf8.DecodeRune(src[off:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			off += n
		}
		return nil, &syntaxError{off, "invalid UTF-8 byte"}
	}
	p := &json5Parser{src: src, out: make([]byte, 0, len(src)+len(src)/8)}
	if err := p.document(); err != nil {
		return nil, err
	}
	return &translation{out: p.out, anchors: p.anchors}, nil
}

type json5Parser struct {
	src     []byte
	pos     int
	out     []byte
	anchors []anchor
	depth   int
}

func (p *json5Parser) errorf(off int, format string, args ...any) error {
	return &syntaxError{off, fmt.Sprintf(format, args...)}
}

// mark records that the current output offset corresponds to src offset s.
func (p *json5Parser) mark(s int) {
	a := anchor{len(p.out), s}
	if n := len(p.anchors); n > 0 && p.anchors[n-1].out == a.out {
		p.anchors[n-1] = a
		return
	}
	p.anchors = append(p.anchors, a)
}

// emit writes a rewritten token that replaces src[start:end].
func (p *json5Parser) emit(start, end int, text []byte) {
	p.mark(start)
	p.out = append(p.out, text...)
	p.mark(end)
}

// copyThrough copies src[p.pos:end] verbatim.
func (p *json5Parser) copyThrough(end int) {
	p.mark(p.pos)
	p.out = append(p.out, p.src[p.pos:end]...)
	p.pos = end
}

func (p *json5Parser) document() error {
	if err := p.space(); err != nil {
		return err
	}
	if p.pos == len(p.src) {
		return p.errorf(p.pos, "%s; an empty config is {}", emptyDocument)
	}
	if err := p.value(); err != nil {
		return err
	}
	if err := p.space(); err != nil {
		return err
	}
	if p.pos < len(p.src) {
		return p.errorf(p.pos, "unexpected %s after the end of the top-level value", p.describe(p.pos))
	}
	p.mark(p.pos)
	return nil
}

// describe names the character at off for an error message.
func (p *json5Parser) describe(off int) string {
	if off >= len(p.src) {
		return "end of input"
	}
	r, _ := utf8.DecodeRune(p.src[off:])
	return strconv.QuoteRune(r)
}

func (p *json5Parser) value() error {
	if p.pos == len(p.src) {
		return p.errorf(p.pos, "unexpected end of input; expected a value")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"' || c == '\'':
		return p.stringToken()
	case c == '-' || c == '+' || c == '.' || ('0' <= c && c <= '9'):
		return p.number()
	case c == '}' || c == ']' || c == ',' || c == ':':
		return p.errorf(p.pos, "unexpected %q; expected a value", c)
	default:
		start := p.pos
		name, end, ok := p.scanIdentifier(p.pos)
		if !ok {
			return p.errorf(start, "unexpected %s; expected a value", p.describe(start))
		}
		switch name {
		case "true", "false", "null":
			p.copyThrough(end)
			return nil
		case "Infinity", "NaN":
			return p.errorf(start, "%s is not supported: config numbers must be finite", name)
		}
		return p.errorf(start, "unexpected word %q; strings need quotes", name)
	}
}

func (p *json5Parser) enter() error {
	p.depth++
	if p.depth > maxNesting {
		return p.errorf(p.pos, "objects and arrays nest more than %d levels deep", maxNesting)
	}
	return nil
}

func (p *json5Parser) object() error {
	open := p.pos
	if err := p.enter(); err != nil {
		return err
	}
	p.copyThrough(p.pos + 1)
	for {
		if err := p.space(); err != nil {
			return err
		}
		if p.pos == len(p.src) {
			return p.errorf(open, "unterminated object: no closing '}'")
		}
		if p.src[p.pos] == '}' {
			p.copyThrough(p.pos + 1)
			p.depth--
			return nil
		}
		if err := p.key(); err != nil {
			return err
		}
		if err := p.space(); err != nil {
			return err
		}
		if p.pos == len(p.src) || p.src[p.pos] != ':' {
			return p.errorf(p.pos, "expected ':' after the key, found %s", p.describe(p.pos))
		}
		p.copyThrough(p.pos + 1)
		if err := p.space(); err != nil {
			return err
		}
		if err := p.value(); err != nil {
			return err
		}
		if err := p.space(); err != nil {
			return err
		}
		switch {
		case p.pos == len(p.src):
			return p.errorf(open, "unterminated object: no closing '}'")
		case p.src[p.pos] == ',':
			p.copyThrough(p.pos + 1)
		case p.src[p.pos] == '}':
		default:
			return p.errorf(p.pos, "expected ',' or '}' after the value, found %s", p.describe(p.pos))
		}
	}
}

func (p *json5Parser) key() error {
	start := p.pos
	switch c := p.src[p.pos]; c {
	case '"', '\'':
		return p.stringToken()
	case ',':
		return p.errorf(start, "unexpected ','; expected a key or '}'")
	}
	name, end, ok := p.scanIdentifier(start)
	if !ok {
		return p.errorf(start, "unexpected %s; expected a key or '}'", p.describe(start))
	}
	p.emit(start, end, appendJSONString(nil, name))
	p.pos = end
	return nil
}

func (p *json5Parser) array() error {
	open := p.pos
	if err := p.enter(); err != nil {
		return err
	}
	p.copyThrough(p.pos + 1)
	for {
		if err := p.space(); err != nil {
			return err
		}
		if p.pos == len(p.src) {
			return p.errorf(open, "unterminated array: no closing ']'")
		}
		if p.src[p.pos] == ']' {
			p.copyThrough(p.pos + 1)
			p.depth--
			return nil
		}
		if err := p.value(); err != nil {
			return err
		}
		if err := p.space(); err != nil {
			return err
		}
		switch {
		case p.pos == len(p.src):
			return p.errorf(open, "unterminated array: no closing ']'")
		case p.src[p.pos] == ',':
			p.copyThrough(p.pos + 1)
		case p.src[p.pos] == ']':
		default:
			return p.errorf(p.pos, "expected ',' or ']' after the value, found %s", p.describe(p.pos))
		}
	}
}

// number reads a JSON5 number and writes it as a JSON number.
func (p *json5Parser) number() error {
	start := p.pos
	i := start
	neg := false
	if c := p.src[i]; c == '+' || c == '-' {
		neg = c == '-'
		i++
	}
	if name, _, ok := p.scanIdentifier(i); ok && (name == "Infinity" || name == "NaN") {
		return p.errorf(start, "%s is not supported: config numbers must be finite", name)
	}
	var text []byte
	if neg {
		text = append(text, '-')
	}
	if i+1 < len(p.src) && p.src[i] == '0' && (p.src[i+1] == 'x' || p.src[i+1] == 'X') {
		j := i + 2
		for j < len(p.src) && isHexDigit(p.src[j]) {
			j++
		}
		if j == i+2 {
			return p.errorf(start, "invalid hex number: no digits after %q", p.src[i:i+2])
		}
		n, _ := new(big.Int).SetString(string(p.src[i+2:j]), 16)
		text = n.Append(text, 10)
		i = j
	} else {
		intStart := i
		for i < len(p.src) && isDigit(p.src[i]) {
			i++
		}
		intPart := p.src[intStart:i]
		if len(intPart) > 1 && intPart[0] == '0' {
			return p.errorf(start, "invalid number: leading zeros are not allowed")
		}
		var frac []byte
		if i < len(p.src) && p.src[i] == '.' {
			i++
			fracStart := i
			for i < len(p.src) && isDigit(p.src[i]) {
				i++
			}
			frac = p.src[fracStart:i]
		}
		if len(intPart) == 0 && len(frac) == 0 {
			return p.errorf(start, "invalid number: no digits")
		}
		if len(intPart) == 0 {
			text = append(text, '0')
		}
		text = append(text, intPart...)
		if len(frac) > 0 {
			text = append(text, '.')
			text = append(text, frac...)
		}
		if i < len(p.src) && (p.src[i] == 'e' || p.src[i] == 'E') {
			expStart := i
			i++
			if i < len(p.src) && (p.src[i] == '+' || p.src[i] == '-') {
				i++
			}
			digits := i
			for i < len(p.src) && isDigit(p.src[i]) {
				i++
			}
			if i == digits {
				return p.errorf(start, "invalid number: no digits in the exponent")
			}
			text = append(text, p.src[expStart:i]...)
		}
	}
	if i < len(p.src) {
		if r, _ := utf8.DecodeRune(p.src[i:]); isIDPart(r) || r == '.' || r == '\\' {
			return p.errorf(start, "invalid number: unexpected %s", p.describe(i))
		}
	}
	if _, err := strconv.ParseFloat(string(text), 64); err != nil {
		return p.errorf(start, "number %s is out of range", p.src[start:i])
	}
	p.emit(start, i, text)
	p.pos = i
	return nil
}

func isDigit(c byte) bool    { return '0' <= c && c <= '9' }
func isHexDigit(c byte) bool { return isDigit(c) || ('a' <= c|0x20 && c|0x20 <= 'f') }
