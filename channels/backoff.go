package channels

import (
	"context"
	"errors"
	"time"

	"github.com/openclaw-go/openclaw/backoff"
)

// Backoff is the wait before retry attempt+1: exponential from lo,
// capped at hi, with jitter so many chats or accounts retrying at once do
// not hit a network together; and at least what the network asked for
// (a *RetryableError's After, from 429 Retry-After).
func Backoff(lo, hi time.Duration, attempt int, err error) time.Duration {
	d := backoff.Policy{Min: lo, Max: hi, Jitter: true}.Delay(attempt)
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
