package slack

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/openclaw-go/openclaw/channels"
)

// The reading and workspace actions: read, reactions, list-pins,
// thread-list, channel-list, emoji-list, kick; search needs a user token.

var (
	_ channels.Reader         = (*Adapter)(nil)
	_ channels.ReactionLister = (*Adapter)(nil)
	_ channels.PinLister      = (*Adapter)(nil)
	_ channels.Threader       = (*Adapter)(nil)
	_ channels.ChannelLister  = (*Adapter)(nil)
	_ channels.Searcher       = (*Adapter)(nil)
	_ channels.EmojiLister    = (*Adapter)(nil)
	_ channels.Moderator      = (*Adapter)(nil)
)

// pageSize is limit within 1-100 (Slack allows more; the agent needs no
// more), defaulting to def.
func pageSize(limit, def int) int {
	if limit <= 0 {
		return def
	}
	return min(limit, 100)
}

// brief is the part of a message the agent reads.
func brief(m slackapi.Message) map[string]any {
	out := map[string]any{"ts": m.Timestamp, "user": m.User, "text": m.Text}
	if m.BotID != "" {
		out["botId"] = m.BotID
	}
	if m.ThreadTimestamp != "" {
		out["threadTs"] = m.ThreadTimestamp
	}
	if m.ReplyCount > 0 {
		out["replyCount"] = m.ReplyCount
	}
	if len(m.Reactions) > 0 {
		out["reactions"] = reactionsOf(m.Reactions)
	}
	return out
}

func reactionsOf(rs []slackapi.ItemReaction) []map[string]any {
	out := make([]map[string]any, len(rs))
	for i, r := range rs {
		out[i] = map[string]any{"emoji": r.Name, "count": r.Count, "users": r.Users}
	}
	return out
}

func briefs(ms []slackapi.Message) []map[string]any {
	out := make([]map[string]any, len(ms))
	for i, m := range ms {
		out[i] = brief(m)
	}
	return out
}

// Read returns the channel's messages, newest first
// (conversations.history), or a thread's, oldest first
// (conversations.replies). Before and After are message timestamps.
func (a *Adapter) Read(ctx context.Context, to channels.Target, q channels.ReadQuery) (any, error) {
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	if to.ThreadID != "" {
		msgs, _, _, err := a.api.GetConversationRepliesContext(cctx, &slackapi.GetConversationRepliesParameters{
			ChannelID: to.ChatID, Timestamp: to.ThreadID, Latest: q.Before, Oldest: q.After, Limit: pageSize(q.Limit, 20)})
		if err != nil {
			return nil, a.classify(cctx, "conversations.replies", err)
		}
		return map[string]any{"ok": true, "messages": briefs(msgs)}, nil
	}
	h, err := a.api.GetConversationHistoryContext(cctx, &slackapi.GetConversationHistoryParameters{
		ChannelID: to.ChatID, Latest: q.Before, Oldest: q.After, Limit: pageSize(q.Limit, 20)})
	if err != nil {
		return nil, a.classify(cctx, "conversations.history", err)
	}
	return map[string]any{"ok": true, "messages": briefs(h.Messages)}, nil
}

// Reactions returns the reactions on a message (reactions.get), each
// with who reacted; an emoji keeps only that one.
func (a *Adapter) Reactions(ctx context.Context, to channels.Target, messageID, emoji string, limit int) (any, error) {
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	item, err := a.api.GetReactionsContext(cctx, slackapi.NewRefToMessage(to.ChatID, messageID), slackapi.GetReactionsParameters{Full: true})
	if err != nil {
		return nil, a.classify(cctx, "reactions.get", err)
	}
	rs := item.Reactions
	if name := strings.Trim(emoji, ":"); name != "" {
		rs = slices.DeleteFunc(rs, func(r slackapi.ItemReaction) bool { return r.Name != name })
	}
	return map[string]any{"ok": true, "messageId": messageID, "reactions": reactionsOf(rs)}, nil
}

// ListPins returns the channel's pinned messages (pins.list).
func (a *Adapter) ListPins(ctx context.Context, to channels.Target) (any, error) {
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	items, _, err := a.api.ListPinsContext(cctx, to.ChatID)
	if err != nil {
		return nil, a.classify(cctx, "pins.list", err)
	}
	var out []map[string]any
	for _, it := range items {
		if it.Message != nil {
			out = append(out, brief(*it.Message))
		}
	}
	return map[string]any{"ok": true, "pins": out}, nil
}

// CreateThread is not a Slack call: a thread starts with a reply.
func (a *Adapter) CreateThread(ctx context.Context, to channels.Target, t channels.ThreadSpec) (any, error) {
	return nil, fmt.Errorf("slack starts a thread with a reply (thread-reply with threadId set to the message): %w", channels.ErrUnsupported)
}

// ListThreads returns the recent messages of the channel that have
// replies (conversations.history): Slack has no list of threads.
func (a *Adapter) ListThreads(ctx context.Context, to channels.Target, limit int) (any, error) {
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	h, err := a.api.GetConversationHistoryContext(cctx, &slackapi.GetConversationHistoryParameters{ChannelID: to.ChatID, Limit: 100})
	if err != nil {
		return nil, a.classify(cctx, "conversations.history", err)
	}
	var out []map[string]any
	for _, m := range h.Messages {
		if m.ReplyCount > 0 && len(out) < pageSize(limit, 100) {
			out = append(out, map[string]any{"threadTs": m.Timestamp, "text": m.Text, "replyCount": m.ReplyCount, "latestReply": m.LatestReply})
		}
	}
	return map[string]any{"ok": true, "threads": out}, nil
}

// ListChannels returns the workspace's public and private channels the
// bot can see (conversations.list), without archived ones.
func (a *Adapter) ListChannels(ctx context.Context, to channels.Target) (any, error) {
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	chs, _, err := a.api.GetConversationsContext(cctx, &slackapi.GetConversationsParameters{
		Types: []string{"public_channel", "private_channel"}, ExcludeArchived: true, Limit: 200})
	if err != nil {
		return nil, a.classify(cctx, "conversations.list", err)
	}
	out := make([]map[string]any, len(chs))
	for i, c := range chs {
		out[i] = map[string]any{"id": c.ID, "name": c.Name, "private": c.IsPrivate, "member": c.IsMember, "members": c.NumMembers}
	}
	return map[string]any{"ok": true, "channels": out}, nil
}

// Search needs a user token (search.messages is not open to bot tokens);
// this gateway configures only the bot's.
func (a *Adapter) Search(ctx context.Context, to channels.Target, query string, limit int) (any, error) {
	return nil, fmt.Errorf("slack search.messages needs a user token, and only a bot token is configured: %w", channels.ErrUnsupported)
}

// ListEmojis returns the workspace's custom emoji (emoji.list), sorted
// by name; an alias names what it points to.
func (a *Adapter) ListEmojis(ctx context.Context, to channels.Target, limit int) (any, error) {
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	m, err := a.api.GetEmojiContext(cctx)
	if err != nil {
		return nil, a.classify(cctx, "emoji.list", err)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range m {
			if !yield(n) {
				return
			}
		}
	})
	names = names[:min(len(names), pageSize(limit, 100))]
	out := make([]map[string]any, len(names))
	for i, n := range names {
		out[i] = map[string]any{"name": n, "identifier": n}
		if alias, ok := strings.CutPrefix(m[n], "alias:"); ok {
			out[i]["aliasOf"] = alias
		}
	}
	return map[string]any{"ok": true, "emojis": out}, nil
}

// Kick removes a member from the channel (conversations.kick); reason
// has nowhere to go on Slack.
func (a *Adapter) Kick(ctx context.Context, to channels.Target, userID, reason string) error {
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	return a.classify(cctx, "conversations.kick", a.api.KickUserFromConversationContext(cctx, to.ChatID, userID))
}

// Timeout does not exist on Slack.
func (a *Adapter) Timeout(ctx context.Context, to channels.Target, userID string, until time.Time, reason string) error {
	return fmt.Errorf("slack has no timeouts: %w", channels.ErrUnsupported)
}

// Ban is an admin API call (admin.users.remove) a bot cannot make.
func (a *Adapter) Ban(ctx context.Context, to channels.Target, userID, reason string, deleteDays int) error {
	return fmt.Errorf("slack bots cannot ban (kick removes from the channel): %w", channels.ErrUnsupported)
}
