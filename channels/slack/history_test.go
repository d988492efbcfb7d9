package slack

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/slack/slacktest"
)

// TestReadingActions runs each reading and workspace action against the
// fake and checks the Web API method and parameters Slack received and
// what the agent gets back.
func TestReadingActions(t *testing.T) {
	fake := newFake(t)
	a := newAdapter(t, fake, nil)
	ctx := context.Background()
	to := channels.Target{ChatID: "C1"}
	first, err := a.Send(ctx, channels.Outbound{To: to, Text: "first"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(ctx, channels.Outbound{To: channels.Target{ChatID: "C1", ThreadID: first.MessageID}, Text: "a reply"}); err != nil {
		t.Fatal(err)
	}
	second, err := a.Send(ctx, channels.Outbound{To: to, Text: "second"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.React(ctx, to, first.MessageID, "eyes"); err != nil {
		t.Fatal(err)
	}
	if err := a.Pin(ctx, to, second.MessageID); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		do     func() (any, error)
		method string
		params map[string]string // parameters the call must carry
		result []string          // substrings of the result as JSON
		not    []string          // nor these
	}{
		{"read", func() (any, error) { return a.Read(ctx, to, channels.ReadQuery{Limit: 5}) },
			"conversations.history", map[string]string{"channel": "C1", "limit": "5"},
			[]string{`"text":"second"`, `"text":"first"`, `"replyCount":1`, `"emoji":"eyes"`}, []string{"a reply"}},
		{"read before", func() (any, error) { return a.Read(ctx, to, channels.ReadQuery{Before: second.MessageID}) },
			"conversations.history", map[string]string{"channel": "C1", "latest": second.MessageID},
			[]string{`"text":"first"`}, []string{`"text":"second"`}},
		{"read a thread", func() (any, error) {
			return a.Read(ctx, channels.Target{ChatID: "C1", ThreadID: first.MessageID}, channels.ReadQuery{})
		},
			"conversations.replies", map[string]string{"channel": "C1", "ts": first.MessageID},
			[]string{`"text":"first"`, `"text":"a reply"`}, []string{`"text":"second"`}},
		{"reactions", func() (any, error) { return a.Reactions(ctx, to, first.MessageID, "", 0) },
			"reactions.get", map[string]string{"channel": "C1", "timestamp": first.MessageID, "full": "true"},
			[]string{`"emoji":"eyes"`, `"users":["` + slacktest.BotUserID}, nil},
		{"list-pins", func() (any, error) { return a.ListPins(ctx, to) },
			"pins.list", map[string]string{"channel": "C1"},
			[]string{`"text":"second"`}, []string{`"text":"first"`}},
		{"thread-list", func() (any, error) { return a.ListThreads(ctx, to, 0) },
			"conversations.history", map[string]string{"channel": "C1"},
			[]string{`"threadTs":"` + first.MessageID, `"replyCount":1`}, []string{`"text":"second"`}},
		{"channel-list", func() (any, error) { return a.ListChannels(ctx, to) },
			"conversations.list", map[string]string{"types": "public_channel,private_channel", "exclude_archived": "true"},
			[]string{`"name":"general"`, `"private":true`}, nil},
		{"emoji-list", func() (any, error) { return a.ListEmojis(ctx, to, 0) },
			"emoji.list", nil,
			[]string{`[{"identifier":"party","name":"party"},{"aliasOf":"party","identifier":"partyparrot","name":"partyparrot"}]`}, nil},
		{"kick", func() (any, error) { return nil, a.Kick(ctx, to, "U2", "rude") },
			"conversations.kick", map[string]string{"channel": "C1", "user": "U2"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(fake.Calls(tt.method))
			res, err := tt.do()
			if err != nil {
				t.Fatal(err)
			}
			calls := fake.Calls(tt.method)
			if len(calls) != before+1 {
				t.Fatalf("%d %s calls, want 1", len(calls)-before, tt.method)
			}
			for k, v := range tt.params {
				if got := calls[before].Params.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			got, _ := json.Marshal(res)
			for _, want := range tt.result {
				if !strings.Contains(string(got), want) {
					t.Errorf("result %s lacks %s", got, want)
				}
			}
			for _, bad := range tt.not {
				if strings.Contains(string(got), bad) {
					t.Errorf("result %s has %s", got, bad)
				}
			}
		})
	}

	// What Slack does not have fails as unsupported, calling nothing.
	before := len(fake.Calls(""))
	for name, err := range map[string]error{
		"search":        func() error { _, err := a.Search(ctx, to, "x", 0); return err }(),
		"thread-create": func() error { _, err := a.CreateThread(ctx, to, channels.ThreadSpec{Name: "x"}); return err }(),
		"ban":           a.Ban(ctx, to, "U2", "", 0),
		"timeout":       a.Timeout(ctx, to, "U2", time.Now(), ""),
	} {
		if !errors.Is(err, channels.ErrUnsupported) {
			t.Errorf("%s: %v, want ErrUnsupported", name, err)
		}
	}
	if n := len(fake.Calls("")) - before; n != 0 {
		t.Errorf("%d calls for unsupported actions", n)
	}
}
