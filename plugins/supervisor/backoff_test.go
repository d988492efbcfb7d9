package supervisor

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	tests := []struct {
		name    string
		b       Backoff
		attempt int
		want    time.Duration
	}{
		{"first", Backoff{time.Second, time.Minute}, 0, time.Second},
		{"doubles", Backoff{time.Second, time.Minute}, 1, 2 * time.Second},
		{"fifth", Backoff{time.Second, time.Minute}, 5, 32 * time.Second},
		{"capped", Backoff{time.Second, time.Minute}, 6, time.Minute},
		{"far", Backoff{time.Second, time.Minute}, 100, time.Minute},
		{"default min", Backoff{}, 0, time.Second},
		{"default max", Backoff{}, 64, time.Minute},
		{"min above max", Backoff{time.Hour, time.Minute}, 0, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.b.Delay(tt.attempt); got != tt.want {
				t.Errorf("Delay(%d) = %v, want %v", tt.attempt, got, tt.want)
			}
		})
	}
}
