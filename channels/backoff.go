package channels

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// Backoff is the wait before retry attempt+1: exponential from lo,
// capped at hi, with jitter so many chats or accounts retrying at once do
// not hit a network together; and at least what the network asked for
// (a *RetryableError's After, from 429 Retry-After).
func Backoff(lo, hi time.Duration, attempt int, err error) time.Duration {
	d := lo
	for i := 0; i < attempt && d < hi; i++ {
		d *= 2
	}
	d = min(d, hi)
	d = d/2 + rand.N(d/2+1)
	var re *RetryableError
	if errors.As(err, &re) && re.After > d {
		d = re.After
	}
	return d
}

// Sleep waits d or until ctx ends; false means ctx ended.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
