package channels

import (
	"context"
	"time"
)

// ReceiveUntilStored hands in to sink until Receive accepts it, for
// adapters whose network redelivers nothing they have acknowledged: it
// returns true once in is stored and may be acknowledged, false when ctx
// ended first (then it must not be). Between refusals it calls refused,
// where the adapter logs in its own words, and waits backoff(attempt, nil).
func ReceiveUntilStored(ctx context.Context, sink Sink, in Inbound, backoff func(attempt int, err error) time.Duration, refused func(attempt int, err error)) bool {
	for attempt := 0; ; attempt++ {
		err := sink.Receive(ctx, in)
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		refused(attempt, err)
		if !Sleep(ctx, backoff(attempt, nil)) {
			return false
		}
	}
}
