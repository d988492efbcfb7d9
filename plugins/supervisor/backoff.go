package supervisor

import "time"

// Backoff is how long a Unit waits before restarting: Min after the first
// failure, doubling per consecutive failure up to Max. Zero means the
// default (Min 1 s, Max 60 s).
type Backoff struct {
	Min, Max time.Duration
}

// Delay returns the wait before restart number attempt (0 is the first).
func (b Backoff) Delay(attempt int) time.Duration {
	lo, hi := b.Min, b.Max
	if lo <= 0 {
		lo = time.Second
	}
	if hi <= 0 {
		hi = time.Minute
	}
	d := lo
	for range attempt {
		if d *= 2; d >= hi {
			return hi
		}
	}
	return min(d, hi)
}

// stable is how long a run must have been up for its end to count as a
// fresh failure rather than part of a crash loop: the longest delay.
func (b Backoff) stable() time.Duration { return b.Delay(64) }
