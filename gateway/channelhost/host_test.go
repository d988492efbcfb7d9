package channelhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
	"github.com/openclaw-go/openclaw/tools"
)

type fakeBus struct {
	mu     sync.Mutex
	events []string
}

func (b *fakeBus) Broadcast(event string, payload any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.events = append(b.events, event)
}

func (b *fakeBus) WebhookThrottle(path string) *rpc.HTTPAuthThrottle { return nil }

func (b *fakeBus) seen() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.events...)
}

type noAgents struct{}

func (noAgents) Start(context.Context, agents.StartRequest) (*agents.Run, bool, error) {
	return nil, false, errors.New("no agents here")
}
func (noAgents) Workspace(string) (string, error)                            { return "", errors.New("no workspaces here") }
func (noAgents) Steer(string, string) bool                                   { return false }
func (noAgents) Abort(string, string) bool                                   { return false }
func (noAgents) SkillCommands(context.Context, string) []agents.SkillCommand { return nil }

// portNetwork has one account named after gateway.port, so a reload that
// changes the port changes the account.
func portNetwork(channels.Host) channels.Network {
	return channels.Network{Name: "fake", Label: "Fake", Accounts: func(cfg *config.Config) []channels.AccountSpec {
		return []channels.AccountSpec{{AccountID: fmt.Sprint(cfg.Gateway.Port), Default: true,
			New: func() (channels.Adapter, error) { return nil, errors.New("never built") }}}
	}}
}

func newHost(t *testing.T, cfg *config.Config, bus *fakeBus) *Host {
	t.Helper()
	st := storetest.Open(t, channels.Migrations())
	return New(Options{
		Config: func() *config.Config { return cfg }, Store: st, Log: slog.New(slog.DiscardHandler),
		Getenv: func(string) string { return "" }, Bus: bus, Agents: noAgents{},
		Networks: []func(channels.Host) channels.Network{portNetwork},
		IsOwner:  func(_ *config.Config, channel, sender string) bool { return channel == "fake" && sender == "owner" },
		Health:   func() json.RawMessage { return json.RawMessage(`{}`) },
	})
}

func accountIDs(h *Host) []string {
	var ids []string
	for _, a := range h.Status()["channelAccounts"].(map[string][]map[string]any)["fake"] {
		ids = append(ids, a["accountId"].(string))
	}
	return ids
}

// TestPrepareChangesNothingUntilCommit: a reload prepares every part
// before any commits; the channels must keep the running accounts until
// their commit.
func TestPrepareChangesNothingUntilCommit(t *testing.T) {
	old := &config.Config{}
	old.Gateway.Port = 1
	h := newHost(t, old, &fakeBus{})
	next := &config.Config{}
	next.Gateway.Port = 2
	commit, err := h.Prepare(&config.Snapshot{Config: next})
	if err != nil || commit == nil {
		t.Fatalf("Prepare: commit %v, err %v", commit != nil, err)
	}
	if got := accountIDs(h); len(got) != 1 || got[0] != "1" {
		t.Fatalf("accounts before commit %v, want the running [1]", got)
	}
	commit()
	if got := accountIDs(h); len(got) != 1 || got[0] != "2" {
		t.Fatalf("accounts after commit %v, want [2]", got)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

type recordingApprovals struct{ got []string }

func (r *recordingApprovals) Resolve(_ context.Context, id, decision string) error {
	r.got = append(r.got, id+"="+decision)
	return nil
}

// TestButtonPressNeedsApproverAndItsMessage: a chat button settles an
// approval only when the approvals exist, an approver pressed it, and it
// is on a message posted for that very request.
func TestButtonPressNeedsApproverAndItsMessage(t *testing.T) {
	rec := &recordingApprovals{}
	approver := func(channel, sender string) bool { return channel == "fake" && (sender == "owner" || sender == "ops") }
	posts := newApprovalPosts()
	posts.begin("a1")
	posts.add("a1", channels.SendResult{Channel: "fake", ChatID: "group", ButtonsMessageID: "m1"})
	posts.begin("a2")
	posts.add("a2", channels.SendResult{Channel: "fake", ChatID: "group", ButtonsMessageID: "m2"})
	posts.finish("a1")
	posts.finish("a2")
	press := func(id, sender, messageID string) channels.ApprovalPress {
		return channels.ApprovalPress{ID: id, Decision: tools.DecisionDeny, By: "fake:" + sender, Channel: "fake", SenderID: sender, ChatID: "group", MessageID: messageID}
	}
	tests := []struct {
		name      string
		approvals func() ApprovalResolver
		press     channels.ApprovalPress
		wantErr   string
	}{
		{"not built yet", func() ApprovalResolver { return nil }, press("a1", "owner", "m1"), "approvals are not available"},
		{"no approvals at all", nil, press("a1", "owner", "m1"), "approvals are not available"},
		{"a stranger in the chat", func() ApprovalResolver { return rec }, press("a1", "mallory", "m1"), "only an approver can answer approvals here (commands.ownerAllowFrom or execApprovals.approvers)"},
		{"a forged press for another request", func() ApprovalResolver { return rec }, press("a2", "owner", "m1"), "this button is not one posted for that request"},
		{"a press on no message", func() ApprovalResolver { return rec }, press("a1", "owner", ""), "this button is not one posted for that request"},
		{"a press on a message of another network", func() ApprovalResolver { return rec },
			channels.ApprovalPress{ID: "a1", Decision: tools.DecisionDeny, Channel: "other", SenderID: "owner", MessageID: "m1"}, "only an approver can answer approvals here (commands.ownerAllowFrom or execApprovals.approvers)"},
		{"the owner", func() ApprovalResolver { return rec }, press("a1", "owner", "m1"), ""},
		{"a configured approver", func() ApprovalResolver { return rec }, press("a2", "ops", "m2"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := approvalResolver{approvals: tt.approvals, approver: approver, posts: posts}.ResolveApproval(context.Background(), tt.press)
			if (err == nil) != (tt.wantErr == "") || (err != nil && err.Error() != tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
	if fmt.Sprint(rec.got) != "[a1=deny a2=deny]" {
		t.Fatalf("resolved %v, want only the owner's a1 and the approver's a2", rec.got)
	}
}

// TestPressWaitsForItsPost: a press that lands while the prompt's send
// is still returning counts once the post is recorded.
func TestPressWaitsForItsPost(t *testing.T) {
	posts := newApprovalPosts()
	posts.begin("a1")
	got := make(chan bool)
	go func() { got <- posts.postedOn(context.Background(), "a1", "fake", "m1") }()
	posts.add("a1", channels.SendResult{Channel: "fake", ButtonsMessageID: "m1"})
	if !<-got {
		t.Fatal("the press on the posted message was refused")
	}
	posts.finish("a1")
	if posts.postedOn(context.Background(), "a1", "fake", "m9") {
		t.Fatal("a press on a message never posted counted")
	}
}

// TestApprovalEventsReachTheBus: every approval event is broadcast, exec
// then plugin; one from no chat asks nowhere.
func TestApprovalEventsReachTheBus(t *testing.T) {
	bus := &fakeBus{}
	n := newHost(t, &config.Config{}, bus).ApprovalNotifier()
	n.NotifyApproval(tools.ApprovalEvent{Request: tools.Pending{ID: "a1", Tool: "exec", Args: "{}"}, Host: "gateway"})
	n.NotifyApproval(tools.ApprovalEvent{Request: tools.Pending{ID: "a1"}, Settled: &tools.ApprovalSettlement{Status: "denied", Decision: "deny", At: time.Now()}})
	want := []string{tools.EventApprovalRequested, tools.EventPluginApprovalRequested, tools.EventApprovalResolved, tools.EventPluginApprovalResolved}
	got := bus.seen()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("broadcasts %v, want %v", got, want)
	}
}

// TestWebhookFollowsMounts: a webhook is served while its adapter has it
// mounted, and not after.
func TestWebhookFollowsMounts(t *testing.T) {
	h := newHost(t, &config.Config{}, &fakeBus{})
	if _, ok := h.Webhook("/hook/a"); ok {
		t.Fatal("a webhook before any mount")
	}
	h.webhooks.mount("/hook/a", http.NotFoundHandler())
	if _, ok := h.Webhook("/hook/a"); !ok {
		t.Fatal("mounted webhook not found")
	}
	h.webhooks.unmount("/hook/a")
	if _, ok := h.Webhook("/hook/a"); ok {
		t.Fatal("webhook still served after unmount")
	}
}
func (noAgents) SendPolicy(context.Context, string, string, string) string { return "allow" }
