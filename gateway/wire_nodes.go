package gateway

import (
	"context"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/nodes"
)

// buildNodes builds the node registry, which serves the node.* methods.
// The command policy is read from the live config on every decision, so a
// reload of gateway.nodes.commands applies to the next invoke.
func (s *System) buildNodes() {
	s.nodes = nodes.New(nodes.Options{
		DB: s.store.DB, Log: s.log.With("component", "nodes"), Notify: s.srv,
		Policy: func() nodes.Policy {
			c := s.current().snap.Config.Gateway.Nodes.Commands
			return nodes.Policy{Allow: c.Allow, Deny: c.Deny}
		},
		Pairing: func() nodes.PairingPolicy {
			p := s.current().pairing
			return nodes.PairingPolicy{AutoApproveLocal: p.AutoApproveLocal, AutoApproveCIDRs: p.AutoApproveCIDRs}
		},
	})
	s.addPart(methodsPart{name: "nodes", register: s.nodes.Register})
}

// nodeConnected and nodeDisconnected are the bus's connection hooks for
// node-role connections; other connections pass through.
func (s *System) nodeConnected(c *rpc.Conn) {
	if h, ok := nodes.HelloFrom(c); ok && s.nodes != nil {
		s.nodes.Connect(context.Background(), c, h)
	}
}

func (s *System) nodeDisconnected(c *rpc.Conn) {
	if c.Role() == protocol.RoleNode && s.nodes != nil {
		s.nodes.Disconnect(context.Background(), c)
	}
}
