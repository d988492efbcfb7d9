package telegram

import (
	"context"
	"testing"

	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// TestPollStartsAtStoredOffset: updates up to the cursor carried over
// from another install (or kept from the last run) are confirmed by the
// first poll and never handed over again, and the cursor moves on as
// updates are stored. Another bot's cursor is not used.
func TestPollStartsAtStoredOffset(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		botID   int64
		skipped bool // the handled update stays unanswered
	}{
		{"this bot's cursor", telegramtest.BotID, true},
		{"another bot's cursor", telegramtest.BotID + 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := storetest.Open(t, Migrations)
			fake := telegramtest.New(t, testToken)
			handled := fake.AddPrivateText(ada, "answered by the old install")
			fresh := fake.AddPrivateText(ada, "new")
			if ok, err := ImportOffset(ctx, st.DB, "work", tt.botID, handled); err != nil || !ok {
				t.Fatalf("import offset: %v %v", ok, err)
			}
			if ok, _ := ImportOffset(ctx, st.DB, "work", tt.botID, handled); ok {
				t.Fatal("a second import changed the cursor")
			}
			sink := &recSink{}
			a := newAdapter(t, fake, func(o *Options) { o.Offsets = Offsets{DB: st.DB} })
			start(t, a, sink)
			want := 2
			if tt.skipped {
				want = 1
			}
			eventually(t, "stored events", func() bool { return len(sink.Stored()) == want })
			fake.WaitConfirmed(fresh, waitFor)
			if got := sink.Stored()[0].Text; tt.skipped && got != "new" {
				t.Fatalf("first event handed over %q: the handled update came again", got)
			}
			eventually(t, "cursor saved", func() bool {
				last, ok, _ := Offsets{DB: st.DB}.Last(ctx, "work", telegramtest.BotID)
				return ok && last == fresh
			})
		})
	}
}
