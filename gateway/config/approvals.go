package config

import (
	"regexp"
	"strconv"
	"strings"
)

// ThreadRef is a thread or topic id written as a string or a whole
// number (Telegram topic ids are numbers).
type ThreadRef string

func (t *ThreadRef) decodeNode(d *decoder, n *node, path string) {
	switch {
	case n.kind == kindString:
		*t = ThreadRef(n.str)
	case n.kind == kindNumber && n.num == float64(int64(n.num)):
		*t = ThreadRef(strconv.FormatInt(int64(n.num), 10))
	default:
		d.typeError(n, path, "a thread id (string or whole number)")
	}
}

func (ThreadRef) jsonSchema() map[string]any {
	return map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}
}

// validateApprovals refuses a forwarding target that names no channel or
// no recipient, as OpenClaw does: it would forward nowhere.
func (d *decoder) validateApprovals(a *Approvals) {
	for _, f := range []struct {
		fam string
		fw  ApprovalForwarding
	}{{"exec", a.Exec}, {"plugin", a.Plugin}} {
		fam := f.fam
		for i, t := range f.fw.Targets {
			base := indexPath("approvals."+fam+".targets", i)
			if strings.TrimSpace(t.Channel) == "" {
				n, path := d.where(base+".channel", base)
				d.errorAtPath(n, path, "a forwarding target needs a channel")
			}
			if strings.TrimSpace(t.To) == "" {
				n, path := d.where(base+".to", base)
				d.errorAtPath(n, path, "a forwarding target needs a recipient (to)")
			}
		}
	}
}

// ExecApprovals is the execApprovals block of a chat network, zero for a
// network that has none.
func (c *Config) ExecApprovals(channel string) ChannelExecApprovals {
	switch channel {
	case "telegram":
		return c.Channels.Telegram.ExecApprovals
	case "discord":
		return c.Channels.Discord.ExecApprovals
	case "slack":
		return c.Channels.Slack.ExecApprovals
	}
	return ChannelExecApprovals{}
}

// IsApprover reports whether a chat sender may answer approval prompts
// from that network, as OpenClaw resolves it: the owner, one of the
// network's execApprovals approvers (whether or not its native approval
// client is on), or the recipient of a direct-message forwarding target
// of approvals.exec on that network (the person the prompt was sent to).
func (c *Config) IsApprover(channel, senderID string) bool {
	if senderID == "" || channel == "" {
		return false
	}
	if c.Commands.IsOwner(channel, senderID) {
		return true
	}
	for _, id := range c.ExecApprovals(channel).Approvers {
		id = strings.TrimPrefix(id, channel+":")
		// "*" is no approver list: it would let anyone who can reach a
		// prompt approve it.
		if id != "*" && id == senderID {
			return true
		}
	}
	fw := c.Approvals.Exec
	if !fw.Enabled || !fw.ToTargets() {
		return false
	}
	for _, t := range fw.Targets {
		if !strings.EqualFold(t.Channel, channel) {
			continue
		}
		to := strings.TrimPrefix(strings.TrimPrefix(t.To, channel+":"), "user:")
		// Only a person's id names one recipient: a group's members
		// all read a group target (Telegram groups are negative ids).
		if to == senderID && !strings.HasPrefix(to, "-") {
			return true
		}
	}
	return false
}

// Forwards reports whether an approval request of agentID in sessionKey
// passes the forwarding's filters: agentFilter by the agent id (else the
// one the session key names) and sessionFilter by substring, else
// regular expression.
func (f ApprovalForwarding) Forwards(agentID, sessionKey string) bool {
	if !f.Enabled {
		return false
	}
	if len(f.AgentFilter) > 0 {
		if agentID == "" {
			if rest, ok := strings.CutPrefix(sessionKey, "agent:"); ok {
				agentID, _, _ = strings.Cut(rest, ":")
			}
		}
		found := false
		for _, a := range f.AgentFilter {
			found = found || (agentID != "" && a == agentID)
		}
		if !found {
			return false
		}
	}
	if len(f.SessionFilter) > 0 {
		if sessionKey == "" {
			return false
		}
		for _, pat := range f.SessionFilter {
			if strings.Contains(sessionKey, pat) {
				return true
			}
			if re, err := regexp.Compile(pat); err == nil && re.MatchString(sessionKey) {
				return true
			}
		}
		return false
	}
	return true
}

// ToSession and ToTargets say which destinations the mode names.
func (f ApprovalForwarding) ToSession() bool {
	return f.Mode == "" || f.Mode == "session" || f.Mode == "both"
}
func (f ApprovalForwarding) ToTargets() bool { return f.Mode == "targets" || f.Mode == "both" }
