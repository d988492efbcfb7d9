package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
)

// TestMemberAndTopicActions runs each new action against the fake and
// checks the Bot API method and parameters Telegram received.
func TestMemberAndTopicActions(t *testing.T) {
	ctx := context.Background()
	fake := telegramtest.New(t, testToken)
	a := newAdapter(t, fake, nil)
	group := channels.Target{ChatID: "-1005"}
	until := time.Now().Add(time.Hour).Truncate(time.Second)
	tests := []struct {
		name    string
		do      func() (any, error)
		methods []string          // the calls made, in order
		params  map[string]string // parameters of the first
		result  []string          // substrings of the result as JSON
	}{
		{"thread-create with a first message", func() (any, error) {
			return a.CreateThread(ctx, group, channels.ThreadSpec{Name: "Plans", Text: "let's plan"})
		}, []string{"createForumTopic", "sendMessage"}, map[string]string{"chat_id": "-1005", "name": "Plans"}, []string{`"name":"Plans"`, `"threadId":"10`, `"messageId"`}},
		{"sticker in a topic", func() (any, error) {
			return a.SendSticker(ctx, channels.Target{ChatID: "-1005", ThreadID: "7"}, []string{"CAACAgIAAx"}, "")
		}, []string{"sendSticker"}, map[string]string{"chat_id": "-1005", "sticker": "CAACAgIAAx", "message_thread_id": "7"}, []string{`"MessageID":"`}},
		{"timeout", func() (any, error) { return nil, a.Timeout(ctx, group, "42", until, "spam") },
			[]string{"restrictChatMember"}, map[string]string{"chat_id": "-1005", "user_id": "42", "until_date": strconv.FormatInt(until.Unix(), 10)}, nil},
		{"timeout lifted", func() (any, error) { return nil, a.Timeout(ctx, group, "42", time.Time{}, "") },
			[]string{"getChat", "restrictChatMember"}, map[string]string{"chat_id": "-1005"}, nil},
		{"kick", func() (any, error) { return nil, a.Kick(ctx, group, "42", "") },
			[]string{"banChatMember", "unbanChatMember"}, map[string]string{"chat_id": "-1005", "user_id": "42"}, nil},
		{"ban deleting messages", func() (any, error) { return nil, a.Ban(ctx, group, "42", "", 1) },
			[]string{"banChatMember"}, map[string]string{"chat_id": "-1005", "user_id": "42", "revoke_messages": "true"}, nil},
		{"permissions of the bot", func() (any, error) { return a.Permissions(ctx, group, strconv.FormatInt(telegramtest.BotID, 10)) },
			[]string{"getChatMember"}, map[string]string{"chat_id": "-1005"}, []string{`"status":"administrator"`, `"can_restrict_members":true`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(fake.Calls(""))
			res, err := tt.do()
			if err != nil {
				t.Fatal(err)
			}
			calls := fake.Calls("")[before:]
			var got []string
			for _, c := range calls {
				got = append(got, c.Method)
			}
			if strings.Join(got, ",") != strings.Join(tt.methods, ",") {
				t.Fatalf("calls %v, want %v", got, tt.methods)
			}
			for k, v := range tt.params {
				if p := calls[0].Params.Get(k); p != v {
					t.Errorf("%s = %q, want %q", k, p, v)
				}
			}
			b, _ := json.Marshal(res)
			for _, want := range tt.result {
				if !strings.Contains(string(b), want) {
					t.Errorf("result %s lacks %s", b, want)
				}
			}
		})
	}
	var perms map[string]bool
	if err := json.Unmarshal([]byte(fake.Calls("restrictChatMember")[0].Params.Get("permissions")), &perms); err != nil || perms["can_send_messages"] {
		t.Errorf("timeout permissions %v, %v", perms, err)
	}
	var lifted map[string]bool
	if err := json.Unmarshal([]byte(fake.Calls("restrictChatMember")[1].Params.Get("permissions")), &lifted); err != nil || !lifted["can_send_messages"] {
		t.Errorf("lifted permissions %v, %v: want sending back on", lifted, err)
	}
	if u := fake.Calls("unbanChatMember")[0].Params.Get("only_if_banned"); u != "true" {
		t.Errorf("kick's unban only_if_banned = %q", u)
	}
	if m := fake.Sent(); m[0].ThreadID == 0 || m[0].Text == "" {
		t.Errorf("topic's first message %+v", m[0])
	}

	// What the Bot API does not have, or Telegram would misread, fails
	// before any call.
	before := len(fake.Calls(""))
	_, errList := a.ListThreads(ctx, group, 0)
	_, errOnMsg := a.CreateThread(ctx, group, channels.ThreadSpec{Name: "x", MessageID: "5"})
	if !errors.Is(errList, channels.ErrUnsupported) || !errors.Is(errOnMsg, channels.ErrUnsupported) {
		t.Errorf("thread-list %v, thread on a message %v: want ErrUnsupported", errList, errOnMsg)
	}
	if err := a.Timeout(ctx, group, "42", time.Now().Add(10*time.Second), ""); err == nil {
		t.Error("a 10-second timeout (forever, to Telegram) was accepted")
	}
	if n := len(fake.Calls("")) - before; n != 0 {
		t.Errorf("%d calls for refused actions", n)
	}
}
