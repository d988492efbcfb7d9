package config

import "testing"

func TestLookup(t *testing.T) {
	tree := map[string]any{"gateway": map[string]any{"port": float64(18789), "auth": nil}, "list": []any{1}}
	tests := []struct {
		path  []string
		want  any
		found bool
	}{
		{[]string{"gateway", "port"}, float64(18789), true},
		{[]string{"gateway", "auth"}, nil, true}, // set to null is set
		{[]string{"gateway", "bind"}, nil, false},
		{[]string{"list", "0"}, nil, false}, // arrays are not walked
		{[]string{"gateway", "port", "deeper"}, nil, false},
	}
	for _, tt := range tests {
		got, found := Lookup(tree, tt.path...)
		if found != tt.found || got != tt.want {
			t.Errorf("Lookup(%v) = %v, %v; want %v, %v", tt.path, got, found, tt.want, tt.found)
		}
	}
}
