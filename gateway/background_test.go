package gateway

import (
	"context"
	"testing"
)

// TestBackgroundAfterClose: a background exec that ends while the
// gateway stops still wakes its agent; once the stop waits for the
// background work, that wake is dropped instead of growing a WaitGroup
// being waited on (a data race, and a panic when the count had reached
// zero).
func TestBackgroundAfterClose(t *testing.T) {
	s := &System{bg: context.Background()}
	done := make(chan struct{})
	s.inBackground(func(context.Context) { close(done) })
	<-done
	s.closeBackground()
	ran := false
	s.inBackground(func(context.Context) { ran = true })
	s.closeBackground()
	if ran {
		t.Fatal("background work started after the gateway closed it")
	}
}
