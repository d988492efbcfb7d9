package slack

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/channelstest"
	"github.com/openclaw-go/openclaw/channels/slack/slacktest"
)

// TestStopLeavesNoGoroutines: after Stop no goroutine of the adapter or
// of slack-go's socket client is left, whatever it was doing.
func TestStopLeavesNoGoroutines(t *testing.T) {
	tests := []struct {
		name  string
		setup func(fake *slacktest.Server) *recSink
	}{
		{"connected", func(*slacktest.Server) *recSink { return &recSink{} }},
		{"receive failing", func(fake *slacktest.Server) *recSink {
			fake.PushMessage(slacktest.Msg{Channel: "D1", User: "U1", Text: "x"})
			return channelstest.FailingSink(1 << 30)
		}},
		{"auth.test backing off", func(fake *slacktest.Server) *recSink {
			fake.Fail("auth.test", 1000, slacktest.ServerError())
			return &recSink{}
		}},
		{"socket backing off", func(fake *slacktest.Server) *recSink {
			fake.Fail("apps.connections.open", 1000, slacktest.ServerError())
			return &recSink{}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			sink := tt.setup(fake)
			a := newAdapter(t, fake, nil)
			if err := a.Start(context.Background(), sink); err != nil {
				t.Fatal(err)
			}
			fake.WaitCalls("auth.test", 1, waitFor)
			if tt.name == "receive failing" {
				eventually(t, "a failed attempt", func() bool { return len(sink.Attempts()) > 0 })
			}
			ctx, cancel := context.WithTimeout(context.Background(), waitFor)
			defer cancel()
			if err := a.Stop(ctx); err != nil {
				t.Fatal(err)
			}
			if st := sink.Last(); st.State != channels.StateStopped {
				t.Errorf("last status %q, want stopped", st.State)
			}
			eventually(t, "no adapter goroutines", func() bool { return leftover() == "" })
			if err := a.Stop(ctx); err != nil {
				t.Errorf("second Stop: %v", err)
			}
		})
	}
	t.Run("never started", func(t *testing.T) {
		if err := New(Options{}).Stop(context.Background()); err != nil {
			t.Errorf("Stop before Start: %v", err)
		}
	})
}

// leftover returns the stack of a goroutine of this package or of
// slack-go, "" when there is none.
func leftover() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "TestStopLeavesNoGoroutines") || strings.Contains(g, "leftover") {
			continue
		}
		if strings.Contains(g, "openclaw/channels/slack.(*Adapter)") || strings.Contains(g, "slack-go/slack/socketmode") {
			return g
		}
	}
	return ""
}
