package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/tailscale/hujson"
)

// Set returns src with the value at path replaced by value, written as JSON.
// Only the bytes of the old value change: comments, key quoting, order and
// every other line stay as they were. Missing objects on the way are
// created, each new key going after its last sibling with the same
// indentation and quoting. path is dotted (gateway.auth.token); see
// ParsePath for keys with dots and array indexes. An index one past the end
// of an array appends to it. src may be empty, which starts a new file.
func Set(src []byte, path string, value any) ([]byte, error) {
	segs, err := parsePath(path)
	if err != nil {
		return nil, fmt.Errorf("set %s: %w", path, err)
	}
	out, err := setSegs(src, segs, value)
	if err != nil {
		return nil, fmt.Errorf("set %s: %w", path, err)
	}
	return out, nil
}

// Unset returns src without the member at path, removing its trailing comma
// (or the comma before it, for a last member) and its line when nothing else
// is on it; comments are kept. A path that names nothing returns an error
// wrapping ErrNotFound.
func Unset(src []byte, path string) ([]byte, error) {
	segs, err := parsePath(path)
	if err != nil {
		return nil, fmt.Errorf("unset %s: %w", path, err)
	}
	out, err := unsetSegs(src, segs)
	if err != nil {
		return nil, fmt.Errorf("unset %s: %w", path, err)
	}
	return out, nil
}

// MergePatch applies an RFC 7396 merge patch to src with Set and Unset, so
// comments and formatting survive: objects merge key by key, null deletes,
// anything else replaces. Keys are applied in sorted order.
func MergePatch(src []byte, patch map[string]any) ([]byte, error) {
	out, err := mergePatchAt(src, nil, patch)
	if err != nil {
		return nil, fmt.Errorf("merge patch: %w", err)
	}
	return out, nil
}

func mergePatchAt(src []byte, prefix []segment, patch map[string]any) ([]byte, error) {
	for _, k := range slices.Sorted(maps.Keys(patch)) {
		segs := append(prefix[:len(prefix):len(prefix)], segment{key: k})
		var err error
		switch v := patch[k].(type) {
		case nil:
			src, err = unsetSegs(src, segs)
			if errors.Is(err, ErrNotFound) {
				err = nil
			}
		case map[string]any:
			// Into an object, or into nothing (so new keys get the
			// file's style): key by key. Over anything else: replace.
			var exists, isObj bool
			if exists, isObj, err = objectAt(src, segs); err == nil {
				if isObj || (!exists && len(withoutNulls(v)) > 0) {
					src, err = mergePatchAt(src, segs, v)
				} else {
					src, err = setSegs(src, segs, withoutNulls(v))
				}
			}
		default:
			src, err = setSegs(src, segs, v)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", formatPath(segs), err)
		}
	}
	return src, nil
}

// withoutNulls drops null members, as a merge patch does for new objects.
func withoutNulls(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch v := v.(type) {
		case nil:
		case map[string]any:
			out[k] = withoutNulls(v)
		default:
			out[k] = v
		}
	}
	return out
}

// objectAt reports whether src has a value at segs and whether it is an
// object.
func objectAt(src []byte, segs []segment) (exists, isObject bool, err error) {
	d, err := openEdit(src)
	if err != nil {
		return false, false, err
	}
	v, _, _, err := d.find(segs)
	if errors.Is(err, ErrNotFound) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	_, ok := v.Value.(*hujson.Object)
	return true, ok, nil
}

func setSegs(src []byte, segs []segment, value any) ([]byte, error) {
	d, err := openEdit(src)
	if err != nil {
		return nil, err
	}
	cur := &d.p.ast
	for i, seg := range segs {
		switch c := cur.Value.(type) {
		case *hujson.Object:
			if seg.isIndex {
				return nil, fmt.Errorf("%s is an object, not an array", d.label(segs[:i]))
			}
			j := memberIndex(c, seg.key)
			if j < 0 {
				return d.insertMember(cur, c, segs[i:], value)
			}
			cur = &c.Members[j].Value
		case *hujson.Array:
			if !seg.isIndex {
				return nil, fmt.Errorf("%s is an array; address its elements as [N]", d.label(segs[:i]))
			}
			if seg.index == len(c.Elements) && i == len(segs)-1 {
				return d.appendElement(cur, c, value)
			}
			if seg.index >= len(c.Elements) {
				return nil, fmt.Errorf("%s has %d elements, no [%d]", d.label(segs[:i]), len(c.Elements), seg.index)
			}
			cur = &c.Elements[seg.index]
		default:
			return nil, fmt.Errorf("%s is %s, not an object", d.label(segs[:i]), literalKind(cur))
		}
	}
	start, end := d.span(cur)
	text, err := renderJSON(value, d.indentAt(start), d.unit)
	if err != nil {
		return nil, err
	}
	return d.apply(edit{start, end, text})
}

func unsetSegs(src []byte, segs []segment) ([]byte, error) {
	d, err := openEdit(src)
	if err != nil {
		return nil, err
	}
	_, parent, i, err := d.find(segs)
	if err != nil {
		return nil, err
	}
	return d.apply(d.removeAt(parent, i)...)
}

// find walks segs and returns the value there, its container and index.
func (d *editDoc) find(segs []segment) (v, parent *hujson.Value, index int, err error) {
	cur := &d.p.ast
	for i, seg := range segs {
		parent = cur
		switch c := cur.Value.(type) {
		case *hujson.Object:
			index = -1
			if !seg.isIndex {
				index = memberIndex(c, seg.key)
			}
			if index < 0 {
				return nil, nil, 0, fmt.Errorf("%s: %w", formatPath(segs[:i+1]), ErrNotFound)
			}
			cur = &c.Members[index].Value
		case *hujson.Array:
			if !seg.isIndex || seg.index >= len(c.Elements) {
				return nil, nil, 0, fmt.Errorf("%s: %w", formatPath(segs[:i+1]), ErrNotFound)
			}
			index = seg.index
			cur = &c.Elements[index]
		default:
			return nil, nil, 0, fmt.Errorf("%s: %w", formatPath(segs[:i+1]), ErrNotFound)
		}
	}
	return cur, parent, index, nil
}

// memberIndex finds the last member named key (the one that takes effect).
func memberIndex(obj *hujson.Object, key string) int {
	for i := len(obj.Members) - 1; i >= 0; i-- {
		if obj.Members[i].Name.Value.(hujson.Literal).String() == key {
			return i
		}
	}
	return -1
}

func literalKind(v *hujson.Value) string {
	switch v.Value.Kind() {
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	}
	return "null"
}

func (d *editDoc) label(segs []segment) string {
	if len(segs) == 0 {
		return "the top level"
	}
	return formatPath(segs)
}
