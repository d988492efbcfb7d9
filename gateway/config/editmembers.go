package config

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/tailscale/hujson"
)

// insertMember adds the member segs[0] (with missing objects for the rest of
// segs) to obj, after its last member.
func (d *editDoc) insertMember(objVal *hujson.Value, obj *hujson.Object, segs []segment, value any) ([]byte, error) {
	for _, s := range segs[1:] {
		if s.isIndex {
			return nil, errors.New("cannot create an array element inside a missing array; set the whole array")
		}
	}
	key := d.renderKey(segs[0].key)
	open, end := d.span(objVal)
	closing := end - 1
	if len(obj.Members) == 0 {
		outer := d.lineIndent(open)
		inner := outer + d.unit
		val, err := d.renderNested(segs[1:], value, inner)
		if err != nil {
			return nil, err
		}
		// Keep comments inside the braces; drop blanks before the '}'.
		at := open + 1 + len(bytes.TrimRight(d.src[open+1:closing], " \t\r\n"))
		return d.apply(edit{at, closing, fmt.Appendf(nil, "\n%s%s: %s\n%s", inner, key, val, outer)})
	}
	last := &obj.Members[len(obj.Members)-1]
	if d.isInline(open, closing) {
		val, err := compactJSON(nestValue(segs[1:], value))
		if err != nil {
			return nil, err
		}
		return d.appendInline(&last.Value, fmt.Appendf(nil, "%s: %s", key, val))
	}
	indent := d.lineIndent(d.orig(last.Name.StartOffset))
	val, err := d.renderNested(segs[1:], value, indent)
	if err != nil {
		return nil, err
	}
	return d.appendLine(&last.Value, fmt.Appendf(nil, "%s%s: %s", indent, key, val))
}

// appendElement adds value at the end of arr.
func (d *editDoc) appendElement(arrVal *hujson.Value, arr *hujson.Array, value any) ([]byte, error) {
	open, end := d.span(arrVal)
	closing := end - 1
	if len(arr.Elements) == 0 || d.isInline(open, closing) {
		val, err := compactJSON(value)
		if err != nil {
			return nil, err
		}
		if len(arr.Elements) == 0 {
			at := open + 1 + len(bytes.TrimRight(d.src[open+1:closing], " \t\r\n"))
			return d.apply(edit{at, at, val})
		}
		return d.appendInline(&arr.Elements[len(arr.Elements)-1], val)
	}
	last := &arr.Elements[len(arr.Elements)-1]
	indent := d.lineIndent(d.orig(last.StartOffset))
	val, err := renderJSON(value, indent, d.unit)
	if err != nil {
		return nil, err
	}
	return d.appendLine(last, append([]byte(indent), val...))
}

// isInline reports whether a container's braces are on one line.
func (d *editDoc) isInline(open, closing int) bool {
	return !bytes.Contains(d.src[open:closing], []byte("\n"))
}

// appendInline adds text after the last entry of a one-line container.
func (d *editDoc) appendInline(last *hujson.Value, text []byte) ([]byte, error) {
	if last.AfterExtra != nil { // trailing comma
		c := d.commaAfter(last)
		return d.apply(edit{c + 1, c + 1, append(append([]byte(" "), text...), ',')})
	}
	end := d.orig(last.EndOffset)
	return d.apply(edit{end, end, append([]byte(", "), text...)})
}

// appendLine adds line (already indented) on its own line after the last
// entry, keeping a comment at the end of that entry's line where it is.
func (d *editDoc) appendLine(last *hujson.Value, line []byte) ([]byte, error) {
	if last.AfterExtra != nil { // trailing comma: keep the style
		c := d.commaAfter(last) + 1
		at, ok := d.restOfLine(c)
		if !ok {
			at = c
		}
		return d.apply(edit{at, at, append(append([]byte("\n"), line...), ',')})
	}
	end := d.orig(last.EndOffset)
	at, ok := d.restOfLine(end)
	if !ok || at == end {
		return d.apply(edit{end, end, append([]byte(",\n"), line...)})
	}
	return d.apply(edit{end, end, []byte(",")}, edit{at, at, append([]byte("\n"), line...)})
}

// removeAt returns the edits that delete entry i of an object or array.
func (d *editDoc) removeAt(parent *hujson.Value, i int) []edit {
	var start int
	var val, prev *hujson.Value
	var count int
	switch c := parent.Value.(type) {
	case *hujson.Object:
		count = len(c.Members)
		start, val = c.Members[i].Name.StartOffset, &c.Members[i].Value
		if i > 0 {
			prev = &c.Members[i-1].Value
		}
	case *hujson.Array:
		count = len(c.Elements)
		start, val = c.Elements[i].StartOffset, &c.Elements[i]
		if i > 0 {
			prev = &c.Elements[i-1]
		}
	}
	from := d.orig(start)
	if i < count-1 || val.AfterExtra != nil { // a comma follows: take it along
		return []edit{d.removeSpan(from, d.commaAfter(val)+1)}
	}
	to := d.orig(val.EndOffset)
	if prev == nil {
		return []edit{d.removeSpan(from, to)}
	}
	// Last entry without a trailing comma: the comma before it goes.
	comma := d.commaAfter(prev)
	if between := d.src[comma+1 : from]; len(bytes.Trim(between, " \t")) == 0 {
		return []edit{{comma, to, nil}} // same line: ", last" goes at once
	}
	return []edit{{comma, comma + 1, nil}, d.removeSpan(from, to)}
}

// removeSpan deletes src[start:end], with its whole line when nothing else
// is on it, else with the blanks that follow it.
func (d *editDoc) removeSpan(start, end int) edit {
	rest := end
	for rest < len(d.src) && (d.src[rest] == ' ' || d.src[rest] == '\t') {
		rest++
	}
	if d.onlySpaceBefore(start) {
		switch {
		case rest == len(d.src):
			return edit{d.lineStart(start), rest, nil}
		case d.src[rest] == '\n':
			return edit{d.lineStart(start), rest + 1, nil}
		case bytes.HasPrefix(d.src[rest:], []byte("\r\n")):
			return edit{d.lineStart(start), rest + 2, nil}
		}
	}
	return edit{start, rest, nil}
}

// nestValue wraps value in objects for the keys of segs.
func nestValue(segs []segment, value any) any {
	for i := len(segs) - 1; i >= 0; i-- {
		value = map[string]any{segs[i].key: value}
	}
	return value
}

func compactJSON(v any) ([]byte, error) {
	return renderJSON(v, "", "")
}
