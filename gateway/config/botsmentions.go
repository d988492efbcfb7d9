package config

import "encoding/json"

// BotAdmission is a channel's allowBots: false (the default) drops other
// bots' messages, true admits them, and "mentions" admits them only in
// messages that mention this bot (in direct messages the dmPolicy alone
// decides, as OpenClaw documents for Matrix), so two bots in one room
// cannot talk each other into a loop unless one names the other.
type BotAdmission string

const (
	BotsDropped      BotAdmission = ""
	BotsAdmitted     BotAdmission = "all"
	BotsWhenMentions BotAdmission = "mentions"
)

// Admits reports whether bot-authored messages may pass at all.
func (b BotAdmission) Admits() bool { return b != BotsDropped }

// NeedsMention reports whether a bot's group message must mention us.
func (b BotAdmission) NeedsMention() bool { return b == BotsWhenMentions }

func (b *BotAdmission) decodeNode(d *decoder, n *node, path string) {
	switch {
	case n.kind == kindBool && n.boolean:
		*b = BotsAdmitted
	case n.kind == kindBool:
		*b = BotsDropped
	case n.kind == kindString && n.str == "mentions":
		*b = BotsWhenMentions
	default:
		d.typeError(n, path, `true, false or "mentions"`)
	}
}

// MarshalJSON writes the value back in OpenClaw's shape.
func (b BotAdmission) MarshalJSON() ([]byte, error) {
	if b == BotsWhenMentions {
		return json.Marshal(string(b))
	}
	return json.Marshal(b.Admits())
}

func (BotAdmission) jsonSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "boolean"},
		map[string]any{"type": "string", "enum": []string{"mentions"}},
	}}
}

// ChannelMentionPatterns is a channel's mentionPatterns. An array is ours:
// regular expressions that count as mentioning the bot there, in place of
// the agent's groupChat.mentionPatterns. An object is OpenClaw's scoping
// of the agent's patterns per conversation: {mode, allowIn, denyIn}.
type ChannelMentionPatterns struct {
	Patterns []string             // the array form; nil when not given
	Scope    *MentionPatternScope // the object form; nil when not given
}

// MentionPatternScope says in which conversations (chat, channel or room
// ids) the agent's mention patterns count. Mode "allow" (the default)
// applies them everywhere except denyIn; "deny" applies them only in
// allowIn. denyIn wins over allowIn. Native @mentions always count.
type MentionPatternScope struct {
	Mode    string   `json:"mode,omitempty"`
	AllowIn []string `json:"allowIn,omitempty"`
	DenyIn  []string `json:"denyIn,omitempty"`
}

// Applies reports whether the agent's patterns count in conversation id.
func (s *MentionPatternScope) Applies(id string) bool {
	if s == nil {
		return true
	}
	listed := func(ids []string) bool {
		for _, x := range ids {
			if x != "" && x == id {
				return true
			}
		}
		return false
	}
	if listed(s.DenyIn) {
		return false
	}
	return s.Mode != "deny" || listed(s.AllowIn)
}

func (m *ChannelMentionPatterns) decodeNode(d *decoder, n *node, path string) {
	switch n.kind {
	case kindArray:
		out := make([]string, 0, len(n.elems))
		for i, e := range n.elems {
			p := indexPath(path, i)
			d.at[p] = e
			if e.kind != kindString {
				d.typeError(e, p, "a string")
				continue
			}
			out = append(out, e.str)
		}
		m.Patterns = out
	case kindObject:
		s := &MentionPatternScope{}
		for _, mem := range n.members {
			p := JoinPath(path, mem.key)
			d.at[p] = mem.val
			switch mem.key {
			case "mode":
				if mem.val.kind != kindString || (mem.val.str != "allow" && mem.val.str != "deny") {
					d.typeError(mem.val, p, `"allow" or "deny"`)
					continue
				}
				s.Mode = mem.val.str
			case "allowIn", "denyIn":
				var ids IDList
				ids.decodeNode(d, mem.val, p)
				if mem.key == "allowIn" {
					s.AllowIn = ids
				} else {
					s.DenyIn = ids
				}
			default:
				d.issues.errorAt(mem.val, true, p, "unknown key %q; want mode, allowIn or denyIn", mem.key)
			}
		}
		m.Scope = s
	default:
		d.typeError(n, path, "an array of patterns or an object {mode, allowIn, denyIn}")
	}
}

// MarshalJSON writes whichever form was given.
func (m ChannelMentionPatterns) MarshalJSON() ([]byte, error) {
	if m.Scope != nil {
		return json.Marshal(m.Scope)
	}
	return json.Marshal(m.Patterns)
}

func (ChannelMentionPatterns) jsonSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
			"mode":    map[string]any{"type": "string", "enum": []string{"allow", "deny"}},
			"allowIn": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"denyIn":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		}},
	}}
}
