package agents

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// fakeApprovals is an ApprovalAnswerer over one pending id.
type fakeApprovals struct {
	mu       sync.Mutex
	pending  string
	resolved map[string]string
}

func (a *fakeApprovals) Match(ctx context.Context, ref string) (string, error) {
	if ref != "" && strings.HasPrefix(a.pending, ref) {
		return a.pending, nil
	}
	return "", tools.ErrUnknownApproval
}

func (a *fakeApprovals) Resolve(ctx context.Context, id, decision string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.resolved[id] = decision
	return nil
}

// TestGatewayCommandsSkipTheModel: a command-only message from a sender
// the caller vouches for is answered by the gateway, with no model call
// and nothing in the transcript; the same text from an internal caller
// (a sub-agent, sessions_send) goes to the model.
func TestGatewayCommandsSkipTheModel(t *testing.T) {
	operator := &CommandSender{ID: "operator:cli", Operator: true}
	approver := &CommandSender{ID: "operator:cli", Operator: true, CanApprove: true}
	chat := &CommandSender{ID: "telegram:42"}
	cases := []struct {
		name   string
		msg    string
		sender *CommandSender
		owner  bool
		want   []string
		model  bool // the model answers instead
	}{
		{"status", "/status", operator, false, []string{"Model: fake/echo-1 (agent default)", "Session: agent:main:main", "Run: idle", "gateway test"}, false},
		{"help", "/help", operator, false, []string{"/status", "/approve"}, false},
		{"commands", "/commands", operator, false, []string{"/verbose on|off|full:"}, false},
		{"whoami", "/whoami", chat, false, []string{"You are telegram:42."}, false},
		{"id alias", "/id", chat, false, []string{"telegram:42"}, false},
		{"think with colon", "/think: high", operator, false, []string{"Thinking level set to high."}, false},
		{"think unknown", "/think loud", operator, false, []string{"Unknown thinking level"}, false},
		{"model set", "/model fake/other", operator, false, []string{"Model set to fake/other for this session only"}, false},
		{"model bad", "/model nonsense", operator, false, []string{"neither provider/model nor an alias"}, false},
		{"verbose needs admin", "/verbose on", operator, false, []string{"need operator.admin"}, false},
		{"verbose admin", "/verbose on", operator, true, []string{"Verbose set to on"}, false},
		{"verbose channel", "/v full", chat, false, []string{"Verbose set to full"}, false},
		{"stop idle", "/stop", operator, false, []string{"No run is in progress"}, false},
		{"approve refused", "/approve abcd1234 allow-once", operator, false, []string{"You may not answer approvals"}, false},
		{"approve unknown", "/approve zzzz allow-once", approver, false, []string{`No pending approval "zzzz"`}, false},
		{"approve bad decision", "/approve abcd1234 maybe", approver, false, []string{"Unknown decision"}, false},
		{"unknown command", "/frobnicate", operator, false, nil, true},
		{"inline text", "please /status", operator, false, nil, true},
		{"internal caller", "/status", nil, false, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", nil)
			f.svc.UseApprovals(&fakeApprovals{pending: "abcd1234-0000", resolved: map[string]string{}})
			f.svc.UseGatewayStatus(func() []string { return []string{"OpenClaw gateway test"} })
			res := f.run(t, StartRequest{Message: tc.msg, Commands: tc.sender, Owner: tc.owner})
			calls := len(f.model.Requests())
			if tc.model {
				if calls != 1 || !strings.HasPrefix(res.Text, "echo:") {
					t.Fatalf("%q should reach the model: %d calls, answer %q", tc.msg, calls, res.Text)
				}
				return
			}
			if calls != 0 {
				t.Fatalf("%q reached the model (%d calls); answer %q", tc.msg, calls, res.Text)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("%q answered %q, want it to contain %q", tc.msg, res.Text, w)
				}
			}
			sess, err := f.store.Get(context.Background(), "agent:main:main")
			if err != nil {
				t.Fatal(err)
			}
			if sess.MessageCount != 0 {
				t.Errorf("%q left %d messages in the transcript", tc.msg, sess.MessageCount)
			}
		})
	}
}

// TestApproveCommandResolves: an approver's /approve with a short id
// settles the request with the decision given.
func TestApproveCommandResolves(t *testing.T) {
	f := newFixture(t, "", nil)
	ap := &fakeApprovals{pending: "abcd1234-0000", resolved: map[string]string{}}
	f.svc.UseApprovals(ap)
	res := f.run(t, StartRequest{Message: "/approve abcd1234 deny", Commands: &CommandSender{ID: "telegram:1", CanApprove: true}})
	if ap.resolved["abcd1234-0000"] != "deny" || !strings.Contains(res.Text, "Denied abcd1234-0000") {
		t.Fatalf("resolved %v, answer %q", ap.resolved, res.Text)
	}
}

// TestSettingCommandsPersist: /model, /think and /verbose change the
// session as sessions.patch would.
func TestSettingCommandsPersist(t *testing.T) {
	f := newFixture(t, "", nil)
	owner := &CommandSender{ID: "operator:cli", Operator: true}
	for _, m := range []string{"/model fake/other", "/think low", "/verbose full"} {
		f.run(t, StartRequest{Message: m, Commands: owner, Owner: true})
	}
	sess, err := f.store.Get(context.Background(), "agent:main:main")
	if err != nil {
		t.Fatal(err)
	}
	if sess.Model != "fake/other" || sess.Thinking != "low" || sess.Verbose != "full" {
		t.Fatalf("session after commands: model %q thinking %q verbose %q", sess.Model, sess.Thinking, sess.Verbose)
	}
	res := f.run(t, StartRequest{Message: "/status", Commands: owner})
	if !strings.Contains(res.Text, "Model: fake/other (session override") || !strings.Contains(res.Text, "Thinking: low · Verbose: full") {
		t.Fatalf("status after commands:\n%s", res.Text)
	}
}

// TestRefusedSenderCommandsIgnored: a sender commands.allowFrom leaves
// out gets nothing for a command-only message: no answer, no change to
// the session, and no model call (the model must not see it either).
func TestRefusedSenderCommandsIgnored(t *testing.T) {
	for _, msg := range []string{"/model fake/other", "/status", "/think high", "/approve abcd1234 allow-once"} {
		t.Run(msg, func(t *testing.T) {
			f := newFixture(t, "", nil)
			ap := &fakeApprovals{pending: "abcd1234-0000", resolved: map[string]string{}}
			f.svc.UseApprovals(ap)
			res := f.run(t, StartRequest{Message: msg, Commands: &CommandSender{ID: "telegram:666", CanApprove: true, Refused: true}})
			if res.Text != "" || len(f.model.Requests()) != 0 {
				t.Fatalf("%q from a refused sender: answer %q, %d model calls", msg, res.Text, len(f.model.Requests()))
			}
			sess, err := f.store.Get(context.Background(), "agent:main:main")
			if err != nil {
				t.Fatal(err)
			}
			if sess.Model != "" || sess.Thinking != "" || len(ap.resolved) != 0 || sess.MessageCount != 0 {
				t.Fatalf("refused command changed things: model %q thinking %q approvals %v messages %d", sess.Model, sess.Thinking, ap.resolved, sess.MessageCount)
			}
		})
	}
}

// TestNoChatShellOrConfigCommands: with commands.bash, config, debug,
// mcp and plugins off (the only setting in effect here), their commands
// are not the gateway's: a chat stranger's "! rm" or "/config set" is
// never run by the gateway, only read by the model as text.
func TestNoChatShellOrConfigCommands(t *testing.T) {
	for _, msg := range []string{"! rm -rf /", "!ls", "/bash ls", "/config set gateway.auth.mode=none", "/config show", "/debug set x=1", "/mcp add evil", "/plugins install evil", "/restart"} {
		if cmd, ok := parseSlashCommand(msg); ok {
			t.Errorf("%q parsed as the gateway's command %q", msg, cmd.name)
		}
	}
}
