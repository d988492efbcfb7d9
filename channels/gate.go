package channels

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// AccountPolicy is who may talk to one channel account and how, resolved
// from the channel's config block.
type AccountPolicy struct {
	// MediaMaxMb caps an inbound attachment's download (the account's
	// mediaMaxMb); 0 is agents.defaults.mediaMaxMb, else 20.
	MediaMaxMb     int
	DMPolicy       string   // pairing (default) | allowlist | open | disabled
	AllowFrom      []string // sender ids; "*" = anyone
	GroupPolicy    string   // allowlist (default) | open | disabled
	GroupAllowFrom []string // sender ids in groups; empty = AllowFrom
	Groups         map[string]GroupPolicy
	// MentionPatterns count as a mention in groups; nil means the agent's
	// groupChat.mentionPatterns.
	MentionPatterns []string
	TextLimit       int
	ChunkMode       string
	// StreamMode is streaming.mode: "partial" shows the reply in one
	// message edited as it is written; anything else sends it whole.
	StreamMode  string
	ReplyToMode string // off | first (default) | all | batched
	// ResponsePrefix is the account's or channel's responsePrefix; unset
	// inherits messages.responsePrefix, "" turns it off.
	ResponsePrefix config.OptionalString
	// AllowBots lets other bots' messages through (adapters never hand
	// over the bot's own).
	AllowBots bool
	// BotsNeedMention (allowBots "mentions") admits another bot's group
	// message only when it mentions us, so two bots sharing a room do not
	// answer each other in a loop; its DMs still follow dmPolicy.
	BotsNeedMention bool
	// MentionScope, when set, says in which chats the agent's patterns
	// count (the channel's mentionPatterns object); native mentions
	// always count.
	MentionScope *config.MentionPatternScope
	// ActionsOff maps the message actions the channel's actions block
	// turns off to the key that does (ActionsOff).
	ActionsOff map[string]string
	// Direct holds the settings of direct chats by the sender's id, or
	// "*" (a system prompt, tool limits).
	Direct map[string]GroupPolicy
	// BotLoop limits how long another admitted bot and ours may answer
	// each other in one chat (botLoopProtection).
	BotLoop BotLoop
	// ErrorPolicy is what the chat sees of a failed turn: "always" (the
	// default), "once" per distinct error and cooldown, or "silent".
	ErrorPolicy string
	// HistoryLimit is the channel's or account's historyLimit: how many
	// unmentioned group messages are kept as context; unset means
	// messages.groupChat.historyLimit.
	HistoryLimit config.OptInt
}

// GroupPolicy is the setting of one group (or "*").
type GroupPolicy struct {
	Enabled        bool
	RequireMention bool
	AllowFrom      []string
	SystemPrompt   string
	AgentID        string
	Topics         map[string]GroupPolicy
	// ToolsAllow narrows the agent's tools in this chat and ToolsDeny
	// removes some (the chat's tools block); deny wins.
	ToolsAllow, ToolsDeny []string
	// ErrorPolicy overrides the account's for this chat ("" for none).
	ErrorPolicy string
	// IgnoreOtherMentions drops a message addressed to someone else
	// (Inbound.MentionsOthers) that does not mention the bot.
	IgnoreOtherMentions bool
}

// Verdict is the gate's answer for one event.
type Verdict int

const (
	Allow Verdict = iota
	Drop
	Pair // an unknown sender's DM under dmPolicy "pairing"
)

// Gate decides whether an event may reach an agent. It looks only at
// stable sender ids; paired says whether the sender's DMs were approved
// by pairing (never consulted for groups). mentioned is whether the event
// names the bot, natively or by a mention pattern.
type Gate struct {
	Policy AccountPolicy
	// Aliases are the network's other names, which allowlist entries may
	// carry as their prefix (Network.Aliases).
	Aliases []string
	// AccessGroups are the config's accessGroups, which allowlist entries
	// name as "accessGroup:<name>".
	AccessGroups map[string]config.AccessGroup
}

// accessGroupPrefix marks an allowlist entry that names an access group.
const accessGroupPrefix = "accessgroup:"

// GateResult is a verdict with its reason (for logs and status).
type GateResult struct {
	Verdict Verdict
	Reason  string
	Group   GroupPolicy // the group or topic settings that applied
}

// Check runs the sender gate and DM/group policy for in.
func (g Gate) Check(in Inbound, paired bool, mentioned func(GroupPolicy) bool) GateResult {
	p := g.Policy
	if in.Sender.ID == "" {
		return GateResult{Verdict: Drop, Reason: "no sender id"}
	}
	if in.Sender.IsBot && !p.AllowBots {
		return GateResult{Verdict: Drop, Reason: "sender is a bot"}
	}
	if in.Chat.Kind == Direct {
		switch dm := cmp.Or(p.DMPolicy, "pairing"); dm {
		case "disabled":
			return GateResult{Verdict: Drop, Reason: "direct messages are disabled"}
		case "open":
			if slices.Contains(p.AllowFrom, "*") || g.idListed(p.AllowFrom, in) {
				return GateResult{Verdict: Allow, Reason: "dmPolicy open"}
			}
			return GateResult{Verdict: Drop, Reason: `dmPolicy "open" needs allowFrom ["*"]`}
		case "allowlist":
			if g.idListed(p.AllowFrom, in) {
				return GateResult{Verdict: Allow, Reason: "sender in allowFrom"}
			}
			return GateResult{Verdict: Drop, Reason: "sender not in allowFrom"}
		default: // pairing
			if g.idListed(p.AllowFrom, in) || paired {
				return GateResult{Verdict: Allow, Reason: "sender paired or allowed"}
			}
			if in.Kind != EventMessage {
				return GateResult{Verdict: Drop, Reason: "unpaired sender"}
			}
			return GateResult{Verdict: Pair, Reason: "unknown sender: pairing"}
		}
	}
	// Groups and channels. Pairing approvals never open a group.
	gp := cmp.Or(p.GroupPolicy, "allowlist")
	if gp == "disabled" {
		return GateResult{Verdict: Drop, Reason: "groups are disabled"}
	}
	// The chat's own entry, then its server's (a Discord guild), then "*".
	group, listed := p.Groups[in.Chat.ID]
	if !listed && in.GuildID != "" {
		group, listed = p.Groups[in.GuildID]
	}
	if !listed {
		group, listed = p.Groups["*"]
	}
	if !listed {
		if gp == "allowlist" {
			return GateResult{Verdict: Drop, Reason: "group not in groups allowlist"}
		}
		group = GroupPolicy{Enabled: true, RequireMention: true}
	}
	if t, ok := group.Topics[in.Chat.ThreadID]; ok && in.Chat.ThreadID != "" {
		if len(t.AllowFrom) == 0 {
			t.AllowFrom = group.AllowFrom
		}
		group = t
	}
	if !group.Enabled {
		return GateResult{Verdict: Drop, Reason: "group disabled", Group: group}
	}
	senders := group.AllowFrom
	if len(senders) == 0 {
		senders = p.GroupAllowFrom
	}
	if len(senders) == 0 {
		senders = p.AllowFrom
	}
	if len(senders) > 0 && !slices.Contains(senders, "*") && !g.idListed(senders, in) {
		return GateResult{Verdict: Drop, Reason: "sender not allowed in this group", Group: group}
	}
	if in.Sender.IsBot && p.BotsNeedMention && (in.Kind != EventMessage || mentioned == nil || !mentioned(group)) {
		return GateResult{Verdict: Drop, Reason: `bot did not mention us (allowBots "mentions")`, Group: group}
	}
	if in.Kind != EventMessage && in.Kind != EventCallback {
		return GateResult{Verdict: Allow, Reason: "group event", Group: group}
	}
	// Only the network's own mention of the bot overrides: a name pattern
	// in a message to someone else is talk about the bot, not to it.
	if group.IgnoreOtherMentions && in.Kind == EventMessage && in.MentionsOthers && !in.Mentioned {
		return GateResult{Verdict: Drop, Reason: "addressed to someone else", Group: group}
	}
	if group.RequireMention && in.Kind == EventMessage && !(mentioned != nil && mentioned(group)) {
		return GateResult{Verdict: Drop, Reason: reasonNotMentioned, Group: group}
	}
	return GateResult{Verdict: Allow, Reason: "group allowed", Group: group}
}

// reasonNotMentioned is the gate's reason for a group message that
// needed a mention: such messages are kept as group history.
const reasonNotMentioned = "not mentioned"

// idListed reports whether the sender's id is in list. Entries may carry
// the channel as a prefix, its name or an alias ("telegram:123",
// "tg:123"); names never match.
func (g Gate) idListed(list []string, in Inbound) bool {
	for _, e := range list {
		e = strings.TrimSpace(e)
		if e == "*" {
			continue
		}
		if len(e) > len(accessGroupPrefix) && strings.EqualFold(e[:len(accessGroupPrefix)], accessGroupPrefix) {
			if g.groupListed(e[len(accessGroupPrefix):], in) {
				return true
			}
			continue
		}
		if i := strings.LastIndexByte(e, ':'); i >= 0 {
			prefix := strings.ToLower(e[:i])
			if prefix != in.Channel && !slices.Contains(g.Aliases, prefix) {
				continue
			}
			e = e[i+1:]
		}
		if e == in.Sender.ID {
			return true
		}
	}
	return false
}

// groupListed reports whether the sender is a member of the named
// message.senders group: its "*" entries and those under the event's
// channel (or an alias), matched as allowFrom entries are. A missing
// group, another type (Discord channel audiences are not resolved here)
// and entries naming further groups let nobody in: an allowlist fails
// closed.
func (g Gate) groupListed(name string, in Inbound) bool {
	ag, ok := g.AccessGroups[strings.TrimSpace(name)]
	if !ok || ag.Type != "message.senders" {
		return false
	}
	var entries []string
	for key, ids := range ag.Members {
		key = strings.ToLower(strings.TrimSpace(key))
		if key == "*" || key == in.Channel || slices.Contains(g.Aliases, key) {
			entries = append(entries, ids...)
		}
	}
	plain := Gate{Aliases: g.Aliases} // no groups: members cannot name groups
	return plain.idListed(entries, in)
}

// MentionMatcher reports whether text matches any of the patterns
// (case-insensitive). Patterns that do not compile are skipped; config
// validation reports them.
func MentionMatcher(patterns []string) func(string) bool {
	var res []*regexp.Regexp
	for _, p := range patterns {
		if re, err := regexp.Compile("(?i)" + p); err == nil {
			res = append(res, re)
		}
	}
	return func(text string) bool {
		for _, re := range res {
			if re.MatchString(text) {
				return true
			}
		}
		return false
	}
}

// direct is the settings of a direct chat with sender: its own entry, or
// the "*" one.
func (p AccountPolicy) direct(sender string) GroupPolicy {
	if d, ok := p.Direct[sender]; ok {
		return d
	}
	return p.Direct["*"]
}
