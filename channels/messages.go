package channels

import (
	"cmp"
	"context"
	"regexp"
	"strings"
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
var prefixVar = regexp.MustCompile(`\{([A-Za-z.]+)\}`)

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
	return prefixVar.ReplaceAllStringFunc(prefix, func(v string) string {
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
