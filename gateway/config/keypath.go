package config

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// segment is one step of a key path: an object key or an array index.
type segment struct {
	key     string
	index   int
	isIndex bool
}

// isBareKey reports whether a key can be written in a dotted path without
// brackets and quotes.
func isBareKey(key string) bool {
	if key == "" {
		return false
	}
	for _, r := range key {
		if strings.ContainsRune(`.[]"'`, r) || unicode.IsSpace(r) || unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// JoinPath appends an object key to a dotted key path (as config.Set
// takes it), bracketing and quoting keys that need it.
func JoinPath(parent, key string) string {
	if !isBareKey(key) {
		return parent + `[` + string(appendJSONString(nil, key)) + `]`
	}
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// indexPath appends an array index to a dotted path.
func indexPath(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

// formatPath writes segments back as a path string.
func formatPath(segs []segment) string {
	var p string
	for _, s := range segs {
		if s.isIndex {
			p = indexPath(p, s.index)
		} else {
			p = JoinPath(p, s.key)
		}
	}
	return p
}

// ParsePath splits a key path such as gateway.auth.token into its steps.
// Keys holding dots or brackets are written in brackets with quotes,
// models.providers["my.host"].apiKey; array elements as [2].
// It is what Set and Unset use; callers may use it to check user input.
func ParsePath(path string) ([]string, error) {
	segs, err := parsePath(path)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(segs))
	for i, s := range segs {
		if s.isIndex {
			out[i] = "[" + strconv.Itoa(s.index) + "]"
		} else {
			out[i] = s.key
		}
	}
	return out, nil
}

func parsePath(path string) ([]segment, error) {
	if path == "" {
		return nil, fmt.Errorf("parse key path: the path is empty")
	}
	if !utf8.ValidString(path) {
		return nil, fmt.Errorf("parse key path %q: invalid UTF-8", path)
	}
	var segs []segment
	i := 0
	for i < len(path) {
		switch c := path[i]; {
		case c == '[':
			seg, n, err := parseBracket(path[i:])
			if err != nil {
				return nil, fmt.Errorf("parse key path %q at byte %d: %w", path, i, err)
			}
			segs = append(segs, seg)
			i += n
		case c == '.' && len(segs) > 0 && i+1 < len(path) && path[i+1] != '.' && path[i+1] != '[':
			i++
			fallthrough
		case len(segs) == 0 && c != '.':
			j := i
			for j < len(path) && path[j] != '.' && path[j] != '[' {
				j++
			}
			key := path[i:j]
			if !isBareKey(key) {
				return nil, fmt.Errorf("parse key path %q at byte %d: key %q needs brackets and quotes, like [%s]", path, i, key, appendJSONString(nil, key))
			}
			segs = append(segs, segment{key: key})
			i = j
		default:
			return nil, fmt.Errorf("parse key path %q at byte %d: unexpected %q", path, i, c)
		}
	}
	return segs, nil
}

// parseBracket reads [N], ["key"] or ['key'] at the start of s.
func parseBracket(s string) (segment, int, error) {
	end := strings.IndexByte(s, ']')
	if len(s) > 1 && (s[1] == '"' || s[1] == '\'') {
		p := &json5Parser{src: []byte(s)}
		key, next, err := p.scanString(1)
		if err != nil {
			return segment{}, 0, fmt.Errorf("bad quoted key: %w", err)
		}
		if next >= len(s) || s[next] != ']' {
			return segment{}, 0, fmt.Errorf("want ']' after the quoted key")
		}
		return segment{key: key}, next + 1, nil
	}
	if end < 0 {
		return segment{}, 0, fmt.Errorf("no closing ']'")
	}
	n, err := strconv.Atoi(s[1:end])
	if err != nil || n < 0 || s[1] == '+' {
		return segment{}, 0, fmt.Errorf("want an array index or a quoted key inside [], got %q", s[1:end])
	}
	return segment{index: n, isIndex: true}, end + 1, nil
}

// Lookup finds a value in a config tree (Snapshot.Tree) by key path,
// reporting whether the file sets it.
func Lookup(tree map[string]any, path ...string) (any, bool) {
	var v any = tree
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}
