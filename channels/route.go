package channels

import (
	"strings"

	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// RouteInput is what routing looks at.
type RouteInput struct {
	Channel          string
	AccountID        string
	DefaultAccountID string
	ChatKind         ChatKind
	ChatID           string
	ThreadID         string
	GuildID, TeamID  string
	Roles            []string
}

// Binding match tiers, most specific first (OpenClaw's precedence).
const (
	tierPeer = iota
	tierParentPeer
	tierPeerWildcard
	tierGuildRoles
	tierGuild
	tierTeam
	tierAccount
	tierChannel
	tierNone
)

// ResolveAgent picks the agent for a chat from bindings: exact peer, then
// the parent peer of a thread, then a peer wildcard, guild with roles,
// guild, team, account, channel; within a tier the first binding in the
// file wins. ok is false when no binding matched (the default agent then
// answers). The binding is returned for its session overrides.
func ResolveAgent(bindings []config.Binding, in RouteInput) (b config.Binding, ok bool) {
	best := tierNone
	for _, cand := range bindings {
		if cand.AgentID == "" || (cand.Type != "" && cand.Type != "route") {
			continue
		}
		t := matchTier(cand.Match, in)
		if t < best {
			best, b = t, cand
		}
	}
	return b, best != tierNone
}

func matchTier(m config.BindingMatch, in RouteInput) int {
	if !strings.EqualFold(m.Channel, in.Channel) {
		return tierNone
	}
	switch m.AccountID {
	case "*":
	case "":
		if in.AccountID != in.DefaultAccountID {
			return tierNone
		}
	default:
		if m.AccountID != in.AccountID {
			return tierNone
		}
	}
	if m.GuildID != "" && m.GuildID != in.GuildID {
		return tierNone
	}
	if m.TeamID != "" && m.TeamID != in.TeamID {
		return tierNone
	}
	if len(m.Roles) > 0 && !anyShared(m.Roles, in.Roles) {
		return tierNone
	}
	if m.Peer.Kind != "" || m.Peer.ID != "" {
		kind := m.Peer.Kind
		if kind == "dm" {
			kind = string(Direct)
		}
		if kind != "" && kind != string(in.ChatKind) {
			return tierNone
		}
		switch id := m.Peer.ID; {
		case id == "*" || id == "":
			return tierPeerWildcard
		case in.ThreadID != "" && id == in.ChatID+":topic:"+in.ThreadID, in.ThreadID == "" && id == in.ChatID:
			return tierPeer
		case in.ThreadID != "" && id == in.ChatID:
			return tierParentPeer
		default:
			return tierNone
		}
	}
	switch {
	case m.GuildID != "" && len(m.Roles) > 0:
		return tierGuildRoles
	case m.GuildID != "":
		return tierGuild
	case m.TeamID != "":
		return tierTeam
	case m.AccountID != "" && m.AccountID != "*":
		return tierAccount
	}
	return tierChannel
}

func anyShared(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// SessionKey builds the session key for an inbound chat as OpenClaw does:
// session.dmScope for DMs and groupScope for groups, unless the binding
// overrides them. topicThreads says the network's threads are forum
// topics (Network.TopicThreads).
func SessionKey(cfg *config.Config, agentID string, b config.Binding, in Inbound, topicThreads bool) string {
	dm, group := cfg.Session.DMScope, cfg.Session.GroupScope
	if b.Session.DMScope != "" {
		dm = b.Session.DMScope
	}
	if b.Session.GroupScope != "" {
		group = b.Session.GroupScope
	}
	p := sessions.PeerParams{
		AgentID: agentID, MainKey: cfg.Session.MainKey, DMScope: dm, GroupScope: group,
		Channel: in.Channel, AccountID: in.AccountID, PeerKind: string(in.Chat.Kind),
		IdentityLinks: cfg.Session.IdentityLinks,
	}
	if in.Chat.Kind == Direct {
		p.PeerID = in.Sender.ID
	} else {
		p.PeerID = in.Chat.ID
		if in.Chat.ThreadID != "" {
			if topicThreads {
				p.TopicID = in.Chat.ThreadID
			} else {
				p.ThreadID = in.Chat.ThreadID
			}
		}
	}
	return sessions.PeerKey(p)
}
