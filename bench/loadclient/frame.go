package main

import (
	"encoding/json"
	"errors"
)

// frame is the envelope of one frame from the gateway. Payload and
// ErrorRaw point into the read buffer and are valid until the next read.
type frame struct {
	Type     string
	ID       string
	OK       bool
	Event    string
	Payload  []byte
	ErrorRaw []byte
}

var errBadFrame = errors.New("frame is not a JSON object")

// parseFrame reads the top-level members of a frame without decoding the
// payload. Decoding a 2 KB health payload with encoding/json cost the load
// client more CPU than the gateway spent answering it, and the client
// shares the machine with the gateway it measures.
func parseFrame(b []byte) (frame, error) {
	var f frame
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return f, errBadFrame
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return f, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return f, errBadFrame
		}
		kEnd := jsonValueEnd(b, i)
		if kEnd < 0 {
			return f, errBadFrame
		}
		key := b[i:kEnd]
		i = skipWS(b, kEnd)
		if i >= len(b) || b[i] != ':' {
			return f, errBadFrame
		}
		i = skipWS(b, i+1)
		vEnd := jsonValueEnd(b, i)
		if vEnd < 0 {
			return f, errBadFrame
		}
		if err := f.set(key, b[i:vEnd]); err != nil {
			return f, err
		}
		i = skipWS(b, vEnd)
		if i >= len(b) {
			return f, errBadFrame
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return f, nil
		default:
			return f, errBadFrame
		}
	}
}

func (f *frame) set(rawKey, v []byte) error {
	var key string
	if !hasEscape(rawKey) {
		key = string(rawKey[1 : len(rawKey)-1])
	} else if err := json.Unmarshal(rawKey, &key); err != nil {
		return err
	}
	str := func(dst *string) error {
		if !hasEscape(v) && len(v) >= 2 && v[0] == '"' {
			*dst = string(v[1 : len(v)-1])
			return nil
		}
		return json.Unmarshal(v, dst)
	}
	switch key {
	case "type":
		return str(&f.Type)
	case "id":
		return str(&f.ID)
	case "event":
		return str(&f.Event)
	case "ok":
		return json.Unmarshal(v, &f.OK)
	case "payload":
		f.Payload = v
	case "error":
		f.ErrorRaw = v
	}
	return nil
}

func hasEscape(s []byte) bool {
	for _, c := range s {
		if c == '\\' {
			return true
		}
	}
	return false
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonValueEnd returns the index just past the JSON value that starts at
// b[i], or -1 when it does not end inside b. It finds the extent only; the
// members the client uses are decoded by encoding/json.
func jsonValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return -1
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end := jsonValueEnd(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default: // number, true, false, null
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}
