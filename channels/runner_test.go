package channels

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// statusSink records the states reported to it.
type statusSink struct {
	mu     sync.Mutex
	states []Status
}

func (s *statusSink) Receive(context.Context, Inbound) error { return nil }

func (s *statusSink) Status(st Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.states = append(s.states, st)
}

func TestRunner(t *testing.T) {
	for _, forget := range []bool{false, true} {
		r := Runner{Channel: "net", Bot: func() string { return "bot" }, ForgetSink: forget}
		if err := r.Start(context.Background(), nil, func(context.Context) {}); err == nil || err.Error() != "net: Start needs a sink" {
			t.Errorf("Start without a sink: %v", err)
		}
		sink := &statusSink{}
		run := func(ctx context.Context) { <-ctx.Done() }
		if err := r.Start(context.Background(), sink, run); err != nil {
			t.Fatal(err)
		}
		if err := r.Start(context.Background(), sink, run); err == nil || err.Error() != "net: already started" {
			t.Errorf("second Start: %v", err)
		}
		r.Report(Status{State: StateConnected, Bot: "named"})
		if err := r.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := r.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, st := range sink.states {
			if st.At.IsZero() {
				t.Errorf("%s reported without a time", st.State)
			}
			got = append(got, string(st.State)+"/"+st.Bot)
		}
		want := "[starting/bot connected/named stopped/bot]"
		if s := fmt.Sprint(got); s != want {
			t.Errorf("forget=%v: reported %s, want %s", forget, s, want)
		}
		if (r.Sink() == nil) != forget {
			t.Errorf("forget=%v: sink after Stop is %v", forget, r.Sink())
		}
	}
}
