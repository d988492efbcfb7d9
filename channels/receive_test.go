package channels

import (
	"context"
	"errors"
	"testing"
	"time"
)

// flakySink refuses the first fails Receive calls.
type flakySink struct {
	statusSink
	fails, calls int
}

func (s *flakySink) Receive(context.Context, Inbound) error {
	s.calls++
	if s.calls <= s.fails {
		return errors.New("store down")
	}
	return nil
}

func TestReceiveUntilStored(t *testing.T) {
	noWait := func(int, error) time.Duration { return 0 }
	sink := &flakySink{fails: 2}
	var refused []int
	ok := ReceiveUntilStored(context.Background(), sink, Inbound{EventID: "1"}, noWait, func(attempt int, err error) {
		refused = append(refused, attempt)
	})
	if !ok || sink.calls != 3 || len(refused) != 2 || refused[1] != 1 {
		t.Errorf("stored %v after %d calls, refusals %v", ok, sink.calls, refused)
	}

	// A store that never recovers holds the event until ctx ends, and the
	// event is then not to be acknowledged.
	ctx, cancel := context.WithCancel(context.Background())
	down := &flakySink{fails: 1 << 30}
	ok = ReceiveUntilStored(ctx, down, Inbound{EventID: "2"}, func(int, error) time.Duration { return time.Hour }, func(int, error) { cancel() })
	if ok {
		t.Error("reported stored while the store was down")
	}
}
