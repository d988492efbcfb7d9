package config

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// ApprovalsEnabled is an execApprovals.enabled: true, false or "auto".
// Unset leaves the network's default.
type ApprovalsEnabled string

const (
	ApprovalsUnset ApprovalsEnabled = ""
	ApprovalsOn    ApprovalsEnabled = "true"
	ApprovalsOff   ApprovalsEnabled = "false"
	ApprovalsAuto  ApprovalsEnabled = "auto"
)

func (e *ApprovalsEnabled) decodeNode(d *decoder, n *node, path string) {
	switch {
	case n.kind == kindBool && n.boolean:
		*e = ApprovalsOn
	case n.kind == kindBool:
		*e = ApprovalsOff
	case n.kind == kindString && n.str == "auto":
		*e = ApprovalsAuto
	default:
		d.typeError(n, path, `true, false or "auto"`)
	}
}

// MarshalJSON writes the value back in OpenClaw's shape.
func (e ApprovalsEnabled) MarshalJSON() ([]byte, error) {
	switch e {
	case ApprovalsAuto:
		return json.Marshal("auto")
	case ApprovalsOn:
		return json.Marshal(true)
	case ApprovalsOff:
		return json.Marshal(false)
	}
	return []byte("null"), nil
}

func (ApprovalsEnabled) jsonSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "boolean"},
		map[string]any{"type": "string", "enum": []string{"auto"}},
	}}
}

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
func (c *Config) ExecApprovals(channel string) (ChannelExecApprovals, ApprovalsEnabled) {
	switch channel {
	case "telegram":
		// Telegram treats an unset enabled as "auto", Discord and Slack
		// as off.
		return c.Channels.Telegram.ExecApprovals, ApprovalsAuto
	case "discord":
		return c.Channels.Discord.ExecApprovals, ApprovalsOff
	case "slack":
		return c.Channels.Slack.ExecApprovals, ApprovalsOff
	}
	return ChannelExecApprovals{}, ApprovalsOff
}

// IsApprover reports whether a chat sender may answer approval prompts
// from that network: the owner, or one of the network's execApprovals
// approvers while its approvals are on (true, or "auto" with approvers).
func (c *Config) IsApprover(channel, senderID string) bool {
	if senderID == "" {
		return false
	}
	if c.Commands.IsOwner(channel, senderID) {
		return true
	}
	ea, def := c.ExecApprovals(channel)
	on := ea.Enabled
	if on == ApprovalsUnset {
		on = def
	}
	if on != ApprovalsOn && on != ApprovalsAuto {
		return false
	}
	for _, id := range ea.Approvers {
		id = strings.TrimPrefix(id, channel+":")
		// "*" is no approver list: it would let anyone who can reach a
		// prompt approve it.
		if id != "*" && id == senderID {
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
