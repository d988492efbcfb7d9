package gateway

import (
	"encoding/json"

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
}
