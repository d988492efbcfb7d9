package agents

import (
	"context"
	"strings"

	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// resetPolicyFor is the reset policy of the session key as OpenClaw
// resolves it: a session.resetByChannel entry for the session's channel
// wins outright over everything else; otherwise session.resetByType for
// the key's kind (thread, group or direct) over session.reset, key by key.
func resetPolicyFor(cfg *config.Config, key, channel string) sessions.ResetPolicy {
	base := cfg.Session.Reset
	k, _ := sessions.Parse(key)
	if channel == "" {
		channel = k.Channel
	}
	if o, ok := lookupFold(cfg.Session.ResetByChannel, channel); ok {
		return sessions.ResetPolicy{
			Mode:        cmpOr(o.Mode, sessions.ResetDaily),
			AtHour:      clampHour(o.AtHour.Or(sessions.DefaultResetHour)),
			IdleMinutes: max(o.IdleMinutes.Or(0), 0),
		}
	}
	p := sessions.ResetPolicy{Mode: base.Mode, AtHour: clampHour(base.AtHour), IdleMinutes: base.IdleMinutes}
	if p.Mode == "" {
		p.Mode = sessions.ResetNone
	}
	t := resetByType(cfg.Session.ResetByType, k)
	if t == (config.SessionResetOverride{}) {
		return p
	}
	switch {
	case t.Mode != "":
		p.Mode = t.Mode
	case p.Mode == sessions.ResetNone:
		// An entry of its own turns resets on for its kind even when
		// session.reset leaves them off.
		p.Mode = sessions.ResetDaily
	}
	p.AtHour = clampHour(t.AtHour.Or(p.AtHour))
	p.IdleMinutes = max(t.IdleMinutes.Or(p.IdleMinutes), 0)
	return p
}

// resetByType picks the resetByType entry for a key: thread for thread
// and topic keys, group for groups and rooms, direct for the rest.
func resetByType(by config.SessionResetByType, k sessions.Key) config.SessionResetOverride {
	switch {
	case k.ThreadID != "" || k.TopicID != "":
		return by.Thread
	case k.PeerKind == sessions.PeerGroup || k.PeerKind == sessions.PeerChannel:
		return by.Group
	}
	return by.Direct
}

func lookupFold[V any](m map[string]V, key string) (V, bool) {
	var zero V
	key = strings.ToLower(strings.TrimSpace(key))
	if key == "" || len(m) == 0 {
		return zero, false
	}
	if v, ok := m[key]; ok {
		return v, true
	}
	for k, v := range m {
		if strings.EqualFold(strings.TrimSpace(k), key) {
			return v, true
		}
	}
	return zero, false
}

func clampHour(h int) int { return min(max(h, 0), 23) }

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// sendPolicyOf is session.sendPolicy in the sessions package's terms.
func sendPolicyOf(cfg *config.Config) sessions.SendPolicy {
	sp := cfg.Session.SendPolicy
	p := sessions.SendPolicy{Default: sp.Default, Rules: make([]sessions.SendRule, len(sp.Rules))}
	for i, r := range sp.Rules {
		p.Rules[i] = sessions.SendRule{Action: r.Action, Channel: r.Match.Channel, ChatType: r.Match.ChatType,
			KeyPrefix: r.Match.KeyPrefix, RawKeyPrefix: r.Match.RawKeyPrefix}
	}
	return p
}

// SendPolicy answers whether what an agent says in the session key may be
// delivered to its chat (sessions.SendAllow or sessions.SendDeny):
// session.sendPolicy, under the session's own sendPolicy (sessions.patch,
// /send). channel and chatType say where the conversation is when the key
// does not (a main session shared by DMs); empty, the session's stored
// origin and then the key answer.
func (s *Service) SendPolicy(ctx context.Context, key, channel, chatType string) string {
	t := sessions.SendTarget{Key: key, Channel: channel, ChatType: chatType}
	if sess, err := s.opts.Store.Get(ctx, key); err == nil && sess != nil {
		t.Override = sess.SendPolicy
		if t.Channel == "" {
			t.Channel = sess.Origin.Channel
		}
		if t.ChatType == "" {
			t.ChatType = sess.Origin.ChatType
		}
	}
	return sendPolicyOf(s.config()).Decide(t)
}

// errSendDenied is the answer to a send into a session whose send policy
// is deny.
const errSendDenied = "send blocked by session policy"

// agentToAgent is tools.agentToAgent: whether a session tool may cross
// from the requester's agent to the target's.
type agentToAgent struct {
	enabled bool
	allow   []string
}

func agentToAgentOf(cfg *config.Config) agentToAgent {
	a := cfg.Tools.AgentToAgent
	return agentToAgent{enabled: a.Enabled == nil || *a.Enabled, allow: a.Allow}
}

// allowed reports whether from may reach to. The same agent always may;
// otherwise the policy must be enabled and both ids match allow (an empty
// list matches every id; an entry that is blank matches none).
func (a agentToAgent) allowed(from, to string) bool {
	if from == to {
		return true
	}
	return a.enabled && a.matches(from) && a.matches(to)
}

func (a agentToAgent) matches(id string) bool {
	if len(a.allow) == 0 {
		return true
	}
	for _, pat := range a.allow {
		pat = strings.TrimSpace(pat)
		switch {
		case pat == "":
		case pat == "*":
			return true
		case !strings.Contains(pat, "*"):
			if pat == id {
				return true
			}
		case globFold(strings.ToLower(pat), strings.ToLower(id)):
			return true
		}
	}
	return false
}

// globFold matches s against a pattern whose only metacharacter is "*".
func globFold(pat, s string) bool {
	parts := strings.Split(pat, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return strings.HasSuffix(s, last)
}

// notifyCreated leaves the agent's main session a notice of a new session
// (session.notifyOnCreate): its key and where it came from, never what was
// said in it, so a stranger's words do not ride into the owner's session.
// The main session itself, cron runs and sub-agents (their parent hears
// of them) leave none.
func (s *Service) notifyCreated(cfg *config.Config, agentID string, sess *sessions.Session, req StartRequest) {
	if n := cfg.Session.NotifyOnCreate; n != nil && !*n {
		return
	}
	k, err := sessions.Parse(sess.Key)
	if err != nil || k.IsMain() || k.Kind == sessions.KindCron || k.Kind == sessions.KindSubagent || k.Kind == sessions.KindGlobal {
		return
	}
	main := sessions.MainKey(agentID, cfg.Session.MainKey)
	if main == sess.Key {
		return
	}
	from := cmpOr(req.Channel, sess.Origin.Channel)
	text := "New session " + sess.Key
	if from != "" {
		text += " from " + from
		if ct := cmpOr(req.ChatType, sess.Origin.ChatType); ct != "" {
			text += " (" + ct + ")"
		}
	}
	s.EnqueueSystemEvent(main, text+".")
}
