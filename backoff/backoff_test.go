package backoff

import (
	"math"
	"testing"
	"time"
)

func TestDelay(t *testing.T) {
	sec, minute := time.Second, time.Minute
	tests := []struct {
		name    string
		p       Policy
		attempt int
		want    time.Duration
	}{
		{"first", Policy{Min: sec, Max: minute}, 0, sec},
		{"doubles", Policy{Min: sec, Max: minute}, 1, 2 * sec},
		{"fifth", Policy{Min: sec, Max: minute}, 5, 32 * sec},
		{"capped", Policy{Min: sec, Max: minute}, 6, minute},
		{"far", Policy{Min: sec, Max: minute}, 100, minute},
		{"huge attempt", Policy{Min: sec, Max: minute}, math.MaxInt, minute},
		{"huge max does not overflow", Policy{Min: sec, Max: math.MaxInt64}, 100, math.MaxInt64},
		{"min above max", Policy{Min: time.Hour, Max: minute}, 0, minute},
		{"max reached exactly", Policy{Min: 500 * time.Millisecond, Max: 8 * sec}, 4, 8 * sec},
		{"zero", Policy{}, 3, 0},
		{"negative min", Policy{Min: -sec, Max: minute}, 0, 0},
		{"negative max", Policy{Min: sec, Max: -sec}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Delay(tt.attempt); got != tt.want {
				t.Errorf("Delay(%d) = %v, want %v", tt.attempt, got, tt.want)
			}
		})
	}
}

// TestDelayJitter checks that a jittered wait stays in [d/2, d] of the
// unjittered one, and that it does vary.
func TestDelayJitter(t *testing.T) {
	tests := []struct {
		name    string
		p       Policy
		attempt int
	}{
		{"first", Policy{Min: time.Second, Max: time.Minute, Jitter: true}, 0},
		{"doubled", Policy{Min: time.Second, Max: time.Minute, Jitter: true}, 3},
		{"capped", Policy{Min: time.Second, Max: time.Minute, Jitter: true}, 40},
		{"odd nanoseconds", Policy{Min: 3, Max: 7, Jitter: true}, 5},
		{"one nanosecond", Policy{Min: 1, Max: 1, Jitter: true}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plain := tt.p
			plain.Jitter = false
			d := plain.Delay(tt.attempt)
			seen := map[time.Duration]bool{}
			for range 200 {
				got := tt.p.Delay(tt.attempt)
				if got < d/2 || got > d {
					t.Fatalf("Delay(%d) = %v, want within [%v, %v]", tt.attempt, got, d/2, d)
				}
				seen[got] = true
			}
			if d >= time.Millisecond && len(seen) < 2 {
				t.Errorf("200 jittered waits of %v were all %v", d, seen)
			}
		})
	}
}
