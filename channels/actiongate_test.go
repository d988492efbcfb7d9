package channels

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// deletingAdapter is memAdapter with delete and react, counting calls.
type deletingAdapter struct {
	*memAdapter
	mu      sync.Mutex
	deletes int
	reacts  int
}

func (a *deletingAdapter) Delete(ctx context.Context, to Target, id string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.deletes++
	return nil
}

func (a *deletingAdapter) React(ctx context.Context, to Target, id, emoji string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reacts++
	return nil
}

func TestActionsOff(t *testing.T) {
	off, on := false, true
	got := ActionsOff(
		ActionSwitch{Key: "k.send", On: &off, Default: true, Actions: []string{"send", "poll"}},
		ActionSwitch{Key: "k.poll", On: nil, Default: true, Actions: []string{"poll"}},
		ActionSwitch{Key: "k.react", On: &on, Default: false, Actions: []string{"react"}},
		ActionSwitch{Key: "k.sticker", On: nil, Default: false, Actions: []string{"sticker"}},
	)
	want := map[string]string{"send": "k.send", "poll": "k.send", "sticker": "k.sticker"}
	if len(got) != len(want) {
		t.Fatalf("ActionsOff = %v, want %v", got, want)
	}
	for a, k := range want {
		if got[a] != k {
			t.Errorf("ActionsOff[%q] = %q, want %q", a, got[a], k)
		}
	}
}

// A prompt-injected model (or a client with the message RPC) asks to
// delete a message where the channel's actions block turns deletion off:
// the adapter is never called, and the error names the key; what stays
// on still works.
func TestActionSwitchedOffNeverReachesTheAdapter(t *testing.T) {
	off := false
	policy := AccountPolicy{ActionsOff: ActionsOff(
		ActionSwitch{Key: "channels.telegram.actions.deleteMessage", On: &off, Default: true, Actions: []string{"delete"}},
		ActionSwitch{Key: "channels.telegram.actions.reactions", Default: true, Actions: []string{"react"}},
	)}
	ad := &deletingAdapter{memAdapter: newMem()}
	st, err := openTestStore(t, storetest.Place(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	net := Network{Name: "telegram", Label: "Telegram", Accounts: func(*config.Config) []AccountSpec {
		return []AccountSpec{{AccountID: "default", Default: true, Enabled: true, Policy: policy, Fingerprint: "x",
			New: func() (Adapter, error) { return ad, nil }}}
	}}
	m := New(&config.Config{}, Options{Store: st, Dispatcher: &echoAgent{}, Networks: []Network{net},
		DefaultAgent: func(*config.Config) string { return "main" }, TypingInterval: time.Hour})
	m.Start(context.Background())
	defer m.Close(context.Background())

	to := Target{ChatID: "42"}
	_, err = m.Action(context.Background(), ActionRequest{Channel: "telegram", Action: "delete", To: to, MessageID: "7"})
	if err == nil || !strings.Contains(err.Error(), "channels.telegram.actions.deleteMessage") {
		t.Fatalf("delete: err = %v, want a refusal naming the key", err)
	}
	if _, err := m.Action(context.Background(), ActionRequest{Channel: "telegram", Action: "react", To: to, MessageID: "7", Emoji: "👍"}); err != nil {
		t.Fatalf("react: %v", err)
	}
	// The files the message tools send ask the same switches.
	if err := m.ActionAllowed("telegram", "", "delete"); err == nil {
		t.Error("ActionAllowed(delete) = nil with deleteMessage off")
	}
	if err := m.ActionAllowed("", "", "react"); err != nil {
		t.Errorf("ActionAllowed(react) = %v", err)
	}
	ad.mu.Lock()
	defer ad.mu.Unlock()
	if ad.deletes != 0 || ad.reacts != 1 {
		t.Errorf("adapter saw %d deletes and %d reactions, want 0 and 1", ad.deletes, ad.reacts)
	}
}
