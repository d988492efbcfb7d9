package channels

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

type failingAgent struct{}

func (failingAgent) Dispatch(ctx context.Context, d Dispatch) (Reply, error) {
	return Reply{}, errors.New("model unavailable")
}

// errorPolicy: "always" tells every failure, "once" each distinct one
// once per cooldown, "silent" none; a group's setting wins over the
// account's.
func TestErrorPolicy(t *testing.T) {
	tests := []struct {
		name, account, group string
		clockStep            time.Duration
		want                 int // error replies to three failures
	}{
		{"always", "", "", 0, 3},
		{"once", "once", "", time.Minute, 1},
		{"once, after the cooldown", "once", "", 5 * time.Hour, 3},
		{"silent", "silent", "", 0, 0},
		{"group silences", "always", "silent", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
			policy := AccountPolicy{GroupPolicy: "open", ErrorPolicy: tt.account,
				Groups: map[string]GroupPolicy{"g": {Enabled: true, ErrorPolicy: tt.group}}}
			ad := newMem()
			st, err := openTestStore(t, storetest.Place(t))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			net := Network{Name: "telegram", Label: "Telegram", Accounts: func(*config.Config) []AccountSpec {
				return []AccountSpec{{AccountID: "default", Default: true, Enabled: true, Policy: policy, Fingerprint: "x",
					New: func() (Adapter, error) { return ad, nil }}}
			}}
			m := New(&config.Config{}, Options{Store: st, Dispatcher: failingAgent{}, Networks: []Network{net}, Now: clock.Now,
				DefaultAgent: func(*config.Config) string { return "main" }, TypingInterval: time.Hour})
			m.Start(context.Background())
			defer m.Close(context.Background())
			h := &harness{m: m, ad: ad, st: st}
			for i := range 3 {
				ad.push(t, Inbound{Channel: "telegram", AccountID: "default", EventID: string(rune('a' + i)), Kind: EventMessage,
					MessageID: "m", Chat: Chat{ID: "g", Kind: Group}, Sender: Sender{ID: "u"}, Text: "hi", Mentioned: true})
				h.waitIdle(t)
				clock.Add(tt.clockStep)
			}
			if tt.want > 0 {
				ad.waitSent(t, tt.want)
			}
			ad.mu.Lock()
			defer ad.mu.Unlock()
			if len(ad.sent) != tt.want {
				t.Errorf("%d error replies, want %d", len(ad.sent), tt.want)
			}
		})
	}
}
