package config

import (
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	tests := map[string]time.Duration{"30s": 30 * time.Second, "10m": 10 * time.Minute, "1h30m": 90 * time.Minute,
		"2d": 48 * time.Hour, "1w": 7 * 24 * time.Hour, "1.5h": 90 * time.Minute, "250ms": 250 * time.Millisecond}
	for in, want := range tests {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %s, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "10", "m", "10x", "1h-5m"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) accepted", bad)
		}
	}
}
