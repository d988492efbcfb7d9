package main

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// TestFieldDocsUpToDate fails when types.go changed without go generate.
func TestFieldDocsUpToDate(t *testing.T) {
	src, err := os.ReadFile("../../types.go")
	if err != nil {
		t.Fatal(err)
	}
	want, err := fieldDocs("types.go", src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../fielddocs_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("fielddocs_gen.go is stale; run go generate ./gateway/config")
	}
}

func TestFieldDocsRequiresDocs(t *testing.T) {
	src := []byte("package config\n\ntype T struct {\n\t// A is documented.\n\tA int\n\tB int\n}\n")
	if _, err := fieldDocs("x.go", src); err == nil {
		t.Error("an undocumented field must fail generation")
	}
}

func TestKnownKeysWalk(t *testing.T) {
	schema := `{
	  "type": "object", "additionalProperties": false,
	  "properties": {
	    "strict": {"type": "object", "additionalProperties": false, "properties": {"a": {"type": "string"}}},
	    "open": {"type": "object", "properties": {"a": {"type": "string"}}},
	    "loose": {"type": "object"},
	    "record": {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": false, "properties": {"x": {"type": "number"}}}},
	    "union": {"anyOf": [{"type": "string"}, {"type": "object", "additionalProperties": false, "properties": {"p": {"type": "string"}}}]},
	    "list": {"type": "array", "items": {"type": "object", "additionalProperties": false, "properties": {"id": {"type": "string"}}}},
	    "strings": {"type": "array", "items": {"type": "string"}},
	    "ref": {"$defs": {"d": {"type": "object", "additionalProperties": false, "properties": {"z": {}}}}, "$ref": "#/$defs/d"},
	    "pattern": {"type": "object", "additionalProperties": false, "patternProperties": {"^x": {"type": "string"}}}
	  }
	}`
	out, err := knownKeys([]byte(schema), "1.0")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := map[string]any{
		"openclaw": "1.0",
		"keys": map[string]any{
			"strict":  map[string]any{"a": 1.0},
			"open":    map[string]any{"a": 1.0, "*": 1.0},
			"loose":   1.0,
			"record":  map[string]any{"*": map[string]any{"x": 1.0}},
			"union":   map[string]any{"p": 1.0},
			"list":    map[string]any{"[]": map[string]any{"id": 1.0}},
			"strings": 1.0,
			"ref":     map[string]any{"z": 1.0},
			"pattern": map[string]any{"*": 1.0},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %s", out)
	}
}
