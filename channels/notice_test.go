package channels

import (
	"context"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// noticeAgent sends two notices during its turn, then answers.
type noticeAgent struct{}

func (noticeAgent) Dispatch(ctx context.Context, d Dispatch) (Reply, error) {
	if d.OnNotice != nil {
		d.OnNotice("Compacting context...")
		d.OnNotice("Compaction complete")
	}
	return Reply{Text: "the answer"}, nil
}

// TestTurnNoticesReachTheChat: notices a turn sends (a compaction under
// way) reach the chat it answers, in order and before the answer, in the
// same thread.
func TestTurnNoticesReachTheChat(t *testing.T) {
	st, err := openTestStore(t, storetest.Place(t))
	if err != nil {
		t.Fatal(err)
	}
	ad := newMem()
	policy := AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}}
	net := Network{Name: "telegram", Label: "Telegram", Accounts: func(*config.Config) []AccountSpec {
		return []AccountSpec{{AccountID: "default", Default: true, Enabled: true, Policy: policy, Fingerprint: "x",
			New: func() (Adapter, error) { return ad, nil }}}
	}}
	m := New(&config.Config{}, Options{Store: st, Dispatcher: noticeAgent{}, Networks: []Network{net},
		DefaultAgent: func(*config.Config) string { return "main" }, TypingInterval: time.Hour})
	m.Start(context.Background())
	h := &harness{m: m, ad: ad, st: st}
	t.Cleanup(h.close)
	ad.push(t, Inbound{EventID: "n1", Kind: EventMessage, MessageID: "m1", Chat: Chat{ID: "42", Kind: Direct, ThreadID: "t9"},
		Sender: Sender{ID: "7"}, Text: "hello"})
	var got []Outbound
	for len(got) < 3 {
		select {
		case o := <-ad.sentCh:
			got = append(got, o)
		case <-time.After(10 * time.Second):
			t.Fatalf("sent %d messages, want 2 notices and the answer: %+v", len(got), got)
		}
	}
	want := []string{"Compacting context...", "Compaction complete", "the answer"}
	for i, o := range got {
		if o.Text != want[i] || o.To.ChatID != "42" || o.To.ThreadID != "t9" {
			t.Errorf("message %d = %q to %+v, want %q to chat 42 thread t9", i, o.Text, o.To, want[i])
		}
	}
}
