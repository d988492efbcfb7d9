package whatsapp

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/whatsapp/whatsapptest"
)

func TestStartNotLinked(t *testing.T) {
	fake := whatsapptest.New(types.EmptyJID)
	a := newAdapter(t, fake, nil)
	sink := &recSink{}
	start(t, a, sink)
	eventually(t, "logged-out", func() bool { return sink.Last().State == channels.StateLoggedOut })
	if st := sink.Last(); st.Detail != LinkHint {
		t.Errorf("Detail %q, want %q", st.Detail, LinkHint)
	}
	if n := fake.Connects(); n != 0 {
		t.Errorf("%d Connect calls on an unlinked device, want 0", n)
	}
	_, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: ada.String()}, Text: "hi"})
	var re *channels.RetryableError
	if !errors.Is(err, ErrNotLinked) || errors.As(err, &re) {
		t.Errorf("Send while unlinked: %v, want permanent ErrNotLinked", err)
	}
}

func TestStartNeedsDB(t *testing.T) {
	a := New(Options{AccountID: "main"})
	if err := a.Start(context.Background(), &recSink{}); err == nil {
		t.Fatal("Start without a database succeeded")
	}
	if err := a.Stop(context.Background()); err != nil {
		t.Errorf("Stop of an adapter that never started: %v", err)
	}
}

func TestConnectedReportsBot(t *testing.T) {
	_, _, sink := connected(t, nil)
	if st := sink.Last(); st.Bot != "+4915100000001" {
		t.Errorf("Bot %q, want +4915100000001", st.Bot)
	}
}

func TestInboundThroughFake(t *testing.T) {
	for _, receipts := range []bool{false, true} {
		name := "no read receipts"
		if receipts {
			name = "read receipts"
		}
		t.Run(name, func(t *testing.T) {
			_, fake, sink := connected(t, func(o *Options) { o.SendReadReceipts = receipts })
			if !fake.Emit(whatsapptest.DM(ada, "M1", "hello")) {
				t.Fatal("DM not acknowledged")
			}
			if !fake.Emit(whatsapptest.GroupText(team, ada, "G1", "@bot hi", ownPN)) {
				t.Fatal("group message not acknowledged")
			}
			got := sink.Stored()
			if len(got) != 2 {
				t.Fatalf("stored %d events, want 2", len(got))
			}
			if got[0].Chat.Kind != channels.Direct || got[0].Text != "hello" || got[0].Sender.ID != "+4915200000002" {
				t.Errorf("DM stored as %+v", got[0])
			}
			if got[1].Chat.Kind != channels.Group || !got[1].Mentioned || got[1].Chat.ID != team.String() {
				t.Errorf("group message stored as %+v", got[1])
			}
			reads := fake.Reads()
			if !receipts {
				if len(reads) != 0 {
					t.Errorf("read receipts sent while off: %+v", reads)
				}
				return
			}
			if len(reads) != 2 || reads[0].IDs[0] != "M1" || !reads[0].Sender.IsEmpty() ||
				reads[1].IDs[0] != "G1" || reads[1].Chat != team || reads[1].Sender != ada {
				t.Errorf("read receipts %+v", reads)
			}
		})
	}
}

func TestReceiveFailureNoReadReceipt(t *testing.T) {
	_, fake, sink := connected(t, func(o *Options) { o.SendReadReceipts = true })
	sink.SetFail(receiveAttempts)
	if fake.Emit(whatsapptest.DM(ada, "M1", "hello")) {
		t.Fatal("a message the store refused was acknowledged")
	}
	if u := fake.Unacked(); len(u) != 1 || u[0] != "M1" {
		t.Errorf("unacknowledged %v, want [M1]", u)
	}
	if r := fake.Reads(); len(r) != 0 {
		t.Errorf("read receipt for an unstored message: %+v", r)
	}
	// WhatsApp redelivers it later; then it is stored and read.
	if !fake.Emit(whatsapptest.DM(ada, "M1", "hello")) {
		t.Fatal("redelivery not acknowledged")
	}
	if len(sink.Stored()) != 1 || len(fake.Reads()) != 1 {
		t.Errorf("after redelivery: stored %d, reads %d", len(sink.Stored()), len(fake.Reads()))
	}
}

func TestReceiveRetriesBriefly(t *testing.T) {
	_, fake, sink := connected(t, nil)
	sink.SetFail(receiveAttempts - 1)
	if !fake.Emit(whatsapptest.DM(ada, "M1", "hello")) {
		t.Fatal("not acknowledged after the store recovered")
	}
	if len(sink.Stored()) != 1 {
		t.Errorf("stored %d, want 1", len(sink.Stored()))
	}
}

func TestReconnectWithBackoff(t *testing.T) {
	_, fake, sink := connected(t, nil)
	before := fake.Connects()
	fake.FailConnect(whatsapptest.ErrNetwork, whatsapptest.ErrNetwork)
	fake.Drop()
	eventually(t, "connected again", func() bool {
		return fake.Connects() >= before+3 && sink.Last().State == channels.StateConnected
	})
	var attempts []int
	for _, st := range sink.Statuses() {
		if st.State == channels.StateBackingOff {
			attempts = append(attempts, st.Attempts)
		}
	}
	if len(attempts) < 3 || attempts[0] != 1 || attempts[1] != 2 || attempts[2] != 3 {
		t.Errorf("backing-off attempts %v, want 1, 2, 3", attempts)
	}
	if st := sink.Last(); st.Attempts != 0 {
		t.Errorf("connected with Attempts %d", st.Attempts)
	}
}

func TestBackoffCapped(t *testing.T) {
	a := New(Options{BackoffMin: time.Second, BackoffMax: 8 * time.Second})
	for n := range 40 {
		d := a.backoff(n)
		want := min(time.Second<<min(n, 10), 8*time.Second)
		if d < want/2 || d > want {
			t.Errorf("backoff(%d) = %s, want within [%s, %s]", n, d, want/2, want)
		}
	}
}

func TestSessionEndStopsReconnecting(t *testing.T) {
	tests := []struct {
		name   string
		evt    any
		detail string
		err    error
	}{
		{"logged out", &events.LoggedOut{Reason: events.ConnectFailureLoggedOut}, "logged out from the phone", ErrNotLinked},
		{"temporary ban", &events.TemporaryBan{Code: events.TempBanSentToTooManyPeople, Expire: time.Hour}, "banned by WhatsApp until", ErrSessionEnded},
		{"stream replaced", &events.StreamReplaced{}, "stream replaced", ErrSessionEnded},
		{"client outdated", &events.ClientOutdated{}, "not reconnecting", ErrSessionEnded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, fake, sink := connected(t, nil)
			fake.Emit(tt.evt)
			eventually(t, "logged-out", func() bool { return sink.Last().State == channels.StateLoggedOut })
			if d := sink.Last().Detail; !strings.Contains(d, tt.detail) {
				t.Errorf("Detail %q does not say %q", d, tt.detail)
			}
			eventually(t, "client released", func() bool { return a.currentClient() == nil && !fake.IsConnected() })
			n := fake.Connects()
			fake.Emit(&events.Disconnected{}) // a late event must not restart it
			_, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: ada.String()}, Text: "hi"})
			if !errors.Is(err, tt.err) {
				t.Errorf("Send after the end: %v, want %v", err, tt.err)
			}
			var re *channels.RetryableError
			if errors.As(err, &re) {
				t.Errorf("Send after the end is retryable: %v", err)
			}
			if fake.Connects() != n || sink.Last().State != channels.StateLoggedOut {
				t.Errorf("reconnected after the session ended: %d connects (was %d), state %s",
					fake.Connects(), n, sink.Last().State)
			}
		})
	}
}

func TestStopReportsStopped(t *testing.T) {
	fake := whatsapptest.New(ownJID)
	a := newAdapter(t, fake, nil)
	sink := &recSink{}
	if err := a.Start(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	eventually(t, "connected", func() bool { return sink.Last().State == channels.StateConnected })
	if err := a.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if sink.Last().State != channels.StateStopped || fake.IsConnected() {
		t.Errorf("after Stop: state %s, connected %v", sink.Last().State, fake.IsConnected())
	}
	if err := a.Start(context.Background(), sink); err == nil {
		t.Error("second Start succeeded")
	}
}
