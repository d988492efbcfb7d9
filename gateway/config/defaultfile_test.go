package config

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// examplePath is the example config at the repository root, generated from
// DefaultFile; go test -run TestExampleFile -update rewrites it.
const examplePath = "../../openclaw.json.example"

const exampleToken = "${OPENCLAW_GATEWAY_TOKEN}"

func TestDefaultFileLoads(t *testing.T) {
	text := DefaultFile(`tok"en\`)
	snap, errs, warns := parseTest(t, string(text), nil)
	if len(errs) > 0 || len(warns) > 0 {
		t.Fatalf("errors %q, warnings %q\n%s", errs, warns, text)
	}
	want := Defaults()
	want.Gateway.Auth.Token = SecretInput{Value: `tok"en\`}
	if !reflect.DeepEqual(snap.Config, want) {
		t.Errorf("config = %+v", snap.Config)
	}
	for _, key := range firstRunKeys {
		last := key[strings.LastIndex(key, ".")+1:]
		if !strings.Contains(string(text), "\n"+strings.Repeat("  ", strings.Count(key, ".")+1)+last+": ") {
			t.Errorf("default file lacks %s", key)
		}
	}
	if strings.Count(string(text), "//") < len(firstRunKeys) {
		t.Error("every key should carry a comment")
	}
}

func TestExampleFile(t *testing.T) {
	want := DefaultFile(exampleToken)
	if *update {
		if err := os.WriteFile(examplePath, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s is out of date; run go test ./gateway/config -run TestExampleFile -update", examplePath)
	}
	snap, errs, warns := parseTest(t, string(got), map[string]string{"OPENCLAW_GATEWAY_TOKEN": "from-env"})
	if len(errs) > 0 || len(warns) > 0 {
		t.Fatalf("errors %q, warnings %q", errs, warns)
	}
	if snap.Config.Gateway.Auth.Token.Value != "from-env" {
		t.Errorf("token = %q", snap.Config.Gateway.Auth.Token.Value)
	}
}

func TestSchema(t *testing.T) {
	var s map[string]any
	if err := json.Unmarshal(Schema(), &s); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	if s["$schema"] != "http://json-schema.org/draft-07/schema#" {
		t.Errorf("$schema = %v", s["$schema"])
	}
	prop := func(path string) map[string]any {
		cur := s
		for _, k := range strings.Split(path, ".") {
			props, _ := cur["properties"].(map[string]any)
			next, ok := props[k].(map[string]any)
			if !ok {
				t.Fatalf("schema has no %s", path)
			}
			cur = next
		}
		return cur
	}
	port := prop("gateway.port")
	if port["type"] != "integer" || port["default"] != 18789.0 || port["minimum"] != 1.0 || port["maximum"] != 65535.0 {
		t.Errorf("gateway.port = %v", port)
	}
	if bind := prop("gateway.bind"); !reflect.DeepEqual(bind["enum"], []any{"loopback", "lan", "tailnet", "auto", "custom"}) || bind["default"] != "loopback" {
		t.Errorf("gateway.bind = %v", bind)
	}
	if en := prop("gateway.controlUi.enabled"); en["type"] != "boolean" || en["default"] != true {
		t.Errorf("gateway.controlUi.enabled = %v", en)
	}
	if tok := prop("gateway.auth.token"); tok["anyOf"] == nil {
		t.Errorf("gateway.auth.token = %v", tok)
	}
	if rl := prop("gateway.auth.rateLimit"); rl["additionalProperties"] != false {
		t.Error("rateLimit has no keys beyond ours, so it must be closed")
	}
	if g := prop("gateway"); g["additionalProperties"] != true {
		t.Error("gateway has OpenClaw keys we do not implement, so it must stay open")
	}
	// Every implemented field is described.
	var walk func(node map[string]any, path string)
	walk = func(node map[string]any, path string) {
		props, _ := node["properties"].(map[string]any)
		for k, v := range props {
			child := v.(map[string]any)
			if child["description"] == nil {
				t.Errorf("%s has no description", JoinPath(path, k))
			}
			walk(child, JoinPath(path, k))
		}
	}
	walk(s, "")
}

// TestEveryFieldDocumented checks fielddocs_gen.go covers every field; the
// generator's own test checks it is byte-for-byte up to date.
func TestEveryFieldDocumented(t *testing.T) {
	var walk func(rt reflect.Type)
	walk = func(rt reflect.Type) {
		for _, f := range fieldsOf(rt) {
			doc := fieldDocs()[f.docKey()]
			if !strings.Contains(doc, "Default") {
				t.Errorf("%s.%s: doc %q does not state the default", rt.Name(), f.goName, doc)
			}
			if ft := rt.FieldByIndex(f.index).Type; ft.Kind() == reflect.Struct && ft != reflect.TypeFor[SecretInput]() {
				walk(ft)
			}
			if ft := rt.FieldByIndex(f.index).Type; ft.Kind() == reflect.Pointer && !strings.Contains(doc, "Default true") {
				t.Errorf("%s.%s: *bool fields must default to true (Changes relies on it)", rt.Name(), f.goName)
			}
		}
	}
	walk(reflect.TypeFor[Config]())
}
