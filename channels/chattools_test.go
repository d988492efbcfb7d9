package channels

import (
	"context"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// recordingAgent keeps every dispatch.
type recordingAgent struct {
	echoAgent
	mu  sync.Mutex
	got []Dispatch
}

func (r *recordingAgent) Dispatch(ctx context.Context, d Dispatch) (Reply, error) {
	r.mu.Lock()
	r.got = append(r.got, d)
	r.mu.Unlock()
	return r.echoAgent.Dispatch(ctx, d)
}

// The tools block and system prompt of the chat a message comes from,
// and the model modelByChannel names for it, go with its turn: a group's
// tools.deny, a direct chat's own entry before "*".
func TestChatSettingsGoWithTheTurn(t *testing.T) {
	policy := AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}, GroupPolicy: "open",
		Groups: map[string]GroupPolicy{"-100": {Enabled: true, ToolsDeny: []string{"exec"}, SystemPrompt: "group rules"}},
		Direct: map[string]GroupPolicy{
			"ann": {Enabled: true, SystemPrompt: "for Ann", ToolsAllow: []string{"read"}},
			"*":   {Enabled: true, ToolsDeny: []string{"group:runtime"}},
		}}
	agent := &recordingAgent{}
	h := newHarness(t, storetest.Place(t), policy, agent, nil)
	h.cfg.Channels.ModelByChannel = map[string]map[string]string{"telegram": {"-100": "openai/gpt-group", "ann": "anthropic/claude-ann"}}
	h.m.SetConfig(h.cfg)
	h.ad.push(t, Inbound{Channel: "telegram", AccountID: "default", EventID: "1", Kind: EventMessage, MessageID: "m1",
		Chat: Chat{ID: "-100", Kind: Group}, Sender: Sender{ID: "bob"}, Text: "hi", Mentioned: true})
	h.ad.waitSent(t, 1)
	h.ad.push(t, Inbound{Channel: "telegram", AccountID: "default", EventID: "2", Kind: EventMessage, MessageID: "m2",
		Chat: Chat{ID: "ann", Kind: Direct}, Sender: Sender{ID: "ann"}, Text: "hi"})
	h.ad.waitSent(t, 1)
	h.ad.push(t, Inbound{Channel: "telegram", AccountID: "default", EventID: "3", Kind: EventMessage, MessageID: "m3",
		Chat: Chat{ID: "cid", Kind: Direct}, Sender: Sender{ID: "cid"}, Text: "hi"})
	h.ad.waitSent(t, 1)

	agent.mu.Lock()
	defer agent.mu.Unlock()
	if len(agent.got) != 3 {
		t.Fatalf("%d dispatches", len(agent.got))
	}
	g, ann, other := agent.got[0], agent.got[1], agent.got[2]
	if len(g.ToolsDeny) != 1 || g.ToolsDeny[0] != "exec" || g.ExtraSystemPrompt != "group rules" || g.Model != "openai/gpt-group" {
		t.Errorf("group dispatch %+v", g)
	}
	if len(ann.ToolsAllow) != 1 || ann.ToolsAllow[0] != "read" || ann.ToolsDeny != nil || ann.ExtraSystemPrompt != "for Ann" || ann.Model != "anthropic/claude-ann" {
		t.Errorf("Ann's dispatch %+v", ann)
	}
	if len(other.ToolsDeny) != 1 || other.ToolsDeny[0] != "group:runtime" || other.Model != "" {
		t.Errorf("other DM's dispatch %+v", other)
	}
}

func TestChannelModel(t *testing.T) {
	cfg := &config.Config{}
	cfg.Channels.ModelByChannel = map[string]map[string]string{
		"Telegram": {"-1001": "a/group", "-1001:topic:99": "a/topic", "123": "a/dm"},
		"slack":    {"C1": "s/chan", "user:U9": "s/dm", "*": "s/any"},
		"whatsapp": {"15551234567": "w/dm"},
		"discord":  {"T7": "d/thread"},
	}
	tests := []struct {
		name   string
		in     Inbound
		topics bool
		want   string
	}{
		{"group", Inbound{Channel: "telegram", Chat: Chat{ID: "-1001", Kind: Group}}, true, "a/group"},
		{"topic", Inbound{Channel: "telegram", Chat: Chat{ID: "-1001", Kind: Group, ThreadID: "99"}}, true, "a/topic"},
		{"other topic falls back to its group", Inbound{Channel: "telegram", Chat: Chat{ID: "-1001", Kind: Group, ThreadID: "5"}}, true, "a/group"},
		{"dm by user id", Inbound{Channel: "telegram", Chat: Chat{ID: "123", Kind: Direct}, Sender: Sender{ID: "123"}}, true, "a/dm"},
		{"dm key does not match a group", Inbound{Channel: "telegram", Chat: Chat{ID: "-5", Kind: Group}, Sender: Sender{ID: "123"}}, true, ""},
		{"slack user form", Inbound{Channel: "slack", Chat: Chat{ID: "D1", Kind: Direct}, Sender: Sender{ID: "U9"}}, false, "s/dm"},
		{"slack channel", Inbound{Channel: "slack", Chat: Chat{ID: "c1", Kind: Channel}}, false, "s/chan"},
		{"slack wildcard", Inbound{Channel: "slack", Chat: Chat{ID: "C2", Kind: Channel}}, false, "s/any"},
		{"whatsapp number", Inbound{Channel: "whatsapp", Chat: Chat{ID: "15551234567@s.whatsapp.net", Kind: Direct}, Sender: Sender{ID: "+15551234567"}}, false, "w/dm"},
		{"discord thread", Inbound{Channel: "discord", Chat: Chat{ID: "C1", Kind: Channel, ThreadID: "T7"}}, false, "d/thread"},
		{"unlisted channel", Inbound{Channel: "matrix", Chat: Chat{ID: "x", Kind: Group}}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ChannelModel(cfg, tt.in, tt.topics); got != tt.want {
				t.Errorf("ChannelModel = %q, want %q", got, tt.want)
			}
		})
	}
}
