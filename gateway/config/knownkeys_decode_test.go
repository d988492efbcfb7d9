package config

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// treeFromAny builds the tree the slow way, from encoding/json's generic
// decode, to check the one-pass scanner against.
func treeFromAny(t *testing.T, v any) *keyTree {
	t.Helper()
	switch v := v.(type) {
	case float64:
		if v != 1 {
			t.Fatalf("leaf %v, want 1", v)
		}
		return openTree
	case map[string]any:
		k := &keyTree{}
		for name, sub := range v {
			k.children = append(k.children, keyChild{name, treeFromAny(t, sub)})
		}
		slices.SortFunc(k.children, func(a, b keyChild) int { return strings.Compare(a.name, b.name) })
		return k
	}
	t.Fatalf("unexpected node %T", v)
	return nil
}

func sameTree(a, b *keyTree) bool {
	if a.open || b.open {
		return a.open == b.open
	}
	if len(a.children) != len(b.children) {
		return false
	}
	for _, c := range a.children {
		d := b.named(c.name)
		if d == nil || !sameTree(c.node, d) {
			return false
		}
	}
	return true
}

func TestDecodeKnownKeysMatchesEncodingJSON(t *testing.T) {
	var f struct {
		OpenClaw string `json:"openclaw"`
		Keys     any    `json:"keys"`
	}
	if err := json.Unmarshal(knownKeysJSON, &f); err != nil {
		t.Fatal(err)
	}
	got, version, err := decodeKnownKeys(knownKeysJSON)
	if err != nil {
		t.Fatal(err)
	}
	if version != f.OpenClaw || version == "" {
		t.Fatalf("version %q, want %q", version, f.OpenClaw)
	}
	if !sameTree(got, treeFromAny(t, f.Keys)) {
		t.Fatal("the scanner's tree differs from encoding/json's")
	}
}

func TestDecodeKnownKeys(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		ok       bool
	}{
		{"minimal", `{"openclaw":"1","keys":{"a":1,"b":{"*":1,"[]":{}}}}`, true},
		{"spaces and escapes", " {\n \"openclaw\" : \"2\" ,\r\n\t\"keys\" : { \"a\\u0062\" : 1 } } \n", true},
		{"empty keys object", `{"keys":{}}`, true},
		{"no keys", `{"openclaw":"1"}`, false},
		{"unknown member", `{"keys":{},"extra":1}`, false},
		{"leaf other than 1", `{"keys":{"a":2}}`, false},
		{"unterminated object", `{"keys":{"a":1`, false},
		{"unterminated string", `{"keys":{"a`, false},
		{"missing colon", `{"keys":{"a" 1}}`, false},
		{"trailing data", `{"keys":{}} x`, false},
		{"bad escape", `{"keys":{"\x":1}}`, false},
		{"empty", ``, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, _, err := decodeKnownKeys([]byte(tc.in))
			if tc.ok != (err == nil) {
				t.Fatalf("decodeKnownKeys(%q) = %v, want ok=%v", tc.in, err, tc.ok)
			}
			if tc.ok && tree == nil {
				t.Fatal("no tree")
			}
		})
	}
	tree, _, _ := decodeKnownKeys([]byte(" {\"keys\":{\"a\\u0062\":1}}"))
	if tree.child("ab") == nil {
		t.Fatal("an escaped key was not unescaped")
	}
	// Out of order and repeated names: found by binary search, last wins.
	tree, _, err := decodeKnownKeys([]byte(`{"keys":{"z":1,"b":{"x":1},"a":1,"b":{"y":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := tree.names(); !slices.Equal(got, []string{"a", "b", "z"}) {
		t.Fatalf("names %v", got)
	}
	if b := tree.child("b"); b.child("y") == nil || b.child("x") != nil {
		t.Fatal("a repeated name did not keep its last value")
	}
}

func FuzzDecodeKnownKeys(f *testing.F) {
	f.Add([]byte(`{"openclaw":"1","keys":{"a":1,"b":{"*":1}}}`))
	f.Add(knownKeysJSON[:2000])
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeKnownKeys(data) // must not panic or hang
	})
}

func BenchmarkDecodeKnownKeys(b *testing.B) {
	for b.Loop() {
		if _, _, err := decodeKnownKeys(knownKeysJSON); err != nil {
			b.Fatal(err)
		}
	}
}
