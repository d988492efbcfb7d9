package channels

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestLifecycle(t *testing.T) {
	var l Lifecycle
	if first, err := l.End(context.Background()); first || err != nil {
		t.Fatalf("End before Begin: %v %v", first, err)
	}
	started := make(chan struct{})
	prepared := false
	err := l.Begin(context.Background(), func() { prepared = true }, func(ctx context.Context) {
		close(started)
		<-ctx.Done()
	})
	if err != nil || !prepared {
		t.Fatalf("Begin: %v, prepared %v", err, prepared)
	}
	<-started
	if !l.Running() {
		t.Error("not running after Begin")
	}
	if err := l.Begin(context.Background(), nil, func(context.Context) {}); !errors.Is(err, ErrStarted) {
		t.Errorf("second Begin: %v", err)
	}
	if first, err := l.End(context.Background()); !first || err != nil {
		t.Errorf("End: %v %v", first, err)
	}
	if first, _ := l.End(context.Background()); first {
		t.Error("a second End reported the stop again")
	}
	select {
	case <-l.Done():
	default:
		t.Error("Done not closed after End")
	}
	if l.Running() {
		t.Error("running after End")
	}

	// A loop that does not return in time leaves End with ctx's error.
	var stuck Lifecycle
	release := make(chan struct{})
	stuck.Begin(context.Background(), nil, func(context.Context) { <-release })
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := stuck.End(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("End of a stuck loop: %v", err)
	}
	close(release)
}
