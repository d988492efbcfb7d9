// Package backoff computes the wait before a retry: Min doubled once per
// earlier attempt, capped at Max, optionally jittered. It is a leaf that
// imports nothing of ours, so every part that retries (channel adapters,
// the node host, the plugin supervisor, the model chain) shares one
// formula instead of each doubling its own.
package backoff

import (
	"math/rand/v2"
	"time"
)

// Policy bounds an exponential backoff. The zero Policy waits 0; callers
// with defaults fill them in before use.
type Policy struct {
	// Min is the first wait (attempt 0).
	Min time.Duration
	// Max caps every wait. A Max below Min caps even the first wait.
	Max time.Duration
	// Jitter spreads each wait uniformly over [d/2, d], so many clients
	// failing together do not all come back at the same instant.
	Jitter bool
}

// Delay returns the wait before retry attempt (0 for the first):
// min(Min·2^attempt, Max), jittered if the policy says so. It never
// overflows, however large attempt is, and never returns less than 0.
func (p Policy) Delay(attempt int) time.Duration {
	d := p.Min
	for i := 0; i < attempt && d < p.Max; i++ {
		if d > p.Max/2 {
			d = p.Max
			break
		}
		d *= 2
	}
	d = min(d, p.Max)
	if d <= 0 {
		return 0
	}
	if p.Jitter {
		half := d / 2
		d = half + rand.N(d-half+1)
	}
	return d
}
