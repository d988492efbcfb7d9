package channels

import (
	"context"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// textAgent answers after streaming text (OnText) when text is true, or
// answers nothing without streaming any.
type textAgent struct{ text bool }

func (a textAgent) Dispatch(ctx context.Context, d Dispatch) (Reply, error) {
	if !a.text {
		return Reply{}, nil
	}
	if d.OnTextStart != nil {
		d.OnTextStart()
		d.OnTextStart() // every piece calls it: the indicator still starts once
	}
	return Reply{Text: "hi"}, nil
}

// TestTypingMode: agents.defaults.typingMode decides whether a turn
// shows the typing indicator, and when; unset, a direct chat or a
// mention types at once and an unmentioned group message only once text
// streams.
func TestTypingMode(t *testing.T) {
	cases := []struct {
		name      string
		mode      string
		kind      ChatKind
		mentioned bool
		text      bool
		want      int // Typing calls (the interval is an hour: one per turn that types)
	}{
		{"unset direct, no text", "", Direct, false, false, 1},
		{"unset group mentioned, no text", "", Group, true, false, 1},
		{"unset group unmentioned, no text", "", Group, false, false, 0},
		{"unset group unmentioned, text", "", Group, false, true, 1},
		{"never", "never", Direct, false, true, 0},
		{"instant in a group", "instant", Group, false, false, 1},
		{"message, no text", "message", Direct, false, false, 0},
		{"message, text", "message", Direct, false, true, 1},
		{"thinking: no reasoning streams here", "thinking", Direct, false, true, 0},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, err := openTestStore(t, storetest.Place(t))
			if err != nil {
				t.Fatal(err)
			}
			ad := newMem()
			policy := AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}, GroupPolicy: "open",
				Groups: map[string]GroupPolicy{"*": {Enabled: true, RequireMention: false}}}
			net := Network{Name: "telegram", Label: "Telegram", Accounts: func(*config.Config) []AccountSpec {
				return []AccountSpec{{AccountID: "default", Default: true, Enabled: true, Policy: policy, Fingerprint: "x",
					New: func() (Adapter, error) { return ad, nil }}}
			}}
			cfg := &config.Config{}
			cfg.Agents.Defaults.TypingMode = c.mode
			m := New(cfg, Options{Store: st, Dispatcher: textAgent{text: c.text}, Networks: []Network{net},
				DefaultAgent: func(*config.Config) string { return "main" }, TypingInterval: time.Hour})
			m.Start(context.Background())
			h := &harness{m: m, ad: ad, st: st}
			t.Cleanup(h.close)
			ad.push(t, Inbound{EventID: "e" + string(rune('a'+i)), Kind: EventMessage, MessageID: "m1", Chat: Chat{ID: "-5", Kind: c.kind},
				Sender: Sender{ID: "7"}, Text: "hello", Mentioned: c.mentioned})
			h.waitIdle(t)
			ad.mu.Lock()
			got := ad.typing
			ad.mu.Unlock()
			if got != c.want {
				t.Errorf("typing calls = %d, want %d", got, c.want)
			}
		})
	}
}

func TestTypingInterval(t *testing.T) {
	cfg := &config.Config{}
	m := &Manager{}
	if got := m.typingInterval(cfg); got != 6*time.Second {
		t.Errorf("unset = %v, want 6s", got)
	}
	cfg.Agents.Defaults.TypingIntervalSeconds = 2
	if got := m.typingInterval(cfg); got != 2*time.Second {
		t.Errorf("typingIntervalSeconds 2 = %v", got)
	}
}
