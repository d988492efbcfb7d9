package security

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
	"github.com/openclaw-go/openclaw/e2e/harness"
)

// TestApprovalAnswersNeedApprovalRights: a guarded call waits for
// approval. A read-scoped client tries the approval methods, a
// write-scoped client sends "/approve <id> allow-once" as a chat
// message, and a Telegram stranger sends the same text: none of them
// settles it. The owner's /approve in Telegram does.
func TestApprovalAnswersNeedApprovalRights(t *testing.T) {
	t.Parallel()
	g, model, tg := startStranger(t, "5006:TEST-approve", `tools: { guard: { approvalTimeoutSeconds: 300, rules: [{ tool: "sessions_list", action: "require_approval" }] } },`)
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "s1", Name: "sessions_list", Arguments: `{}`}}},
		fakemodel.Reply{Text: "listed after approval"},
	)
	admin := g.Admin(t)
	harness.MustCall(t, admin, "chat.send", map[string]any{"sessionKey": "agent:main:main", "message": "list the sessions", "idempotencyKey": "guarded-run"})
	var id string
	if !harness.Poll(60*time.Second, func() bool {
		list, err := callList(t, g)
		if err != nil || len(list) != 1 {
			return false
		}
		id = list[0]
		return true
	}) {
		t.Fatal("no pending approval appeared")
	}
	short := id[:8]
	pending := func() bool {
		list, err := callList(t, g)
		return err == nil && len(list) == 1 && list[0] == id
	}

	reader := g.Dial(t, "operator.read")
	for _, m := range []string{"exec.approval.resolve", "plugin.approval.resolve", "approval.resolve"} {
		if _, err := harness.Call(t, reader, m, map[string]any{"id": id, "decision": "allow-once"}); err == nil || !strings.Contains(err.Error(), "operator.approvals") {
			t.Fatalf("%s from a read-scoped client: %v", m, err)
		}
	}
	writer := g.Dial(t, "operator.read", "operator.write")
	out := harness.MustCall(t, writer, "agent", map[string]any{"message": "/approve " + short + " allow-once", "sessionKey": "agent:main:main", "idempotencyKey": "writer-approve"})
	if text := fmt.Sprint(out["result"]); !strings.Contains(text, "may not answer approvals") {
		t.Fatalf("a write-scoped /approve was answered %v", out)
	}
	if !pending() {
		t.Fatal("a write-scoped client's /approve settled the approval")
	}

	mallory := telegramtest.User{ID: 6666, Username: "mallory", FirstName: "Mallory"}
	tg.AddPrivateText(mallory, "/approve "+short+" allow-once")
	waitSent(t, tg, "the refusal to the stranger", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "may not answer approvals") })
	if !pending() {
		t.Fatal("a chat stranger's /approve settled the approval")
	}
	if n := len(model.Requests()); n != 1 {
		t.Fatalf("the /approve messages reached the model: %d model calls", n)
	}

	olga := telegramtest.User{ID: 4242, Username: "olga", FirstName: "Olga"}
	tg.AddPrivateText(olga, "/approve "+short+" allow-once")
	waitSent(t, tg, "the owner's confirmation", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "Allowed "+id+" once") })
	if !harness.Poll(60*time.Second, func() bool {
		h, err := harness.Call(t, admin, "chat.history", map[string]any{"sessionKey": "agent:main:main"})
		return err == nil && strings.Contains(harness.JSON(t, h), "listed after approval")
	}) {
		t.Fatal("the approved run did not finish")
	}
}

// callList is the ids of the pending approvals, in the plugin approval
// shape OpenClaw's terminal UI reads (a bare array).
func callList(t *testing.T, g *harness.Gateway) ([]string, error) {
	t.Helper()
	c := g.Admin(t)
	defer c.Close()
	var raw []struct {
		ID      string `json:"id"`
		Request struct {
			Title      string `json:"title"`
			SessionKey string `json:"sessionKey"`
		} `json:"request"`
	}
	if err := c.Call(t.Context(), "plugin.approval.list", map[string]any{}, &raw); err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range raw {
		if r.Request.Title == "" || r.Request.SessionKey != "agent:main:main" {
			return nil, fmt.Errorf("approval %s lacks its title or session: %+v", r.ID, r)
		}
		ids = append(ids, r.ID)
	}
	return ids, nil
}
