package config

import (
	"encoding/json"
	"reflect"
	"strings"
)

// schemaProvider is implemented by field types with their own JSON shape.
type schemaProvider interface {
	jsonSchema() map[string]any
}

// Schema returns a JSON Schema (draft-07) of the keys this gateway
// implements, built from the Config structs: their json, enum, min and max
// tags, their doc comments (through fieldDocs) and Defaults(). An object
// allows other keys exactly where OpenClaw knows more keys than we
// implement, since those are accepted with a warning.
func Schema() []byte {
	known, _ := loadKnownKeys()
	s := objectSchema(reflect.TypeFor[Config](), reflect.ValueOf(Defaults()).Elem(), known)
	s["$schema"] = "http://json-schema.org/draft-07/schema#"
	s["title"] = "OpenClaw gateway config (openclaw-go)"
	out, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic("config: encode schema: " + err.Error()) // only plain values above
	}
	return append(out, '\n')
}

func objectSchema(t reflect.Type, def reflect.Value, known *keyTree) map[string]any {
	props := map[string]any{}
	for _, f := range fieldsOf(t) {
		p := fieldSchema(t.FieldByIndex(f.index).Type, f, def.FieldByIndex(f.index), known.child(f.name))
		if doc := fieldDocs()[f.docKey()]; doc != "" {
			p["description"] = doc
		}
		props[f.name] = p
	}
	s := map[string]any{
		"type":                 "object",
		"properties":           props,
		"additionalProperties": len(known.names()) > len(props) || known.child("\x00") != nil,
	}
	if doc := fieldDocs()[t.Name()]; doc != "" {
		s["description"] = doc
	}
	return s
}

func fieldSchema(t reflect.Type, f fieldInfo, def reflect.Value, known *keyTree) map[string]any {
	if sp, ok := reflect.Zero(t).Interface().(schemaProvider); ok {
		return sp.jsonSchema()
	}
	var s map[string]any
	switch t.Kind() {
	case reflect.String:
		s = map[string]any{"type": "string"}
		if len(f.enum) > 0 {
			s["enum"] = f.enum
		}
	case reflect.Int:
		s = map[string]any{"type": "integer"}
		if f.min != nil {
			s["minimum"] = *f.min
		}
		if f.max != nil {
			s["maximum"] = *f.max
		}
	case reflect.Float64:
		s = map[string]any{"type": "number", "minimum": 0}
	case reflect.Pointer, reflect.Bool:
		s = map[string]any{"type": "boolean"}
	case reflect.Slice:
		s = map[string]any{"type": "array", "items": elemSchema(t.Elem(), f, known.items())}
	case reflect.Map:
		s = map[string]any{"type": "object", "additionalProperties": elemSchema(t.Elem(), f, known.child("*"))}
	case reflect.Struct:
		return objectSchema(t, def, known)
	default:
		panic("config: no schema for kind " + t.Kind().String())
	}
	if !def.IsZero() {
		s["default"] = def.Interface()
	}
	return s
}

// fieldAt finds the struct field for a dotted path of implemented keys and
// returns its doc comment and its value in v.
func fieldAt(v reflect.Value, path string) (doc string, val reflect.Value, ok bool) {
	for _, key := range strings.Split(path, ".") {
		if v.Kind() != reflect.Struct {
			return "", reflect.Value{}, false
		}
		found := false
		for _, f := range fieldsOf(v.Type()) {
			if f.name == key {
				doc = fieldDocs()[f.docKey()]
				v = v.FieldByIndex(f.index)
				found = true
				break
			}
		}
		if !found {
			return "", reflect.Value{}, false
		}
	}
	return doc, v, true
}

// elemSchema is the schema of a list element or map value.
func elemSchema(t reflect.Type, f fieldInfo, known *keyTree) map[string]any {
	if t.Kind() == reflect.String {
		return map[string]any{"type": "string"}
	}
	return fieldSchema(t, fieldInfo{name: f.name, goName: f.goName}, reflect.Zero(t), known)
}
