package sessions

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// DefaultAgentID is the agent used when none is configured or given.
const DefaultAgentID = "main"

// DefaultMainKey is session.mainKey's default.
const DefaultMainKey = "main"

// Values of session.dmScope: how direct messages are split into sessions.
const (
	DMScopeMain                  = "main"                     // all DMs share the main session (default)
	DMScopePerPeer               = "per-peer"                 // one session per sender, across channels
	DMScopePerChannelPeer        = "per-channel-peer"         // one per channel and sender
	DMScopePerAccountChannelPeer = "per-account-channel-peer" // one per account, channel and sender
)

// Values of session.groupScope.
const (
	GroupScopePerGroup = "per-group" // one session per group (default)
	GroupScopeMain     = "main"      // groups share the main session
)

// PeerParams says where an inbound message came from and how the
// configuration splits sessions.
type PeerParams struct {
	AgentID string // default "main"
	MainKey string // session.mainKey, default "main"
	// DMScope is session.dmScope (default main); GroupScope
	// session.groupScope (default per-group).
	DMScope    string
	GroupScope string
	Channel    string // telegram, discord, ...; default "unknown"
	AccountID  string // default "default"
	// PeerKind is direct (the default; the old "dm" is accepted), group or
	// channel; anything else is treated as channel.
	PeerKind string
	PeerID   string
	// ThreadID appends :thread:<id>; TopicID (Telegram forum topics)
	// appends :topic:<id> before it.
	ThreadID string
	TopicID  string
	// IdentityLinks is session.identityLinks: a canonical name to the peer
	// ids ("telegram:123" or a bare "123") that are the same person. A
	// linked direct peer is keyed by its canonical name.
	IdentityLinks map[string][]string
}

// MainKey returns an agent's main session key, agent:<agentId>:<mainKey>.
func MainKey(agentID, mainKey string) string {
	mk := token(mainKey, DefaultMainKey)
	if markers[mk] {
		mk = DefaultMainKey
	}
	return "agent:" + NormalizeAgentID(agentID) + ":" + mk
}

// PeerKey returns the session key for a message from a peer, as OpenClaw
// builds it. Ids are lower-cased; characters a key cannot hold (spaces,
// control characters, and colons in channel, account, thread and topic
// ids) become "-".
func PeerKey(p PeerParams) string {
	agent := NormalizeAgentID(p.AgentID)
	main := MainKey(agent, p.MainKey)
	channel := token(p.Channel, "unknown")
	base := main
	switch kind := strings.ToLower(strings.TrimSpace(p.PeerKind)); kind {
	case "", PeerDirect, "dm":
		peer := ident(p.PeerID, "")
		if peer == "" {
			break
		}
		if linked := linkedPeer(p.IdentityLinks, channel, peer); linked != "" {
			peer = linked
		} else if isCanonicalName(p.IdentityLinks, peer) {
			// An unlinked sender whose id is spelled like a canonical
			// name (a chosen nick "alice") must not land in the linked
			// person's session: keep it apart under its channel.
			peer = channel + ":" + peer
		}
		switch p.DMScope {
		case DMScopePerPeer:
			base = "agent:" + agent + ":direct:" + peer
		case DMScopePerChannelPeer:
			base = "agent:" + agent + ":" + channel + ":direct:" + peer
		case DMScopePerAccountChannelPeer:
			base = "agent:" + agent + ":" + channel + ":" + token(p.AccountID, "default") + ":direct:" + peer
		}
	case PeerGroup:
		if p.GroupScope != GroupScopeMain {
			base = "agent:" + agent + ":" + channel + ":group:" + ident(p.PeerID, "unknown")
		}
	default:
		base = "agent:" + agent + ":" + channel + ":channel:" + ident(p.PeerID, "unknown")
	}
	if t := token(p.TopicID, ""); t != "" {
		base += ":topic:" + t
	}
	if t := token(p.ThreadID, ""); t != "" {
		base += ":thread:" + t
	}
	return base
}

// isCanonicalName reports whether peer is one of the links' canonical names.
func isCanonicalName(links map[string][]string, peer string) bool {
	for name := range links {
		if n := ident(name, ""); n != "" && n == peer {
			return true
		}
	}
	return false
}

// linkedPeer returns the canonical name linked to peer, or "". A link
// entry is "<channel>:<id>" or a bare id. A bare id matches the peer on
// any channel, as in OpenClaw, unless it reads as another channel's
// scoped id: a sender on a network where ids are chosen (an IRC nick
// "telegram:123") must not pass for the person linked as telegram:123.
func linkedPeer(links map[string][]string, channel, peer string) string {
	if len(links) == 0 {
		return ""
	}
	names := make([]string, 0, len(links))
	for name := range links {
		names = append(names, name)
	}
	slices.Sort(names) // the same answer every time if a peer is linked twice
	scoped := channel + ":" + peer
	for _, name := range names {
		for _, id := range links[name] {
			id = strings.ToLower(strings.TrimSpace(id))
			if id == scoped || id == peer && !scopedElsewhere(id, channel) {
				if n := ident(name, ""); n != "" {
					return n
				}
			}
		}
	}
	return ""
}

// SubagentKey returns a new key for a sub-agent spawned from parent: nested
// (<parent>:subagent:<uuid>) when parent is itself a sub-agent, otherwise
// agent:<parent's agent>:subagent:<uuid>.
func SubagentKey(parent string) string {
	p, err := Parse(parent)
	if err == nil && p.Kind == KindSubagent {
		return p.Raw + ":subagent:" + uuid.NewString()
	}
	agent := p.AgentID
	if agent == "" {
		agent = DefaultAgentID
	}
	return "agent:" + agent + ":subagent:" + uuid.NewString()
}

// SubagentKeyFor is SubagentKey for a child run by agentID, which may
// differ from the parent's agent (subagents.allowAgents). A child of
// another agent starts a new chain: agent:<agentID>:subagent:<uuid>.
func SubagentKeyFor(agentID, parent string) string {
	if strings.TrimSpace(agentID) == "" {
		return SubagentKey(parent)
	}
	agent := NormalizeAgentID(agentID)
	if p, err := Parse(parent); err == nil && p.AgentID == agent {
		return SubagentKey(parent)
	}
	return "agent:" + agent + ":subagent:" + uuid.NewString()
}

// CronKey returns the key of a cron job's isolated session, cron:<jobId>.
func CronKey(jobID string) string { return "cron:" + ident(jobID, "unknown") }

// HookKey returns a new webhook session key, hook:<uuid>.
func HookKey() string { return "hook:" + uuid.NewString() }

// NormalizeAgentID lower-cases id and makes it valid: runs of characters
// an id cannot hold become "-", a leading "-" is dropped, and it is cut to
// 64 characters. Empty becomes "main".
func NormalizeAgentID(id string) string {
	id = strings.ToLower(strings.TrimSpace(id))
	if ValidAgentID(id) {
		return id
	}
	var b strings.Builder
	dash := false
	for _, r := range id {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := b.String()
	if len(out) > 64 {
		out = out[:64]
	}
	out = strings.TrimRight(out, "-")
	if out == "" {
		return DefaultAgentID
	}
	return out
}

// token makes s one key part: trimmed, lower-case, with colons, spaces and
// control characters turned to "-".
func token(s, fallback string) string {
	s = clean(s, func(r rune) bool { return r == ':' })
	if s == "" {
		return fallback
	}
	return s
}

// ident makes s a peer, group or room id, which may hold colons (Matrix
// ids do) but no empty parts.
func ident(s, fallback string) string {
	s = clean(s, func(rune) bool { return false })
	for strings.Contains(s, "::") {
		s = strings.ReplaceAll(s, "::", ":")
	}
	s = strings.Trim(s, ":")
	if s == "" {
		return fallback
	}
	return s
}

func clean(s string, bad func(rune) bool) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsSpace(r) || unicode.IsControl(r) || bad(r) {
			return '-'
		}
		return r
	}, s)
}

// scopedElsewhere reports whether a link entry has the form
// "<channel>:<id>" for a channel other than channel.
func scopedElsewhere(id, channel string) bool {
	prefix, _, ok := strings.Cut(id, ":")
	if !ok || prefix == "" || prefix == channel {
		return false
	}
	for _, r := range prefix {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false // "@alice:matrix.org" is a bare Matrix id
		}
	}
	return true
}
