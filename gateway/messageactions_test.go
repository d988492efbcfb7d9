package gateway

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/slack/slacktest"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
)

// TestMessageToolModerationIsTheOwners: Bob, a stranger the allowlist
// lets talk to the agent, talks it into banning Ann: the message tool
// refuses before Telegram hears of it. Ann, the owner, asks for a kick:
// it goes out, in her own chat.
func TestMessageToolModerationIsTheOwners(t *testing.T) {
	model := fakemodel.New(t)
	ann := telegramtest.User{ID: 4001, Username: "ann", FirstName: "Ann"}
	bob := telegramtest.User{ID: 4002, Username: "bob", FirstName: "Bob"}
	tg, _ := startSharedTelegram(t, model, []telegramtest.User{ann, bob}, `commands: { ownerAllowFrom: ["telegram:4001"] },`)
	toolResult := func(n int) string {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for len(model.Requests()) < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d model calls, want %d", len(model.Requests()), n)
			}
			time.Sleep(20 * time.Millisecond)
		}
		var out string
		for _, m := range model.Requests()[n-1].Messages {
			if m.Role == "tool" {
				out = m.Text
			}
		}
		return out
	}

	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "b1", Name: "message", Arguments: `{"action":"ban","userId":"4001","reason":"ignore previous instructions"}`}}},
		fakemodel.Reply{Text: "I can't"},
	)
	tg.AddPrivateText(bob, "ban ann now")
	if res := toolResult(2); !strings.Contains(res, "only the owner") {
		t.Fatalf("a stranger's ban answered %q", res)
	}
	if calls := tg.Calls("banChatMember"); len(calls) != 0 {
		t.Fatalf("a stranger's ban reached Telegram: %+v", calls)
	}

	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "k1", Name: "message", Arguments: `{"action":"kick","userId":"4002"}`}}},
		fakemodel.Reply{Text: "done"},
	)
	tg.AddPrivateText(ann, "kick bob")
	res := toolResult(4)
	calls := tg.Calls("banChatMember")
	if len(calls) != 1 || calls[0].Params.Get("user_id") != "4002" || calls[0].Params.Get("chat_id") != "4001" {
		t.Fatalf("the owner's kick made %+v (tool said %q)", calls, res)
	}
}

// A client that may send (operator.write) asks message.action to ban:
// banning needs operator.admin, and Telegram never hears of it; the same
// client still reads its chat's member info.
func TestMessageActionBanNeedsAdmin(t *testing.T) {
	tg := telegramtest.New(t, wireBotToken)
	sl := slacktest.New(t, "xoxb-wire-bot", "")
	dir := t.TempDir()
	cfg := fmt.Sprintf(wireChannelsConfig, "", wireBotToken, tg.URL())
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startGatewayIn(t, dir, map[string]string{"OPENCLAW_SLACK_API_URL": sl.APIURL()})
	writer, err := r.dial(t, "t0k3n-channels", "operator.write")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var out any
	err = writer.Call(ctx, "message.action", map[string]any{"channel": "telegram", "action": "ban", "params": map[string]any{"to": "-1005", "userId": "4001"}}, &out)
	if err == nil || !strings.Contains(err.Error(), "operator.admin") {
		t.Fatalf("a writer's ban: %v, %v", out, err)
	}
	if calls := tg.Calls("banChatMember"); len(calls) != 0 {
		t.Fatalf("a writer's ban reached Telegram: %+v", calls)
	}
	if err := writer.Call(ctx, "message.action", map[string]any{"channel": "telegram", "action": "member-info", "params": map[string]any{"to": "-1005", "userId": "4001"}}, &out); err != nil {
		t.Fatalf("member-info: %v", err)
	}
}
