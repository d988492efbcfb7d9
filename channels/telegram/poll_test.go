package telegram

import (
	"bytes"
	"context"
	"log/slog"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/channelstest"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
)

func TestPollDeliversEveryKind(t *testing.T) {
	fake := telegramtest.New(t, testToken)
	bob := telegramtest.User{ID: 43, FirstName: "Bob"}
	ids := []int64{
		fake.AddPrivateText(ada, "hi"),
		fake.AddGroupText(-1001, bob, "yo @openclaw_test_bot"),
		fake.AddTopicText(-1002, 7, bob, "topic talk"),
		fake.AddEdited(42, 9, ada, "hi (edited)"),
		fake.AddCallback(42, 5001, ada, "approve:1"),
		fake.AddDocument(42, ada, telegramtest.Doc{Name: "a.txt", MIME: "text/plain", Bytes: []byte("abc")}, "see file"),
	}
	sink := &recSink{}
	a := newAdapter(t, fake, nil)
	start(t, a, sink)

	eventually(t, "six stored events", func() bool { return len(sink.Stored()) == len(ids) })
	fake.WaitConfirmed(ids[len(ids)-1], waitFor)

	got := sink.Stored()
	tests := []struct {
		kind      channels.EventKind
		chat      channels.ChatKind
		thread    string
		mentioned bool
		text      string
	}{
		{channels.EventMessage, channels.Direct, "", false, "hi"},
		{channels.EventMessage, channels.Group, "", true, "yo @openclaw_test_bot"},
		{channels.EventMessage, channels.Group, "7", false, "topic talk"},
		{channels.EventEdit, channels.Direct, "", false, "hi (edited)"},
		{channels.EventCallback, channels.Direct, "", false, ""},
		{channels.EventMessage, channels.Direct, "", false, "see file"},
	}
	for i, want := range tests {
		in := got[i]
		if in.EventID != strconv.FormatInt(ids[i], 10) || in.Kind != want.kind || in.Chat.Kind != want.chat ||
			in.Chat.ThreadID != want.thread || in.Mentioned != want.mentioned || in.Text != want.text {
			t.Errorf("event %d = %+v, want %+v (update %d)", i, in, want, ids[i])
		}
	}
	if got[4].CallbackData != "approve:1" || got[4].CallbackID == "" {
		t.Errorf("callback = %+v", got[4])
	}
	if len(got[5].Media) != 1 || got[5].Media[0].Name != "a.txt" {
		t.Errorf("document media = %+v", got[5].Media)
	}
	sts := sink.Statuses()
	if sts[0].State != channels.StateStarting {
		t.Errorf("first status %q, want starting", sts[0].State)
	}
	i := slices.IndexFunc(sts, func(s channels.Status) bool { return s.State == channels.StateConnected })
	if i < 0 || sts[i].Bot != telegramtest.BotUsername {
		t.Errorf("no connected status with the bot's name: %+v", sts)
	}
	if calls := fake.Calls("deleteWebhook"); len(calls) == 0 {
		t.Error("long polling did not remove a webhook first")
	}
}

// TestPersistBeforeAck: an update whose Receive fails stays unconfirmed
// at Telegram and is handed over again until Receive succeeds.
func TestPersistBeforeAck(t *testing.T) {
	fake := telegramtest.New(t, testToken)
	id := fake.AddPrivateText(ada, "keep me")
	later := fake.AddPrivateText(ada, "after")
	sink := channelstest.FailingSink(3)
	start(t, newAdapter(t, fake, nil), sink)

	eventually(t, "two failed attempts", func() bool { return len(sink.Attempts()) >= 2 })
	if !slices.Contains(fake.Pending(), id) {
		t.Fatalf("update %d dropped by Telegram while Receive still failed; pending %v", id, fake.Pending())
	}
	eventually(t, "both stored", func() bool { return len(sink.Stored()) == 2 })
	fake.WaitConfirmed(later, waitFor)

	attempts := sink.Attempts()
	for i, in := range attempts[:4] {
		if in.EventID != strconv.FormatInt(id, 10) {
			t.Errorf("attempt %d was update %s, want %d again (never skip)", i, in.EventID, id)
		}
	}
	stored := sink.Stored()
	if stored[0].EventID != strconv.FormatInt(id, 10) || stored[1].EventID != strconv.FormatInt(later, 10) {
		t.Errorf("stored %s, %s; want %d, %d in order", stored[0].EventID, stored[1].EventID, id, later)
	}
	for _, c := range fake.Calls("getUpdates") {
		if off, _ := strconv.ParseInt(c.Params.Get("offset"), 10, 64); off > later+1 {
			t.Errorf("offset %d skips past the last update %d", off, later)
		}
	}
}

// TestRestartRedelivers: what one run never stored, the next run gets.
func TestRestartRedelivers(t *testing.T) {
	fake := telegramtest.New(t, testToken)
	id := fake.AddPrivateText(ada, "not yet stored")

	down := channelstest.FailingSink(1 << 30)
	first := newAdapter(t, fake, nil)
	if err := first.Start(context.Background(), down); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a failed attempt", func() bool { return len(down.Attempts()) > 0 })
	if err := first.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !down.HasState(channels.StateStopped) {
		t.Error("Stop reported no stopped status")
	}
	if !slices.Contains(fake.Pending(), id) {
		t.Fatalf("update %d confirmed although never stored", id)
	}

	up := &recSink{}
	start(t, newAdapter(t, fake, nil), up)
	eventually(t, "redelivery", func() bool { return len(up.Stored()) == 1 })
	if got := up.Stored()[0]; got.EventID != strconv.FormatInt(id, 10) || got.Text != "not yet stored" {
		t.Errorf("redelivered %+v", got)
	}
	fake.WaitConfirmed(id, waitFor)
}

func TestUnauthorizedLogsOut(t *testing.T) {
	tests := []struct {
		name   string
		revoke func(fake *telegramtest.Server, sink *recSink, t *testing.T)
	}{
		{"at start", func(fake *telegramtest.Server, _ *recSink, _ *testing.T) { fake.RevokeToken() }},
		{"while polling", func(fake *telegramtest.Server, sink *recSink, t *testing.T) {
			eventually(t, "connected", func() bool { return sink.HasState(channels.StateConnected) })
			fake.RevokeToken()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := telegramtest.New(t, testToken)
			sink := &recSink{}
			a := newAdapter(t, fake, nil)
			if tt.name == "at start" {
				tt.revoke(fake, sink, t)
			}
			start(t, a, sink)
			if tt.name != "at start" {
				tt.revoke(fake, sink, t)
			}
			eventually(t, "logged-out", func() bool { return sink.HasState(channels.StateLoggedOut) })
			eventually(t, "loop ended", func() bool {
				select {
				case <-a.life.Done():
					return true
				default:
					return false
				}
			})
			if tt.name == "at start" {
				if n, m := len(fake.Calls("getMe")), len(fake.Calls("getUpdates")); n != 1 || m != 0 {
					t.Errorf("after a refused token: %d getMe and %d getUpdates calls, want 1 and 0", n, m)
				}
			}
		})
	}
}

func TestBackoffAndRecovery(t *testing.T) {
	tests := []struct {
		name   string
		method string
		fault  telegramtest.Fault
	}{
		{"getMe 500", "getMe", telegramtest.ServerError()},
		{"getUpdates 500", "getUpdates", telegramtest.ServerError()},
		{"getUpdates malformed", "getUpdates", telegramtest.Malformed()},
		{"getUpdates 502 text", "getUpdates", telegramtest.APIError(502, "Bad Gateway")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := telegramtest.New(t, testToken)
			fake.Fail(tt.method, 3, tt.fault)
			id := fake.AddPrivateText(ada, "after the storm")
			sink := &recSink{}
			start(t, newAdapter(t, fake, nil), sink)
			eventually(t, "delivery", func() bool { return len(sink.Stored()) == 1 })
			fake.WaitConfirmed(id, waitFor)

			var attempts []int
			for _, st := range sink.Statuses() {
				if st.State == channels.StateBackingOff {
					attempts = append(attempts, st.Attempts)
					if st.LastError == "" {
						t.Error("backing-off status without LastError")
					}
				}
			}
			if !slices.Equal(attempts, []int{1, 2, 3}) {
				t.Errorf("backing-off attempts %v, want [1 2 3]", attempts)
			}
			if last := sink.Statuses(); last[len(last)-1].State != channels.StateConnected {
				t.Errorf("last status %q, want connected", last[len(last)-1].State)
			}
		})
	}
}

// TestTokenNeverLeaks: network errors carry the request URL, which holds
// the token; neither logs nor statuses may show it.
func TestTokenNeverLeaks(t *testing.T) {
	var logs bytes.Buffer
	sink := &recSink{}
	a := New(Options{
		Token:      testToken,
		APIRoot:    "http://127.0.0.1:1", // nothing listens there
		BackoffMin: 1, BackoffMax: 2,
		Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	start(t, a, sink)
	eventually(t, "backing off", func() bool {
		for _, st := range sink.Statuses() {
			if st.State == channels.StateBackingOff && st.Attempts >= 2 {
				return true
			}
		}
		return false
	})
	_, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "42"}, Text: "hi"})
	if err == nil {
		t.Fatal("send to a closed port succeeded")
	}
	var re *channels.RetryableError
	if !asRetryable(err, &re) {
		t.Errorf("network error not retryable: %v", err)
	}
	texts := []string{err.Error()}
	for _, st := range sink.Statuses() {
		texts = append(texts, st.LastError, st.Detail)
	}
	if err := a.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	texts = append(texts, logs.String())
	for _, s := range texts {
		if strings.Contains(s, testToken) || strings.Contains(s, "SECRET") {
			t.Fatalf("token leaked: %s", s)
		}
	}
	if !strings.Contains(err.Error(), "<redacted>") {
		t.Errorf("expected the scrubbed URL in %q", err)
	}
}

// TestStopLeavesNoGoroutines: after Stop no goroutine of the adapter is
// left, whatever it was doing (polling, retrying a failing Receive,
// backing off).
func TestStopLeavesNoGoroutines(t *testing.T) {
	tests := []struct {
		name  string
		setup func(fake *telegramtest.Server) *recSink
	}{
		{"long polling", func(*telegramtest.Server) *recSink { return &recSink{} }},
		{"receive failing", func(fake *telegramtest.Server) *recSink {
			fake.AddPrivateText(ada, "x")
			return channelstest.FailingSink(1 << 30)
		}},
		{"backing off", func(fake *telegramtest.Server) *recSink {
			fake.Fail("getMe", 1000, telegramtest.ServerError())
			return &recSink{}
		}},
		{"hung call", func(fake *telegramtest.Server) *recSink {
			fake.Fail("getUpdates", 1, telegramtest.Hang())
			return &recSink{}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := telegramtest.New(t, testToken)
			sink := tt.setup(fake)
			a := newAdapter(t, fake, nil)
			if err := a.Start(context.Background(), sink); err != nil {
				t.Fatal(err)
			}
			fake.WaitCalls("getMe", 1, waitFor)
			ctx, cancel := context.WithTimeout(context.Background(), waitFor)
			defer cancel()
			if err := a.Stop(ctx); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 1<<20)
			stacks := string(buf[:runtime.Stack(buf, true)])
			if strings.Contains(stacks, "telegram.(*Adapter)") {
				t.Errorf("adapter goroutine left after Stop:\n%s", stacks)
			}
		})
	}
}
