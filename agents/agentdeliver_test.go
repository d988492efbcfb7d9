package agents

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// fakeDelivery records the replies the agent method asks to deliver.
type fakeDelivery struct {
	mu    sync.Mutex
	calls []string
	err   error
}

// Like the real deliverer it asks the send policy once it knows the
// channel (here: the named one, or the prefix of "channel:chat").
func (d *fakeDelivery) DeliverReply(ctx context.Context, r ReplyRequest) error {
	channel := r.Channel
	if before, _, ok := strings.Cut(r.To, ":"); ok && channel == "" {
		channel = before
	}
	if r.Allowed == nil {
		return errors.New("no send policy asked for")
	}
	if !r.Allowed(ctx, channel, "") {
		return ErrSendDenied
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls = append(d.calls, strings.Join([]string{r.AgentID, r.Channel, r.To, r.AccountID, r.ThreadID, r.Text}, "|"))
	if !strings.HasPrefix(r.IdempotencyKey, "agent:") {
		return errors.New("bad idempotency key " + r.IdempotencyKey)
	}
	return d.err
}

// deniedTelegram closes Telegram chats to every session.
const deniedTelegram = `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"echo-1"}]}}}, agents:{defaults:{model:"fake/echo-1"}},
	session:{sendPolicy:{rules:[{action:"deny", match:{channel:"telegram"}}]}}}`

// TestAgentDeliver covers `openclaw agent --deliver`: the reply goes to
// the reply-* target over the plain one, a silent or empty answer is not
// sent, and a failed send is reported in result.deliveryStatus.
func TestAgentDeliver(t *testing.T) {
	tests := []struct {
		name       string
		params     map[string]any
		reply      string
		sendErr    error
		noChannels bool
		config     string // "" = the fixture's
		wantCall   string // "" = nothing sent
		wantStatus string // "" = no deliveryStatus
		wantReason string
	}{
		{name: "not asked", params: map[string]any{"to": "telegram:1"}, reply: "hi"},
		{name: "to", params: map[string]any{"deliver": true, "channel": "telegram", "to": "42"}, reply: "report ready",
			wantCall: "main|telegram|42|||report ready", wantStatus: "sent"},
		{name: "reply overrides", params: map[string]any{"deliver": true, "channel": "telegram", "to": "42", "accountId": "a",
			"replyChannel": "slack", "replyTo": "#reports", "replyAccountId": "work", "threadId": "9"}, reply: "done",
			wantCall: "main|slack|#reports|work|9|done", wantStatus: "sent"},
		{name: "last chat", params: map[string]any{"deliver": true}, reply: "x", wantCall: "main|||||x", wantStatus: "sent"},
		{name: "silent", params: map[string]any{"deliver": true, "to": "telegram:1"}, reply: "NO_REPLY", wantStatus: "suppressed", wantReason: "no_visible_payload"},
		{name: "send fails", params: map[string]any{"deliver": true, "to": "telegram:1"}, reply: "x", sendErr: errors.New("chat not found"),
			wantCall: "main||telegram:1|||x", wantStatus: "failed", wantReason: ""},
		{name: "no channels", params: map[string]any{"deliver": true, "to": "telegram:1"}, reply: "x", noChannels: true, wantStatus: "failed"},
		// An operator's run speaks for its session: session.sendPolicy
		// closes the chat to --deliver as it does to the agent's replies.
		{name: "send policy denies", config: deniedTelegram, params: map[string]any{"deliver": true, "to": "telegram:1"}, reply: "secret",
			wantStatus: "suppressed", wantReason: "send_policy_denied"},
		{name: "send policy denies the named channel", config: deniedTelegram, params: map[string]any{"deliver": true, "replyChannel": "telegram", "replyTo": "1"},
			reply: "secret", wantStatus: "suppressed", wantReason: "send_policy_denied"},
		{name: "send policy allows another channel", config: deniedTelegram, params: map[string]any{"deliver": true, "to": "slack:C1"}, reply: "fine",
			wantCall: "main||slack:C1|||fine", wantStatus: "sent"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.config, nil)
			d := &fakeDelivery{err: tc.sendErr}
			if !tc.noChannels {
				f.svc.UseDelivery(d)
			}
			f.model.Script(fakemodel.Reply{Text: tc.reply})
			c := serveRPC(t, f)(protocol.ScopeWrite)
			params := map[string]any{"message": "go", "idempotencyKey": "run-" + strings.ReplaceAll(tc.name, " ", "-")}
			for k, v := range tc.params {
				params[k] = v
			}
			var out struct {
				Status string `json:"status"`
				Result struct {
					DeliveryStatus *deliveryStatus `json:"deliveryStatus"`
				} `json:"result"`
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := c.CallFinal(ctx, "agent", params, &out); err != nil {
				t.Fatal(err)
			}
			if out.Status != "ok" {
				t.Fatalf("run status %q", out.Status)
			}
			d.mu.Lock()
			calls := strings.Join(d.calls, "; ")
			d.mu.Unlock()
			if calls != tc.wantCall {
				t.Errorf("sent %q, want %q", calls, tc.wantCall)
			}
			st := out.Result.DeliveryStatus
			if tc.wantStatus == "" {
				if st != nil {
					t.Errorf("deliveryStatus %+v, want none", st)
				}
				return
			}
			if st == nil || st.Status != tc.wantStatus || !st.Requested || st.Succeeded != (tc.wantStatus == "sent") {
				t.Fatalf("deliveryStatus %+v, want %s", st, tc.wantStatus)
			}
			if tc.wantReason != "" && st.Reason != tc.wantReason {
				t.Errorf("reason %q, want %q", st.Reason, tc.wantReason)
			}
			if tc.wantStatus == "failed" && st.Error == "" {
				t.Error("a failed delivery says no why")
			}
		})
	}
}

// TestAgentModelOverride: the agent method's model runs this turn only,
// and a model outside the allowlist is refused before anything runs.
func TestAgentModelOverride(t *testing.T) {
	f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"echo-1"},{id:"echo-2"}]}}},
		agents:{defaults:{model:"fake/echo-1", models:{"fake/echo-1":{}, "fake/echo-2":{alias:"two"}}}}}`, nil)
	c := serveRPC(t, f)(protocol.ScopeWrite)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	call := func(id, model string) error {
		return c.CallFinal(ctx, "agent", map[string]any{"message": "hi", "idempotencyKey": id, "model": model}, nil)
	}
	if err := call("r1", "two"); err != nil {
		t.Fatal(err)
	}
	if err := call("r2", ""); err != nil {
		t.Fatal(err)
	}
	err := call("r3", "fake/not-allowed")
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.CodeInvalidRequest {
		t.Errorf("disallowed model: err %v", err)
	}
	var models []string
	for _, r := range f.model.Requests() {
		models = append(models, r.Model)
	}
	if got := strings.Join(models, ","); got != "echo-2,echo-1" {
		t.Errorf("models asked %q, want echo-2 then echo-1 (the override is for one run)", got)
	}
}
