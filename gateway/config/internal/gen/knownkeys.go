package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A key tree node is built in three states while walking the schema:
// scalar (the value cannot be an object, so it has no keys), open (any keys
// are allowed), or an object with named children plus the wildcard "*" for
// map-like objects and "[]" for the elements of arrays of objects.
type keyNode struct {
	open     bool
	children map[string]*keyNode // nil for scalars
}

var (
	scalarNode = &keyNode{}
	openNode   = &keyNode{open: true}
)

// merge unions two nodes, for anyOf/oneOf/allOf: whatever any variant
// allows is allowed, so no valid config gets a false error.
func merge(a, b *keyNode) *keyNode {
	switch {
	case a.open || b.open:
		return openNode
	case a.children == nil:
		return b
	case b.children == nil:
		return a
	}
	out := &keyNode{children: maps.Clone(a.children)}
	for k, v := range b.children {
		if old, ok := out.children[k]; ok {
			out.children[k] = merge(old, v)
		} else {
			out.children[k] = v
		}
	}
	return out
}

// walker turns a JSON Schema (draft-07, as `openclaw config schema` prints
// it) into a key tree.
type walker struct {
	defs []map[string]any // $defs scopes, innermost last
}

func (w *walker) node(s any) (*keyNode, error) {
	schema, ok := s.(map[string]any)
	if !ok {
		if s == true {
			return openNode, nil
		}
		return scalarNode, nil
	}
	if len(schema) == 0 {
		return openNode, nil
	}
	if defs, ok := schema["$defs"].(map[string]any); ok {
		w.defs = append(w.defs, defs)
		defer func() { w.defs = w.defs[:len(w.defs)-1] }()
	}
	if ref, ok := schema["$ref"].(string); ok {
		name, found := strings.CutPrefix(ref, "#/$defs/")
		if !found || len(w.defs) == 0 {
			return nil, fmt.Errorf("unsupported $ref %q", ref)
		}
		target, ok := w.defs[len(w.defs)-1][name]
		if !ok {
			return nil, fmt.Errorf("unresolved $ref %q", ref)
		}
		return w.node(target)
	}
	out := scalarNode
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		variants, _ := schema[k].([]any)
		for _, v := range variants {
			n, err := w.node(v)
			if err != nil {
				return nil, err
			}
			out = merge(out, n)
		}
	}
	for _, k := range []string{"then", "else"} {
		if v, ok := schema[k]; ok {
			n, err := w.node(v)
			if err != nil {
				return nil, err
			}
			out = merge(out, n)
		}
	}
	types := typeSet(schema["type"])
	props, _ := schema["properties"].(map[string]any)
	patterns, _ := schema["patternProperties"].(map[string]any)
	additional, hasAdditional := schema["additionalProperties"]
	if types["object"] || props != nil || patterns != nil || hasAdditional {
		obj := &keyNode{children: map[string]*keyNode{}}
		for name, sub := range props {
			if name == "*" || name == "[]" {
				return nil, fmt.Errorf("property %q collides with a key tree marker", name)
			}
			n, err := w.node(sub)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			obj.children[name] = n
		}
		var extra []any
		for _, sub := range patterns {
			extra = append(extra, sub)
		}
		if !hasAdditional {
			additional = true // JSON Schema's default: any other key is fine
		}
		if additional != false {
			extra = append(extra, additional)
		}
		for _, sub := range extra {
			n, err := w.node(sub)
			if err != nil {
				return nil, fmt.Errorf("*: %w", err)
			}
			if old, ok := obj.children["*"]; ok {
				n = merge(old, n)
			}
			obj.children["*"] = n
		}
		if star := obj.children["*"]; star != nil && star.open && len(obj.children) == 1 {
			obj = openNode
		}
		out = merge(out, obj)
	}
	if types["array"] || schema["items"] != nil {
		var items []any
		switch it := schema["items"].(type) {
		case nil:
			items = []any{true}
		case []any:
			items = it
		default:
			items = []any{it}
		}
		elem := scalarNode
		for _, it := range items {
			n, err := w.node(it)
			if err != nil {
				return nil, fmt.Errorf("[]: %w", err)
			}
			elem = merge(elem, n)
		}
		switch {
		case elem.open:
			out = openNode
		case elem.children != nil:
			out = merge(out, &keyNode{children: map[string]*keyNode{"[]": elem}})
		}
	}
	return out, nil
}

func typeSet(t any) map[string]bool {
	set := map[string]bool{}
	switch t := t.(type) {
	case string:
		set[t] = true
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				set[s] = true
			}
		}
	}
	return set
}

// encode writes the tree as JSON: 1 for a key whose value is not checked
// further (scalar or open), an object for a key whose own keys are checked.
func encode(buf *bytes.Buffer, n *keyNode, indent string) {
	if n.open || n.children == nil {
		buf.WriteString("1")
		return
	}
	if len(n.children) == 0 {
		buf.WriteString("{}")
		return
	}
	inner := indent + " "
	buf.WriteString("{")
	for i, k := range slices.Sorted(maps.Keys(n.children)) {
		if i > 0 {
			buf.WriteString(",")
		}
		name, _ := json.Marshal(k)
		fmt.Fprintf(buf, "\n%s%s:", inner, name)
		encode(buf, n.children[k], inner)
	}
	fmt.Fprintf(buf, "\n%s}", indent)
}

// knownKeys builds the knownkeys.json document from a schema.
func knownKeys(schemaJSON []byte, version string) ([]byte, error) {
	var schema any
	if err := json.Unmarshal(schemaJSON, &schema); err != nil {
		return nil, fmt.Errorf("decode schema: %w", err)
	}
	root, err := (&walker{}).node(schema)
	if err != nil {
		return nil, fmt.Errorf("walk schema: %w", err)
	}
	if root.open || root.children == nil {
		return nil, fmt.Errorf("walk schema: the root is not a closed object")
	}
	var buf bytes.Buffer
	v, _ := json.Marshal(version)
	fmt.Fprintf(&buf, "{\n\"openclaw\": %s,\n\"keys\": ", v)
	encode(&buf, root, "")
	buf.WriteString("\n}\n")
	return buf.Bytes(), nil
}
