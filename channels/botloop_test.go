package channels

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

func TestBotLoopFor(t *testing.T) {
	off := false
	tests := []struct {
		name   string
		layers []config.BotLoopProtection
		want   BotLoop
	}{
		{"built-in", nil, BotLoop{Max: 20, Window: time.Minute, Cooldown: time.Minute}},
		{"key by key", []config.BotLoopProtection{{MaxEventsPerWindow: 5}, {CooldownSeconds: 90, MaxEventsPerWindow: 8}, {WindowSeconds: 30}},
			BotLoop{Max: 5, Window: 30 * time.Second, Cooldown: 90 * time.Second}},
		{"off", []config.BotLoopProtection{{}, {Enabled: &off}}, BotLoop{Off: true, Max: 20, Window: time.Minute, Cooldown: time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := BotLoopFor(tt.layers...); got != tt.want {
				t.Errorf("BotLoopFor = %+v, want %+v", got, tt.want)
			}
		})
	}
}

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Two bots that admit each other's messages would answer each other
// forever: past the budget the other bot is ignored in that chat for the
// cooldown, while people there are still answered.
func TestBotLoopProtectionStopsAPingPong(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	policy := AccountPolicy{GroupPolicy: "open", AllowBots: true,
		Groups:  map[string]GroupPolicy{"*": {Enabled: true}},
		BotLoop: BotLoop{Max: 3, Window: time.Minute, Cooldown: time.Minute}}
	ad := newMem()
	st, err := openTestStore(t, storetest.Place(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	net := Network{Name: "discord", Label: "Discord", Accounts: func(*config.Config) []AccountSpec {
		return []AccountSpec{{AccountID: "default", Default: true, Enabled: true, Policy: policy, Fingerprint: "x",
			New: func() (Adapter, error) { return ad, nil }}}
	}}
	m := New(&config.Config{}, Options{Store: st, Dispatcher: &echoAgent{}, Networks: []Network{net}, Now: clock.Now,
		DefaultAgent: func(*config.Config) string { return "main" }, TypingInterval: time.Hour})
	m.Start(context.Background())
	defer m.Close(context.Background())
	h := &harness{m: m, ad: ad, st: st}

	n := 0
	from := func(sender string, bot, answered bool) {
		n++
		ad.push(t, Inbound{Channel: "discord", AccountID: "default", EventID: time.Duration(n).String(), Kind: EventMessage,
			MessageID: time.Duration(n).String(), Chat: Chat{ID: "room", Kind: Channel}, Sender: Sender{ID: sender, IsBot: bot}, Text: "ping"})
		h.waitIdle(t)
		if answered {
			ad.waitSent(t, 1)
		}
		clock.Add(time.Second)
	}
	for i := range 5 {
		from("otherbot", true, i < 3)
	}
	from("human", false, true)
	ad.mu.Lock()
	got := len(ad.sent)
	ad.mu.Unlock()
	if got != 4 {
		t.Fatalf("%d replies, want 3 to the bot and 1 to the person", got)
	}
	var status string
	if err := st.DB.QueryRow(`SELECT status FROM channel_inbound WHERE event_id = ?`, time.Duration(4).String()).Scan(&status); err != nil {
		t.Fatal(err)
	}
	if status != "dropped" {
		t.Errorf("the fourth bot message is %q, want dropped", status)
	}
	clock.Add(time.Minute) // the cooldown passes
	from("otherbot", true, true)
}
