package channels

import (
	"context"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// TestMentionScopeGatesAgentPatterns: a channel's mentionPatterns object
// decides in which chats the agent's patterns count; a native mention
// counts everywhere.
func TestMentionScopeGatesAgentPatterns(t *testing.T) {
	st, err := openTestStore(t, storetest.Place(t))
	if err != nil {
		t.Fatal(err)
	}
	ad := newMem()
	policy := AccountPolicy{
		Groups:       map[string]GroupPolicy{"*": {Enabled: true, RequireMention: true}},
		MentionScope: &config.MentionPatternScope{Mode: "deny", AllowIn: []string{"-1"}},
	}
	net := Network{Name: "telegram", Label: "Telegram", Accounts: func(*config.Config) []AccountSpec {
		return []AccountSpec{{AccountID: "default", Default: true, Enabled: true, Policy: policy, Fingerprint: "x",
			New: func() (Adapter, error) { return ad, nil }}}
	}}
	m := New(&config.Config{}, Options{Store: st, Dispatcher: &echoAgent{}, Networks: []Network{net},
		DefaultAgent:         func(*config.Config) string { return "main" },
		AgentMentionPatterns: func(*config.Config, string) []string { return []string{`\bclaw\b`} },
		TypingInterval:       time.Hour})
	m.Start(context.Background())
	h := &harness{m: m, ad: ad, st: st}
	t.Cleanup(h.close)

	group := func(event, chat, text string, native bool) Inbound {
		return Inbound{EventID: event, Kind: EventMessage, MessageID: "m" + event, Chat: Chat{ID: chat, Kind: Group},
			Sender: Sender{ID: "7"}, Text: text, Mentioned: native}
	}
	ad.push(t, group("1", "-2", "hey claw", false)) // patterns do not count in -2
	ad.push(t, group("2", "-1", "hey claw", false)) // they do in -1
	ad.push(t, group("3", "-2", "hey you", true))   // a native mention always counts
	h.waitIdle(t)
	for event, want := range map[string]string{"1": "dropped", "2": "answered", "3": "answered"} {
		var got string
		if err := st.DB.QueryRow(`SELECT status FROM channel_inbound WHERE event_id = ?`, event).Scan(&got); err != nil {
			t.Fatalf("event %s: %v", event, err)
		}
		if got != want {
			t.Errorf("event %s: status %q, want %q", event, got, want)
		}
	}
}
