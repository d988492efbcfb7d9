package gateway

import (
	"context"
	"testing"
)

// TestToolAdminParamErrors pins the refusals of tools.setEnabled and
// tools.setTier as clients read them.
func TestToolAdminParamErrors(t *testing.T) {
	r := startGateway(t, nil)
	c, err := r.dial(t, r.token(t), "operator.admin")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		method string
		params any
		want   string
	}{
		{"tools.setEnabled", map[string]any{"name": "exec"}, "invalid tools.setEnabled params: enabled is required"},
		{"tools.setEnabled", map[string]any{"name": 1, "enabled": true}, "invalid tools.setEnabled params: json: cannot unmarshal number into Go struct field .name of type string"},
		{"tools.setTier", map[string]any{"name": "exec", "tier": 7}, "invalid tools.setTier params: json: cannot unmarshal number into Go struct field .tier of type string"},
	}
	for _, tt := range tests {
		err := c.Call(context.Background(), tt.method, tt.params, nil)
		if err == nil || err.Error() != "INVALID_REQUEST: "+tt.want && err.Error() != tt.want {
			t.Errorf("%s %v: err = %v, want %q", tt.method, tt.params, err, tt.want)
		}
	}
}
