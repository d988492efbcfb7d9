package mcp

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	m := &Manager{MinBackoff: time.Second, MaxBackoff: time.Minute}
	tests := []struct {
		attempt int
		want    time.Duration
	}{{0, time.Second}, {1, 2 * time.Second}, {5, 32 * time.Second}, {6, time.Minute}, {100, time.Minute}}
	for _, tt := range tests {
		if got := m.backoff(tt.attempt); got != tt.want {
			t.Errorf("backoff(%d) = %v, want %v", tt.attempt, got, tt.want)
		}
	}
	if got := (&Manager{}).backoff(0); got != time.Second {
		t.Errorf("default first backoff = %v", got)
	}
}
