package gateway

import (
	"context"
	"encoding/json"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/discord"
	"github.com/openclaw-go/openclaw/channels/slack"
	"github.com/openclaw-go/openclaw/channels/telegram"
	"github.com/openclaw-go/openclaw/channels/whatsapp"
	"github.com/openclaw-go/openclaw/gateway/channelhost"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// channelNetworks are the chat networks the gateway runs, in the order
// channels.status lists them: a new network is its package and one line
// here.
var channelNetworks = []func(channels.Host) channels.Network{telegram.Network, discord.Network, slack.Network, whatsapp.Network}

// buildChannels builds the channel wing over the agents. It comes before
// the tools, which announce approvals and send messages through it; it
// starts once the listener is up, so webhooks can land.
func (s *System) buildChannels() {
	s.channels = channelhost.New(channelhost.Options{
		Config: func() *config.Config { return s.current().snap.Config },
		Store:  s.store, Log: s.log, Getenv: s.opts.Getenv, Bus: s.srv, Agents: s.agents,
		Approvals: func() channelhost.ApprovalResolver {
			if s.toolhost == nil {
				return nil // the tools are built after the channels
			}
			return s.toolhost.Approvals()
		},
		Networks:       channelNetworks,
		IsOwner:        isChatOwner,
		BootstrapOwner: s.admin.BootstrapOwner,
		Health:         func() json.RawMessage { return s.admin.Health(true) },
	})
	s.addPart(s.channels)
	s.agents.UseTTS(ttsSwitch{s.channels.Manager})
}

// ttsSwitch gives /tts the channel manager's speech preferences, the
// ones the tts.* methods change.
type ttsSwitch struct{ m *channels.Manager }

func (w ttsSwitch) TTSStatus(ctx context.Context) (agents.TTSStatus, error) {
	st, err := w.m.TTSState(ctx)
	if err != nil {
		return agents.TTSStatus{}, err
	}
	return agents.TTSStatus{Auto: st.Auto, Provider: st.Provider, FromPrefs: st.FromPrefs, Configured: st.Configured, MaxLength: st.MaxLength}, nil
}

func (w ttsSwitch) SetTTSEnabled(ctx context.Context, on bool) error {
	return w.m.SetTTSEnabled(ctx, on)
}

func (w ttsSwitch) SetTTSProvider(ctx context.Context, id string) (string, error) {
	return w.m.SetTTSProvider(ctx, id)
}

func (w ttsSwitch) SetTTSPersona(ctx context.Context, id string) (string, error) {
	return w.m.SetTTSPersona(ctx, id)
}

func (w ttsSwitch) SetTTSLimit(ctx context.Context, n int) error {
	return w.m.SetTTSLimit(ctx, n)
}
