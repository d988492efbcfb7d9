package channelhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/gateway/store"
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
func (noAgents) Workspace(string) (string, error) { return "", errors.New("no workspaces here") }
func (noAgents) Steer(string, string) bool        { return false }
func (noAgents) Abort(string, string) bool        { return false }

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
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), store.FileName), channels.Migrations())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
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

// TestButtonPressNeedsOwnerAndApprovals: a chat button settles an
// approval only when the approvals exist and the owner pressed it.
func TestButtonPressNeedsOwnerAndApprovals(t *testing.T) {
	rec := &recordingApprovals{}
	owner := func(channel, sender string) bool { return channel == "fake" && sender == "owner" }
	tests := []struct {
		name      string
		approvals func() ApprovalResolver
		by        string
		wantErr   string
	}{
		{"not built yet", func() ApprovalResolver { return nil }, "fake:owner", "approvals are not available"},
		{"no approvals at all", nil, "fake:owner", "approvals are not available"},
		{"a stranger", func() ApprovalResolver { return rec }, "fake:mallory", "only the owner can answer approvals here (commands.ownerAllowFrom)"},
		{"the owner", func() ApprovalResolver { return rec }, "fake:owner", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := approvalResolver{approvals: tt.approvals, owner: owner}.ResolveApproval(context.Background(), "a1", tools.DecisionDeny, tt.by)
			if (err == nil) != (tt.wantErr == "") || (err != nil && err.Error() != tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
	if len(rec.got) != 1 || rec.got[0] != "a1=deny" {
		t.Fatalf("resolved %v, want only the owner's a1=deny", rec.got)
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
