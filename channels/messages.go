package channels

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// acknowledge reacts to a message the agent takes up, as
// messages.ackReaction and ackReactionScope say, so the sender sees it
// was received before the answer comes. Best effort: a network that
// cannot react, or refuses, changes nothing else.
func (m *Manager) acknowledge(ctx context.Context, cfg *config.Config, t turn) {
	in := t.r.In
	if in.MessageID == "" {
		return
	}
	if t.visible == VisibleRoomEvent && cfg.Messages.AckScope() != "all" {
		return // a room event's one receipt is ackReactionScope "all"'s
	}
	emoji, set := cfg.Messages.AckReaction.Of()
	if !set {
		if t.g.a.network.AckWhenConfigured {
			return
		}
		a, _ := cfg.Agent(t.g.agentID)
		emoji = cmp.Or(a.Identity.Emoji, "👀")
	}
	if emoji == "" || !ackInScope(cfg.Messages.AckScope(), in.Chat.Kind == Direct, func() bool { return t.g.mentioned(t.g.verdict.Group) }) {
		return
	}
	r, ok := t.g.a.adapterNow().(Reactor)
	if !ok {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := r.React(rctx, Target{ChatID: in.Chat.ID, ThreadID: in.Chat.ThreadID}, in.MessageID, emoji); err != nil {
		m.log.Debug("channels: ack reaction", "channel", in.Channel, "err", err)
	}
}

// ackInScope reports whether ackReactionScope covers a message.
func ackInScope(scope string, direct bool, mentioned func() bool) bool {
	switch scope {
	case "all":
		return true
	case "direct":
		return direct
	case "group-all":
		return !direct
	case "group-mentions":
		return !direct && mentioned()
	}
	return false // off, none
}

// commandsRefused reports whether commands.allowFrom leaves the sender
// out: when it is set it is the only list that grants commands.
func (m *Manager) commandsRefused(cfg *config.Config, a *account, in Inbound) bool {
	list, set := cfg.Commands.CommandAllowList(in.Channel)
	if !set {
		return false
	}
	for _, e := range list {
		if strings.TrimSpace(e) == "*" {
			return false
		}
	}
	// OpenClaw writes some ids with a kind ("user:123"); the id is what
	// counts.
	norm := make([]string, 0, len(list))
	for _, e := range list {
		e = strings.TrimSpace(e)
		if ch, rest, ok := strings.Cut(e, ":"); ok && (ch == in.Channel || a.network.names(ch)) {
			e = rest
		}
		e = strings.TrimPrefix(e, "user:")
		norm = append(norm, e)
	}
	return !Gate{Aliases: a.network.Aliases}.idListed(norm, in)
}

// prefixVar matches responsePrefix's {variables}.
var prefixVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([A-Za-z.]+)\}`) })

// responsePrefix is the text put before a reply: the account's or
// channel's responsePrefix, else messages.responsePrefix ("" at any
// level turns it off), with "auto" and the template variables filled
// in. A variable without a value is left as written.
func (m *Manager) responsePrefix(cfg *config.Config, p AccountPolicy, agentID string, r Reply) string {
	prefix, set := p.ResponsePrefix.Of()
	if !set {
		prefix, _ = cfg.Messages.ResponsePrefix.Of()
	}
	if prefix == "" {
		return ""
	}
	a, _ := cfg.Agent(agentID)
	name := cmp.Or(a.Identity.Name, a.Name)
	if prefix == "auto" {
		if name == "" {
			return ""
		}
		return "[" + name + "]"
	}
	return prefixVar().ReplaceAllStringFunc(prefix, func(v string) string {
		var val string
		switch strings.ToLower(v[1 : len(v)-1]) {
		case "model":
			val = r.Model
			if i := strings.LastIndexByte(val, '/'); i >= 0 {
				val = val[i+1:]
			}
		case "modelfull":
			if r.Model != "" {
				val = r.Model
				if r.Provider != "" && !strings.HasPrefix(val, r.Provider+"/") {
					val = r.Provider + "/" + val
				}
			}
		case "provider":
			val = r.Provider
		case "identity.name":
			val = name
		}
		if val == "" {
			return v
		}
		return val
	})
}

// groupHistory keeps, per group chat, the last messages that did not
// mention the agent (the channel's or account's historyLimit, else
// messages.groupChat.historyLimit), in memory as OpenClaw does. Bounded
// whatever the limit says: at most historyPerChatMax lines of at most
// historyLineMax bytes per chat, historyChatsMax chats and
// historyTotalMax lines in all.
type groupHistory struct {
	mu    sync.Mutex
	chats map[string][]string
	total int // lines kept across chats
}

const (
	historyLineMax    = 500
	historyPerChatMax = 1000
	historyChatsMax   = 1000
	historyTotalMax   = 20000
)

func historyKey(in Inbound) string {
	return laneKey(in.Channel, in.AccountID, in.Chat.ID, in.Chat.ThreadID)
}

// keepHistory records a group message the gate dropped only for want of
// a mention (its sender passed the group's allowlist).
func (m *Manager) keepHistory(cfg *config.Config, p AccountPolicy, in Inbound, v GateResult) {
	limit := min(p.HistoryLimit.Or(cfg.Messages.GroupChat.HistoryLimit), historyPerChatMax)
	if limit <= 0 || v.Reason != reasonNotMentioned || in.Kind != EventMessage || strings.TrimSpace(in.Text) == "" {
		return
	}
	line := cmp.Or(in.Sender.Name, in.Sender.ID) + ": " + strings.Join(strings.Fields(in.Text), " ")
	if len(line) > historyLineMax {
		line = strings.ToValidUTF8(line[:historyLineMax], "") + "…"
	}
	h := &m.history
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.chats == nil {
		h.chats = map[string][]string{}
	}
	k := historyKey(in)
	lines, ok := h.chats[k]
	// Forget other chats to make room (a busy or hostile set of groups
	// must not grow the gateway without end).
	for old, ls := range h.chats {
		if (ok || len(h.chats) < historyChatsMax) && h.total < historyTotalMax {
			break
		}
		if old != k {
			delete(h.chats, old)
			h.total -= len(ls)
		}
	}
	lines = append(lines, line)
	h.total++
	if len(lines) > limit {
		h.total -= len(lines) - limit
		lines = slices.Delete(lines, 0, len(lines)-limit)
	}
	h.chats[k] = lines
}

// takeHistory returns and forgets a chat's kept messages.
func (m *Manager) takeHistory(in Inbound) []string {
	h := &m.history
	h.mu.Lock()
	defer h.mu.Unlock()
	k := historyKey(in)
	lines := h.chats[k]
	delete(h.chats, k)
	h.total -= len(lines)
	return lines
}

// steerInto hands an admitted plain-text message to the turn its chat's
// lane runs for the same session (messages.queue.mode steer): the running
// turn reads it before its next model call and its answer covers it. A
// command, an attachment, another session's message, or a turn that can
// take no more waits in the queue instead (followup).
func (m *Manager) steerInto(cfg *config.Config, laneKey string, g gated, r inboundRow) bool {
	in := r.In
	text := strings.TrimSpace(in.Text)
	if text == "" || len(in.Media) > 0 || strings.HasPrefix(text, "/") || strings.HasPrefix(text, "!") {
		return false
	}
	key := SessionKey(cfg, g.agentID, g.binding, in, g.a.network.TopicThreads)
	// The lane's lock is held across the hand-over, so the turn cannot
	// settle its steered rows between taking the text and this row
	// joining them.
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.lanes[laneKey]
	if l == nil || l.steerKey != key || l.steer == nil || !l.steer(text) {
		return false
	}
	l.steered = append(l.steered, r.ID)
	return true
}
