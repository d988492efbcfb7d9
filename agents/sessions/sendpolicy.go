package sessions

import "strings"

// Send-policy decisions (session.sendPolicy, and a session's own
// sendPolicy set by sessions.patch).
const (
	SendAllow = "allow"
	SendDeny  = "deny"
)

// SendRule is one session.sendPolicy rule: Action applies when every match
// field given matches.
type SendRule struct {
	Action       string // allow (the default) or deny
	Channel      string
	ChatType     string // direct ("dm" too), group or channel
	KeyPrefix    string // against the key with or without agent:<id>:
	RawKeyPrefix string // against the whole key
}

// SendPolicy is session.sendPolicy: whether what an agent says in a
// session may be delivered to that session's chat.
type SendPolicy struct {
	Rules   []SendRule
	Default string // allow (the default) or deny
}

// SendTarget is the session a send would go to.
type SendTarget struct {
	Key string
	// Override is the session's own sendPolicy (allow, deny or "" to
	// follow the config).
	Override string
	// Channel and ChatType are where the session's conversation lives;
	// when empty they are read from the key.
	Channel  string
	ChatType string
}

// Decide answers allow or deny for a send into t, as OpenClaw decides:
// the session's own override first; then the rules in order, where a
// matching deny wins at once and a matching allow allows unless a later
// rule denies; then Default.
func (p SendPolicy) Decide(t SendTarget) string {
	if o := normSend(t.Override); o != "" {
		return o
	}
	raw := strings.ToLower(strings.TrimSpace(t.Key))
	stripped := raw
	var k Key
	if parsed, err := Parse(t.Key); err == nil {
		k = parsed
		if k.AgentID != "" {
			// agent:<id>:rest → rest
			stripped = strings.TrimPrefix(k.Raw, "agent:"+k.AgentID+":")
		}
	}
	channel := strings.ToLower(strings.TrimSpace(t.Channel))
	if channel == "" {
		channel = k.Channel
	}
	chatType := normChatType(t.ChatType)
	if chatType == "" {
		chatType = normChatType(k.PeerKind)
	}
	allowed := false
	for _, r := range p.Rules {
		if c := strings.ToLower(strings.TrimSpace(r.Channel)); c != "" && c != channel {
			continue
		}
		if ct := normChatType(r.ChatType); ct != "" && ct != chatType {
			continue
		}
		if pre := strings.ToLower(strings.TrimSpace(r.RawKeyPrefix)); pre != "" && !strings.HasPrefix(raw, pre) {
			continue
		}
		if pre := strings.ToLower(strings.TrimSpace(r.KeyPrefix)); pre != "" && !strings.HasPrefix(raw, pre) && !strings.HasPrefix(stripped, pre) {
			continue
		}
		if normSend(r.Action) == SendDeny {
			return SendDeny
		}
		allowed = true
	}
	if allowed {
		return SendAllow
	}
	if normSend(p.Default) == SendDeny {
		return SendDeny
	}
	return SendAllow
}

func normSend(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case SendAllow:
		return SendAllow
	case SendDeny:
		return SendDeny
	}
	return ""
}

func normChatType(s string) string {
	switch s = strings.ToLower(strings.TrimSpace(s)); s {
	case "dm":
		return PeerDirect
	case PeerDirect, PeerGroup, PeerChannel:
		return s
	}
	return ""
}
