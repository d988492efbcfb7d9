package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// DefaultMaxResultChars is the most characters (Unicode code points) of
// one result the Runner passes on to the model.
const DefaultMaxResultChars = 16_000

// Budget is the most characters the call's answer may have: the
// caller's cap (Call.MaxChars) when it is tighter than the tool's own
// default def, else def.
func (c Call) Budget(def int) int {
	if c.MaxChars > 0 && (def <= 0 || c.MaxChars < def) {
		return c.MaxChars
	}
	return def
}

// FitResult cuts text to at most limit characters. It is the last resort
// behind tools that fit their own answers (and their hints on how to get
// the rest) under Call.MaxChars: JSON stays JSON, its longest strings and
// arrays shortened with a note inside; other text is cut on a character
// boundary with a note saying how much was shown. limit <= 0 leaves text
// alone.
func FitResult(text string, limit int) string {
	if limit <= 0 || len(text) <= limit {
		return text // len counts bytes, never fewer than characters
	}
	total := utf8.RuneCountInString(text)
	if total <= limit {
		return text
	}
	if out, ok := fitJSON(text, total, limit); ok {
		return out
	}
	return cutText(text, total, limit)
}

// cutText keeps the head of text and a note, together at most limit
// characters where the note leaves room.
func cutText(text string, total, limit int) string {
	note := func(shown int) string {
		return fmt.Sprintf("\n[output truncated: %d of %d characters shown]", shown, total)
	}
	keep := max(0, limit-utf8.RuneCountInString(note(limit)))
	return headRunes(text, keep) + note(keep)
}

// headRunes is the first n characters of s.
func headRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// maxJSONShrinks bounds the shortening passes over one JSON answer.
const maxJSONShrinks = 64

// fitJSON shortens a JSON document until its encoding fits limit
// characters; ok is false when text is not one JSON value. A document
// that cannot be shortened enough (thousands of small keys) becomes an
// object that says so and carries the head of the original as a string.
func fitJSON(text string, total, limit int) (string, bool) {
	trimmed := strings.TrimSpace(text)
	if trimmed == "" || (trimmed[0] != '{' && trimmed[0] != '[') {
		return "", false
	}
	dec := json.NewDecoder(strings.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", false
	}
	if _, err := dec.Token(); err == nil {
		return "", false // more than one value
	}
	for range maxJSONShrinks {
		out := EncodeJSON(v)
		n := utf8.RuneCountInString(out)
		if n <= limit {
			return out, true
		}
		var shrunk bool
		if v, shrunk = shrinkJSON(v, n-limit); !shrunk {
			break
		}
	}
	wrapper := map[string]any{"truncated": true, "originalChars": total,
		"note": "the answer was too long and is shown as text, cut", "head": ""}
	room := limit - utf8.RuneCountInString(EncodeJSON(wrapper))
	head := headRunes(trimmed, max(0, room))
	// Escaping makes the head longer than its characters; cut until it fits.
	for {
		wrapper["head"] = head
		out := EncodeJSON(wrapper)
		over := utf8.RuneCountInString(out) - limit
		if over <= 0 || head == "" {
			return out, true
		}
		head = headRunes(head, max(0, utf8.RuneCountInString(head)-over))
	}
}

// EncodeJSON is v as compact JSON for a model or a person to read: no
// HTML escaping, so "<" stays one character rather than \u003c.
func EncodeJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // \u003c would cost six characters for one
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// shrinkJSON shortens the biggest part of v by about excess characters:
// the longest string, or else the longest array loses its tail. It says
// whether anything could be shortened.
func shrinkJSON(v any, excess int) (any, bool) {
	root := v
	var (
		str              string
		strLen           int
		setStr, setArray func(any)
		array            []any
	)
	walkJSON(v, func(n any) { root = n }, func(n any, set func(any)) {
		switch t := n.(type) {
		case string:
			if l := utf8.RuneCountInString(t); l > strLen {
				str, strLen, setStr = t, l, set
			}
		case []any:
			if setArray == nil || len(t) > len(array) {
				array, setArray = t, set
			}
		}
	})
	const minKept = 64
	if setStr != nil && strLen > minKept {
		keep := max(minKept, strLen-excess-48)
		setStr(headRunes(str, keep) + fmt.Sprintf("…[truncated: %d more characters]", strLen-keep))
		return root, true
	}
	if setArray != nil && len(array) > 1 {
		keep := len(array) / 2
		setArray(append(array[:keep:keep], fmt.Sprintf("[truncated: %d more items]", len(array)-keep)))
		return root, true
	}
	return root, false
}

// walkJSON calls visit for every value of a decoded document, with a
// function that replaces that value in its parent (set for the root).
func walkJSON(v any, set func(any), visit func(v any, set func(any))) {
	visit(v, set)
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			walkJSON(e, func(n any) { t[k] = n }, visit)
		}
	case []any:
		for i, e := range t {
			walkJSON(e, func(n any) { t[i] = n }, visit)
		}
	}
}
