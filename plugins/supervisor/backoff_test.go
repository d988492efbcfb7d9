package supervisor

import (
	"log/slog"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/backoff"
)

// TestUnitBackoff checks the restart delays a Unit waits, defaults
// included; the formula itself is the backoff package's.
func TestUnitBackoff(t *testing.T) {
	tests := []struct {
		name    string
		b       backoff.Policy
		attempt int
		want    time.Duration
	}{
		{"first", backoff.Policy{Min: time.Second, Max: time.Minute}, 0, time.Second},
		{"doubles", backoff.Policy{Min: time.Second, Max: time.Minute}, 1, 2 * time.Second},
		{"capped", backoff.Policy{Min: time.Second, Max: time.Minute}, 6, time.Minute},
		{"default min", backoff.Policy{}, 0, DefaultBackoffMin},
		{"default max", backoff.Policy{}, 64, DefaultBackoffMax},
		{"default max above a set min", backoff.Policy{Min: 300 * time.Millisecond}, 64, DefaultBackoffMax},
		{"min above max", backoff.Policy{Min: time.Hour, Max: time.Minute}, 0, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := NewUnit(slog.New(slog.DiscardHandler), "thing", tt.b, nil)
			if got := u.backoff.Delay(tt.attempt); got != tt.want {
				t.Errorf("Delay(%d) = %v, want %v", tt.attempt, got, tt.want)
			}
			if u.backoff.Jitter {
				t.Error("restarts are jittered; the supervisor never was")
			}
		})
	}
}
