package config

import (
	"slices"
	"testing"
)

func TestTreeChanges(t *testing.T) {
	tests := []struct {
		name     string
		old, new map[string]any
		want     []string
	}{
		{"same", map[string]any{"a": map[string]any{"b": 1.0}}, map[string]any{"a": map[string]any{"b": 1.0}}, nil},
		{"nil vs empty", nil, map[string]any{}, nil},
		{"added leaf below a known object", map[string]any{"tools": map[string]any{}},
			map[string]any{"tools": map[string]any{"exec": map[string]any{"host": "node"}}}, []string{"tools.exec"}},
		{"changed and removed", map[string]any{"a": 1.0, "b": "x"}, map[string]any{"a": 2.0}, []string{"a", "b"}},
		{"array compared whole", map[string]any{"l": []any{"x"}}, map[string]any{"l": []any{"x", "y"}}, []string{"l"}},
		{"object replaced by scalar", map[string]any{"o": map[string]any{"k": 1.0}}, map[string]any{"o": true}, []string{"o"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TreeChanges(tt.old, tt.new); !slices.Equal(got, tt.want) {
				t.Errorf("TreeChanges = %q, want %q", got, tt.want)
			}
		})
	}
}
