package channelhost

import (
	"context"
	"errors"
	"testing"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/channels"
)

// policyAgents fails every run and answers one send policy, recording
// what the dispatcher told it.
type policyAgents struct {
	noAgents
	policy string
	got    agents.StartRequest
	asked  [3]string
}

func (a *policyAgents) Start(_ context.Context, req agents.StartRequest) (*agents.Run, bool, error) {
	a.got = req
	return nil, false, errors.New("model down: token sk-123 rejected")
}

func (a *policyAgents) SendPolicy(_ context.Context, key, channel, chatType string) string {
	a.asked = [3]string{key, channel, chatType}
	return a.policy
}

// TestDispatchUnderSendPolicy: in a session whose chat session.sendPolicy
// denies, nothing the turn produces reaches the chat, not even its error.
func TestDispatchUnderSendPolicy(t *testing.T) {
	req := channels.Dispatch{AgentID: "main", SessionKey: "agent:main:main", Text: "hi", SenderID: "7",
		Origin: channels.Route{Channel: "discord", ChatID: "g1", ChatKind: channels.Group}}
	for _, policy := range []string{"allow", "deny"} {
		a := &policyAgents{policy: policy}
		no := func(string, string) bool { return false }
		d := agentDispatcher{svc: a, owner: no, approver: no}
		reply, err := d.Dispatch(context.Background(), req)
		if a.got.Channel != "discord" || a.got.ChatType != "group" {
			t.Errorf("%s: the run was not told where it came from: %+v", policy, a.got)
		}
		if a.asked != [3]string{"agent:main:main", "discord", "group"} {
			t.Errorf("%s: policy asked for %v", policy, a.asked)
		}
		switch policy {
		case "allow":
			if err == nil {
				t.Errorf("allow: the run's error was swallowed")
			}
		case "deny":
			if err != nil || reply.Text != "" {
				t.Errorf("deny: the chat would get %q / %v", reply.Text, err)
			}
		}
	}
}

// TestMessengerUnderSendPolicy: in a session whose chat is denied, the
// message tools cannot reach around the suppressed reply.
func TestMessengerUnderSendPolicy(t *testing.T) {
	route := func(context.Context, string, string) (channels.Route, bool, error) {
		return channels.Route{Channel: "discord", ChatID: "g1", ChatKind: channels.Group}, true, nil
	}
	for _, policy := range []string{"allow", "deny"} {
		a := &policyAgents{policy: policy}
		conv, ok, err := messenger{route: route, agents: a}.Conversation(context.Background(), "agent:main:discord:group:g1", "r1")
		if a.asked != [3]string{"agent:main:discord:group:g1", "discord", "group"} {
			t.Errorf("%s: policy asked for %v", policy, a.asked)
		}
		if policy == "allow" && (err != nil || !ok || conv.ChatID != "g1") {
			t.Errorf("allow: %+v %v %v", conv, ok, err)
		}
		if policy == "deny" && (err == nil || conv.ChatID != "") {
			t.Errorf("deny: the message tools may still reach %+v (%v)", conv, err)
		}
	}
}
