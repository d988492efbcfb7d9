package config

import (
	"encoding/json"
	"slices"
	"strings"
)

// OptionalString is a string key whose absence differs from "": OpenClaw's
// responsePrefix and ackReaction, where "" turns the feature off and
// leaving the key out inherits (or takes the default).
type OptionalString struct {
	Value string
	Set   bool
}

// Of returns the value and whether the key was given.
func (o OptionalString) Of() (string, bool) { return o.Value, o.Set }

func (o *OptionalString) decodeNode(d *decoder, n *node, path string) {
	if n.kind != kindString {
		d.typeError(n, path, "a string")
		return
	}
	*o = OptionalString{Value: n.str, Set: true}
}

// MarshalJSON writes the string, or null when the key was left out.
func (o OptionalString) MarshalJSON() ([]byte, error) {
	if !o.Set {
		return []byte("null"), nil
	}
	return json.Marshal(o.Value)
}

func (OptionalString) jsonSchema() map[string]any { return map[string]any{"type": "string"} }

// NativeSetting is commands.native: true, false or "auto" (the default,
// "" when left out).
type NativeSetting string

func (s *NativeSetting) decodeNode(d *decoder, n *node, path string) {
	switch {
	case n.kind == kindBool && n.boolean:
		*s = "true"
	case n.kind == kindBool:
		*s = "false"
	case n.kind == kindString && n.str == "auto":
		*s = "auto"
	default:
		d.typeError(n, path, `true, false or "auto"`)
	}
}

// MarshalJSON writes the value back in OpenClaw's shape.
func (s NativeSetting) MarshalJSON() ([]byte, error) {
	switch s {
	case "true":
		return []byte("true"), nil
	case "false":
		return []byte("false"), nil
	}
	return json.Marshal("auto")
}

func (NativeSetting) jsonSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "boolean"},
		map[string]any{"type": "string", "enum": []string{"auto"}},
	}}
}

// Resolve gives the network's menu settings: its own where set, else
// commands.native and commands.nativeSkills.
func (c ChannelCommandSettings) Resolve(global Commands) (native, skills NativeSetting) {
	native, skills = global.Native, global.NativeSkills
	if c.Native != "" {
		native = c.Native
	}
	if c.NativeSkills != "" {
		skills = c.NativeSkills
	}
	return native, skills
}

// Publish reports whether the native command menu is published on a
// network; auto is whether the network publishes it by default.
func (s NativeSetting) Publish(auto bool) bool {
	switch s {
	case "true":
		return true
	case "false":
		return false
	}
	return auto
}

// CommandAllowList is commands.allowFrom's list for a channel: the
// channel's own entry, else "*"'s; set is false when neither exists.
func (c Commands) CommandAllowList(channel string) (ids []string, set bool) {
	if l, ok := c.AllowFrom[channel]; ok {
		return l, true
	}
	if l, ok := c.AllowFrom["*"]; ok {
		return l, true
	}
	return nil, false
}

// QueueMode is the effective messages.queue mode for a channel: its
// byChannel entry, else mode, else "steer"; OpenClaw's older names are
// folded into the ones they mean.
func (q MessagesQueue) QueueMode(channel string) string {
	m := q.Mode
	if v, ok := q.ByChannel[channel]; ok && v != "" {
		m = v
	}
	switch m {
	case "", "queue", "steer-backlog", "steer+backlog":
		return "steer"
	}
	return m
}

// QueueCap is messages.queue.cap (default 20).
func (q MessagesQueue) QueueCap() int {
	if q.Cap <= 0 {
		return 20
	}
	return q.Cap
}

// AckScope is messages.ackReactionScope (default "group-mentions").
func (m Messages) AckScope() string {
	if m.AckReactionScope == "" {
		return "group-mentions"
	}
	return m.AckReactionScope
}

// Broadcast is the top-level broadcast section: chat (peer) ids mapped to
// the agents that all answer there, and how they run.
type Broadcast struct {
	// Strategy is "parallel" (the default) or "sequential".
	Strategy string
	// Chats maps a peer id (a WhatsApp group JID, an E.164 number, a
	// Telegram chat id, optionally "<channel>:<id>") to agent ids.
	Chats map[string][]string
}

// Agents returns the agents a chat broadcasts to, nil when it is not a
// broadcast chat. A key may name the channel ("telegram:-100123").
func (b Broadcast) Agents(channel, chatID string) []string {
	if a, ok := b.Chats[channel+":"+chatID]; ok {
		return a
	}
	return b.Chats[chatID]
}

func (b *Broadcast) decodeNode(d *decoder, n *node, path string) {
	if n.kind != kindObject {
		d.typeError(n, path, "an object")
		return
	}
	out := Broadcast{Chats: map[string][]string{}}
	for _, mem := range n.members {
		p := JoinPath(path, mem.key)
		d.at[p] = mem.val
		if mem.key == "strategy" {
			if mem.val.kind != kindString || (mem.val.str != "parallel" && mem.val.str != "sequential") {
				d.typeError(mem.val, p, `"parallel" or "sequential"`)
				continue
			}
			out.Strategy = mem.val.str
			continue
		}
		var agents IDList
		switch mem.val.kind {
		case kindArray:
			agents.decodeNode(d, mem.val, p)
		case kindObject:
			for _, f := range mem.val.members {
				fp := JoinPath(p, f.key)
				d.at[fp] = f.val
				switch f.key {
				case "agents":
					agents.decodeNode(d, f.val, fp)
				case "mentionGating", "maxRounds", "maxTurns":
					d.issues.warnAt(f.val, false, fp, "%s is not in effect here: agents of a broadcast chat each answer the message once and never each other", f.key)
				default:
					d.issues.errorAt(f.val, true, fp, "unknown key %q; want agents", f.key)
				}
			}
		default:
			d.typeError(mem.val, p, "an array of agent ids or an object {agents}")
			continue
		}
		ids := make([]string, 0, len(agents))
		for _, a := range agents {
			if a = strings.ToLower(strings.TrimSpace(a)); a != "" && !slices.Contains(ids, a) {
				ids = append(ids, a)
			}
		}
		out.Chats[mem.key] = ids
	}
	*b = out
}

// MarshalJSON writes the section back in OpenClaw's shape.
func (b Broadcast) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(b.Chats)+1)
	for k, v := range b.Chats {
		m[k] = v
	}
	if b.Strategy != "" {
		m["strategy"] = b.Strategy
	}
	return json.Marshal(m)
}

func (Broadcast) jsonSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{"strategy": map[string]any{"type": "string", "enum": []string{"parallel", "sequential"},
			"description": "How a broadcast chat's agents run: all at once (parallel) or one after another (sequential). Default \"parallel\"."}},
		"additionalProperties": map[string]any{"anyOf": []any{
			map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			map[string]any{"type": "object", "properties": map[string]any{"agents": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}},
		}},
	}
}

// validateMessages warns where a messages key cannot do what OpenClaw's
// does, and checks the broadcast agents exist.
func (d *decoder) validateMessages(c *Config) {
	backlog := func(m string) bool { return m == "steer-backlog" || m == "steer+backlog" }
	if backlog(c.Messages.Queue.Mode) {
		n, p := d.where("messages.queue.mode")
		d.warnAtPath(n, p, "messages.queue.mode %q is not in effect here: it acts as steer (a steered message is not run again after the turn)", c.Messages.Queue.Mode)
	}
	for ch, m := range c.Messages.Queue.ByChannel {
		if backlog(m) {
			n, p := d.where(JoinPath("messages.queue.byChannel", ch))
			d.warnAtPath(n, p, "messages.queue.byChannel.%s %q is not in effect here: it acts as steer (a steered message is not run again after the turn)", ch, m)
		}
	}
	for key, on := range map[string]bool{"bash": c.Commands.Bash, "config": c.Commands.Config, "debug": c.Commands.Debug, "mcp": c.Commands.MCP, "plugins": c.Commands.Plugins} {
		if on {
			n, p := d.where("commands." + key)
			d.warnAtPath(n, p, "commands.%s true is not in effect here: the gateway has no such chat command, so the message goes to the agent as text", key)
		}
	}
	for _, key := range []string{"native", "nativeSkills"} {
		sc := c.Channels.Slack.Commands
		if v := map[string]NativeSetting{"native": sc.Native, "nativeSkills": sc.NativeSkills}[key]; v == "true" {
			n, p := d.where("channels.slack.commands." + key)
			d.warnAtPath(n, p, "true is not in effect here: Slack's slash commands are defined in the Slack app, so there is no menu to publish")
		}
	}
	d.checkPatterns("messages.groupChat.mentionPatterns", c.Messages.GroupChat.MentionPatterns)
	for chat, ids := range c.Broadcast.Chats {
		for _, id := range ids {
			if _, ok := c.Agent(id); !ok {
				n, p := d.where(JoinPath("broadcast", chat))
				d.warnAtPath(n, p, "agent %q is not in agents.entries: this chat's messages are not run on it", id)
			}
		}
	}
}

// MentionPatterns are the patterns that count as mentioning an agent in a
// group: its own groupChat.mentionPatterns, else messages.groupChat's.
func (c *Config) MentionPatterns(agentID string) []string {
	if e, ok := c.Agent(agentID); ok && e.GroupChat.MentionPatterns != nil {
		return e.GroupChat.MentionPatterns
	}
	return c.Messages.GroupChat.MentionPatterns
}

// UnmentionedInbound is agentID's groupChat.unmentionedInbound, over
// messages.groupChat's: "room_event" or "user_request".
func (c *Config) UnmentionedInbound(agentID string) string {
	if e, ok := c.Agent(agentID); ok && e.GroupChat.UnmentionedInbound != "" {
		return e.GroupChat.UnmentionedInbound
	}
	if v := c.Messages.GroupChat.UnmentionedInbound; v != "" {
		return v
	}
	return "user_request"
}

// VisibleReplies is how final replies reach a chat of this kind:
// "automatic" or "message_tool". Groups and channels take
// messages.groupChat.visibleReplies first.
func (c *Config) VisibleReplies(group bool) string {
	if v := c.Messages.GroupChat.VisibleReplies; group && v != "" {
		return v
	}
	if v := c.Messages.VisibleReplies; v != "" {
		return v
	}
	return "automatic"
}
