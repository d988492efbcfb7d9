package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// editDoc is a JSON5 document opened for byte-exact edits: the hujson AST of
// its HuJSON translation locates values, and the translation's offset map
// turns their positions back into offsets of the original text.
type editDoc struct {
	src    []byte
	p      *parsed
	unit   string // one level of indentation as the file writes it
	quoted bool   // whether the file quotes its keys
	crlf   bool   // whether the file ends its lines with \r\n
}

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       []byte
}

func openEdit(src []byte) (*editDoc, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		src = []byte("{}\n")
	}
	p, issue := parseJSON5(&srcFile{name: "config", src: src})
	if issue != nil && strings.Contains(issue.Message, emptyDocument) {
		// Only comments so far: start the object after them.
		src = append(bytes.TrimRight(slices.Clip(src), " \t\r\n"), "\n{}\n"...)
		p, issue = parseJSON5(&srcFile{name: "config", src: src})
	}
	if issue != nil {
		return nil, fmt.Errorf("parse config: %d:%d: %s", issue.Line, issue.Column, issue.Message)
	}
	d := &editDoc{src: src, p: p, unit: "  ", quoted: true, crlf: bytes.Contains(src, []byte("\r\n"))}
	d.detectStyle()
	return d, nil
}

// detectStyle learns the indentation unit and key quoting from the first
// member of the first non-empty object.
func (d *editDoc) detectStyle() {
	for v := range d.p.ast.All() {
		obj, ok := v.Value.(*hujson.Object)
		if !ok || len(obj.Members) == 0 {
			continue
		}
		keyStart := d.orig(obj.Members[0].Name.StartOffset)
		c := d.src[keyStart]
		d.quoted = c == '"' || c == '\''
		open, _ := d.span(v)
		if inner, outer := d.lineIndent(keyStart), d.lineIndent(open); len(inner) > len(outer) && strings.HasPrefix(inner, outer) {
			d.unit = inner[len(outer):]
		}
		return
	}
}

func (d *editDoc) orig(out int) int { return d.p.tr.srcOffset(out) }

// span is the original byte range of a value, without comments around it.
func (d *editDoc) span(v *hujson.Value) (start, end int) {
	return d.orig(v.StartOffset), d.orig(v.EndOffset)
}

func (d *editDoc) lineStart(off int) int { return bytes.LastIndexByte(d.src[:off], '\n') + 1 }

// lineIndent is the leading whitespace of the line holding off.
func (d *editDoc) lineIndent(off int) string {
	start := d.lineStart(off)
	end := start
	for end < len(d.src) && (d.src[end] == ' ' || d.src[end] == '\t') {
		end++
	}
	return string(d.src[start:end])
}

// indentAt is the indentation for a value starting at off: that of its line.
func (d *editDoc) indentAt(off int) string { return d.lineIndent(off) }

// onlySpaceBefore reports whether off is the first non-blank of its line.
func (d *editDoc) onlySpaceBefore(off int) bool {
	return len(bytes.Trim(d.src[d.lineStart(off):off], " \t")) == 0
}

// restOfLine skips blanks and one comment after off that end on the same
// line; it returns the offset of that line's newline (or end of input) and
// whether only blanks and comments were there.
func (d *editDoc) restOfLine(off int) (int, bool) {
	i := off
	for i < len(d.src) {
		switch {
		case d.src[i] == ' ' || d.src[i] == '\t':
			i++
		case d.src[i] == '\r' && i+1 < len(d.src) && d.src[i+1] == '\n':
			return i, true
		case d.src[i] == '\n':
			return i, true
		case bytes.HasPrefix(d.src[i:], []byte("//")):
			nl := bytes.IndexByte(d.src[i:], '\n')
			if nl < 0 {
				return len(d.src), true
			}
			if nl > 0 && d.src[i+nl-1] == '\r' {
				nl--
			}
			return i + nl, true
		case bytes.HasPrefix(d.src[i:], []byte("/*")):
			end := bytes.Index(d.src[i+2:], []byte("*/"))
			if end < 0 || bytes.IndexByte(d.src[i:i+2+end], '\n') >= 0 {
				return off, false
			}
			i += 2 + end + 2
		default:
			return off, false
		}
	}
	return i, true
}

// commaAfter returns the original offset of the comma after a member value,
// which hujson places right after the value's trailing comments.
func (d *editDoc) commaAfter(v *hujson.Value) int {
	return d.orig(v.EndOffset + len(v.AfterExtra))
}

// apply makes non-overlapping edits and checks the result still parses.
func (d *editDoc) apply(edits ...edit) ([]byte, error) {
	slices.SortFunc(edits, func(a, b edit) int { return b.start - a.start })
	out := slices.Clone(d.src)
	for _, e := range edits {
		text := e.text
		if d.crlf {
			text = bytes.ReplaceAll(text, []byte("\n"), []byte("\r\n"))
		}
		out = slices.Concat(out[:e.start], text, out[e.end:])
	}
	if _, err := translateJSON5(out); err != nil {
		return nil, fmt.Errorf("edit produced an unparsable config (a bug): %w", err)
	}
	return out, nil
}

// renderKey writes a key as the file does: bare when the file uses bare
// keys and the key is a plain identifier, else as a JSON string.
func (d *editDoc) renderKey(key string) string {
	if !d.quoted && isPlainIdentifier(key) {
		return key
	}
	return string(appendJSONString(nil, key))
}

func isPlainIdentifier(s string) bool {
	if s == "" || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '$' || isDigit(c) || ('a' <= c|0x20 && c|0x20 <= 'z')) {
			return false
		}
	}
	return true
}

// renderJSON writes v as JSON, multi-line values indented from indent.
func renderJSON(v any, indent, unit string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, unit)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode value: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// renderNested writes the value for segs below an existing object: missing
// intermediate objects in the file's key style, the value itself as JSON.
func (d *editDoc) renderNested(segs []segment, value any, indent string) ([]byte, error) {
	if len(segs) == 0 {
		return renderJSON(value, indent, d.unit)
	}
	inner := indent + d.unit
	v, err := d.renderNested(segs[1:], value, inner)
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(nil, "{\n%s%s: %s\n%s}", inner, d.renderKey(segs[0].key), v, indent), nil
}
