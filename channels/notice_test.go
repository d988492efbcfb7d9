package channels

import (
	"context"
	"slices"
	"strings"
	"sync"
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

// TestSkillCommandsMenu: the command menu holds the skills' commands
// when commands.nativeSkills (or the network's own commands.nativeSkills)
// is on, which "auto" is for a network with a menu; never past
// commands.native false, never in place of a built-in command, and each
// description cut to what the networks take.
func TestSkillCommandsMenu(t *testing.T) {
	long := strings.Repeat("d", 150)
	skills := []Command{{Name: "weather", Description: "Forecasts"}, {Name: "new", Description: "a skill named like /new"}, {Name: "wordy", Description: long}}
	builtin := len(NativeCommands)
	tests := []struct {
		name    string
		global  config.Commands
		channel config.ChannelCommandSettings
		want    []string // menu names after the built-in ones; nil: only those
		cleared bool
	}{
		{name: "auto", want: []string{"weather", "wordy"}},
		{name: "nativeSkills false", global: config.Commands{NativeSkills: "false"}},
		{name: "the network's false wins", global: config.Commands{NativeSkills: "true"}, channel: config.ChannelCommandSettings{NativeSkills: "false"}},
		{name: "the network's true wins", global: config.Commands{NativeSkills: "false"}, channel: config.ChannelCommandSettings{NativeSkills: "true"}, want: []string{"weather", "wordy"}},
		{name: "native false clears everything", global: config.Commands{Native: "false", NativeSkills: "true"}, cleared: true},
		{name: "the network's native false clears it", channel: config.ChannelCommandSettings{Native: "false"}, cleared: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := openTestStore(t, storetest.Place(t))
			if err != nil {
				t.Fatal(err)
			}
			ad := newMem()
			net := Network{Name: "telegram", Label: "Telegram", Accounts: func(*config.Config) []AccountSpec {
				return []AccountSpec{{AccountID: "default", Default: true, Enabled: true, Policy: AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}},
					Fingerprint: "x", Commands: tt.channel, New: func() (Adapter, error) { return ad, nil }}}
			}}
			var asked []string
			var mu sync.Mutex
			m := New(&config.Config{Commands: tt.global}, Options{Store: st, Dispatcher: noticeAgent{}, Networks: []Network{net},
				DefaultAgent: func(*config.Config) string { return "main" }, TypingInterval: time.Hour,
				SkillCommands: func(_ context.Context, agentID string) []Command {
					mu.Lock()
					asked = append(asked, agentID)
					mu.Unlock()
					return skills
				}})
			m.Start(context.Background())
			h := &harness{m: m, ad: ad, st: st}
			t.Cleanup(h.close)
			waitFor(t, func() bool { ad.mu.Lock(); defer ad.mu.Unlock(); return len(ad.menus) == 1 })
			ad.mu.Lock()
			menu := ad.menus[0]
			ad.mu.Unlock()
			if tt.cleared {
				if len(menu) != 0 {
					t.Fatalf("menu %v, want it cleared", menu)
				}
				return
			}
			var names []string
			for _, c := range menu[builtin:] {
				names = append(names, c.Name)
				if n := len([]rune(c.Description)); n == 0 || n > 100 {
					t.Errorf("/%s description has %d characters", c.Name, n)
				}
			}
			if !slices.Equal(names, tt.want) || menu[0].Name != NativeCommands[0].Name {
				t.Fatalf("menu %v, want the built-in commands then %v", menu, tt.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if tt.want != nil && (len(asked) != 1 || asked[0] != "main") {
				t.Errorf("skills asked for agents %v, want the default agent", asked)
			}
		})
	}
}
