package channelhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
	"github.com/openclaw-go/openclaw/tools"
)

// fakeSender records the prompts sent; the origin chat is "fake"/"origin".
type fakeSender struct {
	mu   sync.Mutex
	sent []channels.SendRequest
	n    int
}

func (f *fakeSender) AskApproval(_ context.Context, sessionKey, _, approvalID, summary string) (channels.SendResult, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	f.sent = append(f.sent, channels.SendRequest{Channel: "fake", AccountID: "default", To: channels.Target{ChatID: "origin"}, Text: "Approval needed: " + summary, Buttons: channels.ApprovalButtons(approvalID)})
	return channels.SendResult{Channel: "fake", AccountID: "default", ChatID: "origin", ButtonsMessageID: fmt.Sprint("m", f.n)}, true, nil
}

func (f *fakeSender) Send(_ context.Context, req channels.SendRequest) (channels.SendResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	f.sent = append(f.sent, req)
	return channels.SendResult{Channel: req.Channel, AccountID: req.AccountID, ChatID: req.To.ChatID, ButtonsMessageID: fmt.Sprint("m", f.n)}, nil
}

func (f *fakeSender) where() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.sent {
		out = append(out, r.Channel+":"+r.AccountID+":"+r.To.ChatID+":"+r.To.ThreadID)
	}
	return out
}

// newFanout delivers synchronously, so a test sees every send when
// NotifyApproval returns.
func newFanout(cfg *config.Config) (*approvalFanout, *fakeSender) {
	s := &fakeSender{}
	return &approvalFanout{bus: &fakeBus{}, send: s, cfg: func() *config.Config { return cfg }, posts: newApprovalPosts(),
		log: slog.New(slog.DiscardHandler), async: func(f func()) { f() }}, s
}

var twoTargets = []config.ApprovalTarget{
	{Channel: "slack", To: "U123"},
	{Channel: "telegram", To: "-100", AccountID: "ops-bot", ThreadID: "77"},
	{Channel: "slack", To: "U123"},                        // a duplicate is asked once
	{Channel: "fake", To: "origin", AccountID: "default"}, // the asking chat is asked once
	{Channel: "fake", To: "origin"},                       // also when the target names no account
}

// TestApprovalForwarding: approvals.exec and approvals.plugin send the
// prompt to their targets by mode and filters, each family on its own.
func TestApprovalForwarding(t *testing.T) {
	origin := "fake:default:origin:"
	tests := []struct {
		name string
		fw   config.Approvals
		req  tools.Pending
		want []string
	}{
		{"forwarding off", config.Approvals{}, tools.Pending{Tool: "exec", SessionKey: "agent:main:discord:dm:1"}, []string{origin}},
		{"off even with targets", config.Approvals{Exec: config.ApprovalForwarding{Mode: "targets", Targets: twoTargets}},
			tools.Pending{Tool: "exec", SessionKey: "agent:main:x"}, []string{origin}},
		{"mode session (the default) sends no targets", config.Approvals{Exec: config.ApprovalForwarding{Enabled: true, Targets: twoTargets}},
			tools.Pending{Tool: "exec", SessionKey: "agent:main:x"}, []string{origin}},
		{"mode targets", config.Approvals{Exec: config.ApprovalForwarding{Enabled: true, Mode: "targets", Targets: twoTargets}},
			tools.Pending{Tool: "exec", SessionKey: "agent:main:x"}, []string{origin, "slack::U123:", "telegram:ops-bot:-100:77"}},
		{"mode both, from no chat", config.Approvals{Exec: config.ApprovalForwarding{Enabled: true, Mode: "both", Targets: twoTargets}},
			tools.Pending{Tool: "exec"}, []string{"slack::U123:", "telegram:ops-bot:-100:77", "fake:default:origin:", "fake::origin:"}},
		{"exec forwarding leaves plugin requests alone", config.Approvals{Exec: config.ApprovalForwarding{Enabled: true, Mode: "targets", Targets: twoTargets}},
			tools.Pending{Tool: "gateway", SessionKey: "agent:main:x"}, []string{origin}},
		{"plugin forwarding takes other tools", config.Approvals{Plugin: config.ApprovalForwarding{Enabled: true, Mode: "targets", Targets: twoTargets[:1]}},
			tools.Pending{Tool: "gateway", SessionKey: "agent:main:x"}, []string{origin, "slack::U123:"}},
		{"plugin forwarding leaves exec alone", config.Approvals{Plugin: config.ApprovalForwarding{Enabled: true, Mode: "targets", Targets: twoTargets[:1]}},
			tools.Pending{Tool: "exec", SessionKey: "agent:main:x"}, []string{origin}},
		{"agentFilter by the session's agent", config.Approvals{Exec: config.ApprovalForwarding{Enabled: true, Mode: "targets", AgentFilter: []string{"main"}, Targets: twoTargets[:1]}},
			tools.Pending{Tool: "exec", SessionKey: "agent:main:x"}, []string{origin, "slack::U123:"}},
		{"agentFilter drops another agent", config.Approvals{Exec: config.ApprovalForwarding{Enabled: true, Mode: "targets", AgentFilter: []string{"main"}, Targets: twoTargets[:1]}},
			tools.Pending{Tool: "exec", AgentID: "ops", SessionKey: "agent:main:x"}, []string{origin}},
		{"sessionFilter substring", config.Approvals{Exec: config.ApprovalForwarding{Enabled: true, Mode: "targets", SessionFilter: []string{"discord"}, Targets: twoTargets[:1]}},
			tools.Pending{Tool: "exec", SessionKey: "agent:main:discord:dm:1"}, []string{origin, "slack::U123:"}},
		{"sessionFilter regex", config.Approvals{Exec: config.ApprovalForwarding{Enabled: true, Mode: "targets", SessionFilter: []string{`^agent:main:tele.*:dm:`}, Targets: twoTargets[:1]}},
			tools.Pending{Tool: "exec", SessionKey: "agent:main:telegram:dm:1"}, []string{origin, "slack::U123:"}},
		{"sessionFilter drops the rest", config.Approvals{Exec: config.ApprovalForwarding{Enabled: true, Mode: "targets", SessionFilter: []string{"discord"}, Targets: twoTargets[:1]}},
			tools.Pending{Tool: "exec", SessionKey: "agent:main:slack:dm:1"}, []string{origin}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, s := newFanout(&config.Config{Approvals: tt.fw})
			tt.req.ID = "a1"
			tt.req.Args = `{"command":"ls"}`
			f.NotifyApproval(tools.ApprovalEvent{Request: tt.req})
			got := s.where()
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("sent to %v, want %v", got, tt.want)
			}
			// Every prompt has the request's buttons, and each of
			// those messages is trusted for a press.
			for i, r := range s.sent {
				if len(r.Buttons) == 0 || !strings.Contains(r.Buttons[0][0].Data, "approve:a1:") {
					t.Errorf("prompt %d has buttons %v", i, r.Buttons)
				}
				if !f.posts.postedOn(context.Background(), "a1", r.Channel, fmt.Sprint("m", i+1)) {
					t.Errorf("prompt %d's message is not trusted for a press", i)
				}
			}
		})
	}
}

// TestForwardedPromptRevealsNoMore: a forwarded prompt carries exactly
// the asking chat's text, in which an env secret is already redacted;
// and nothing the model puts in the call's arguments adds a destination.
func TestForwardedPromptRevealsNoMore(t *testing.T) {
	cfg := &config.Config{Approvals: config.Approvals{Exec: config.ApprovalForwarding{Enabled: true, Mode: "targets", Targets: twoTargets[:1]}}}
	f, s := newFanout(cfg)
	delivered := make(chan struct{})
	f.async = func(g func()) { g(); close(delivered) }
	st := storetest.Open(t, tools.Migrations())
	ap, err := tools.NewApprovals(context.Background(), st.DB, f, slog.New(slog.DiscardHandler), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	// A prompt-injected model asks for more destinations in its own
	// arguments.
	args := json.RawMessage(`{"command":"deploy","env":{"API_TOKEN":"sk-live-9f8e7d6c5b4a"},"targets":[{"channel":"telegram","to":"666"}],"approvals":{"exec":{"targets":[{"channel":"telegram","to":"666"}]}}}`)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _, _ = ap.Approve(ctx, tools.ApprovalRequest{Tool: "exec", Args: args, Who: tools.Who{AgentID: "main", SessionKey: "agent:main:telegram:dm:1"}})
	}()
	<-delivered
	cancel()
	<-done
	if fmt.Sprint(s.where()) != "[fake:default:origin: slack::U123:]" {
		t.Fatalf("sent to %v: the model's arguments chose a destination", s.where())
	}
	if s.sent[0].Text != s.sent[1].Text {
		t.Errorf("forwarded text %q differs from the asking chat's %q", s.sent[1].Text, s.sent[0].Text)
	}
	for _, r := range s.sent {
		if strings.Contains(r.Text, "sk-live-9f8e7d6c5b4a") {
			t.Errorf("prompt to %s leaks the env secret: %q", r.Channel, r.Text)
		}
	}
}

// startRecorder keeps the run requests a dispatch makes.
type startRecorder struct {
	noAgents // the methods a dispatch needs besides Start
	got      []agents.StartRequest
}

func (s *startRecorder) Start(_ context.Context, req agents.StartRequest) (*agents.Run, bool, error) {
	s.got = append(s.got, req)
	return nil, false, errors.New("recorded")
}
func (*startRecorder) Workspace(string) (string, error) { return "", nil }

// TestApproveCommandNeedsApprover: /approve typed in a chat counts for
// the owner and the network's execApprovals approvers, not for a
// stranger in the same chat; an approver gets no owner rights besides.
func TestApproveCommandNeedsApprover(t *testing.T) {
	cfg := &config.Config{}
	cfg.Channels.Slack.ExecApprovals = config.ChannelExecApprovals{Approvers: config.IDList{"U1"}}
	h := newHost(t, cfg, &fakeBus{})
	rec := &startRecorder{}
	d := agentDispatcher{svc: rec, owner: h.chatOwner, approver: h.chatApprover}
	for _, tc := range []struct {
		channel, sender string
		canApprove      bool
		owner           bool
	}{
		{"fake", "owner", true, true},
		{"slack", "U1", true, false},
		{"slack", "U666", false, false},
		{"fake", "U1", false, false},
	} {
		rec.got = nil
		_, _ = d.Dispatch(context.Background(), channels.Dispatch{Text: "/approve a1 allow-once", SenderID: tc.sender, Origin: channels.Route{Channel: tc.channel}})
		if len(rec.got) != 1 {
			t.Fatalf("%s:%s: %d runs", tc.channel, tc.sender, len(rec.got))
		}
		if got := rec.got[0]; got.Commands.CanApprove != tc.canApprove || got.Owner != tc.owner {
			t.Errorf("%s:%s: canApprove %v owner %v, want %v %v", tc.channel, tc.sender, got.Commands.CanApprove, got.Owner, tc.canApprove, tc.owner)
		}
	}
}
