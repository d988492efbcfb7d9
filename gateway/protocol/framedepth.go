package protocol

import (
	"encoding/json"
	"fmt"
)

// MaxFrameDepth is how deeply a frame's JSON may nest: objects and
// arrays inside each other, the frame itself counting as one. It is
// encoding/json's own limit, named here so a frame past it is answered
// with it instead of being taken for noise.
const MaxFrameDepth = 10000

// ErrTooDeep is returned by DecodeRequest for a frame nested deeper than
// MaxFrameDepth. When the frame's own id could still be read, the
// request comes back beside the error so the server can answer it.
var ErrTooDeep = fmt.Errorf("invalid request frame: nested deeper than the limit of %d levels", MaxFrameDepth)

// frameHead is what can be read of a frame's top level without decoding
// what is nested in it.
type frameHead struct {
	typ, id, method string
	depth           int // the deepest nesting seen, the frame itself being 1
}

// skimFrame reads the top-level "type", "id" and "method" strings of a
// JSON object and measures the nesting of any JSON text, in one pass and without
// recursion, so a frame too deep for encoding/json can still be answered
// by id. It is a scanner, not a validator: it is only asked about frames
// encoding/json already refused, and a malformed frame yields empty or
// partial fields. A key seen twice keeps its last value, as encoding/json
// does.
func skimFrame(data []byte) frameHead {
	var h frameHead
	i := skipSpace(data, 0)
	isObject := i < len(data) && data[i] == '{' // only an object has fields to read
	depth := 0
	expectKey := false // at depth 1: the next string is a key
	var key []byte     // at depth 1: the key whose value comes next
	for i < len(data) {
		switch b := data[i]; b {
		case '"':
			end := stringEnd(data, i)
			if end < 0 {
				return h // unterminated string: nothing more to read
			}
			if depth == 1 {
				if expectKey {
					key = data[i : end+1]
					expectKey = false
				} else if key != nil {
					h.set(key, data[i:end+1])
					key = nil
				}
			}
			i = end + 1
			continue
		case '{', '[':
			depth++
			h.depth = max(h.depth, depth)
			if depth == 1 {
				expectKey = isObject
			} else if depth == 2 && key != nil {
				h.set(key, nil) // the value of this key is not a string
				key = nil
			}
		case '}', ']':
			if depth == 0 {
				return h // a close with nothing open: malformed
			}
			if depth == 1 && key != nil {
				h.set(key, nil) // a number, true, false or null
			}
			depth--
			if depth == 0 {
				return h
			}
		case ',':
			if depth == 1 {
				if key != nil {
					h.set(key, nil)
				}
				expectKey, key = true, nil
			}
		}
		i++
	}
	return h
}

// set records one top-level field if it is one skimFrame reports: its
// string value, or "" when rawValue is nil (the value is not a string).
// Keys match exactly, as they are sent.
func (h *frameHead) set(rawKey, rawValue []byte) {
	var k, v string
	if json.Unmarshal(rawKey, &k) != nil {
		return
	}
	if rawValue != nil && json.Unmarshal(rawValue, &v) != nil {
		v = ""
	}
	switch k {
	case "type":
		h.typ = v
	case "id":
		h.id = v
	case "method":
		h.method = v
	}
}

// stringEnd returns the index of the quote closing the JSON string that
// opens at data[start], or -1 when it does not close.
func stringEnd(data []byte, start int) int {
	for i := start + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++ // whatever is escaped cannot close the string
		case '"':
			return i
		}
	}
	return -1
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}
