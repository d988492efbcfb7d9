package discord

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/openclaw-go/openclaw/channels"
)

// The reading and thread actions: read, reactions, list-pins,
// thread-create, thread-list and channel-list.

var (
	_ channels.Reader         = (*Adapter)(nil)
	_ channels.ReactionLister = (*Adapter)(nil)
	_ channels.PinLister      = (*Adapter)(nil)
	_ channels.Threader       = (*Adapter)(nil)
	_ channels.ChannelLister  = (*Adapter)(nil)
	_ channels.ThreadVerifier = (*Adapter)(nil)
)

// maxPage is the most items one Discord list call returns.
const maxPage = 100

// pageSize is limit within Discord's 1-100, defaulting to def.
func pageSize(limit, def int) int {
	if limit <= 0 {
		return def
	}
	return min(limit, maxPage)
}

// brief is the part of a message the agent reads.
func brief(m *discordgo.Message) map[string]any {
	out := map[string]any{"id": m.ID, "channelId": m.ChannelID, "content": m.Content, "timestamp": m.Timestamp}
	if m.Author != nil {
		out["author"] = map[string]any{"id": m.Author.ID, "username": m.Author.Username, "bot": m.Author.Bot}
	}
	if len(m.Attachments) > 0 {
		names := make([]string, len(m.Attachments))
		for i, at := range m.Attachments {
			names[i] = at.Filename
		}
		out["attachments"] = names
	}
	if len(m.Reactions) > 0 {
		out["reactions"] = reactionCounts(m.Reactions)
	}
	return out
}

func reactionCounts(rs []*discordgo.MessageReactions) []map[string]any {
	out := make([]map[string]any, 0, len(rs))
	for _, r := range rs {
		e := map[string]any{"count": r.Count, "me": r.Me}
		if r.Emoji != nil {
			e["emoji"] = r.Emoji.Name
			if r.Emoji.ID != "" {
				e["emoji"] = r.Emoji.Name + ":" + r.Emoji.ID
			}
		}
		out = append(out, e)
	}
	return out
}

// Read returns up to q.Limit (default 20) messages of the channel or
// thread, newest first.
func (a *Adapter) Read(ctx context.Context, to channels.Target, q channels.ReadQuery) (any, error) {
	ch, err := a.scoped(ctx, to)
	if err != nil {
		return nil, err
	}
	var msgs []*discordgo.Message
	err = a.call(ctx, "read messages", func(o ...discordgo.RequestOption) (err error) {
		msgs, err = a.rest.ChannelMessages(ch, pageSize(q.Limit, 20), q.Before, q.After, "", o...)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(msgs))
	for i, m := range msgs {
		out[i] = brief(m)
	}
	return map[string]any{"ok": true, "messages": out}, nil
}

// Reactions returns the reaction counts of a message; with an emoji,
// also the users who reacted with it.
func (a *Adapter) Reactions(ctx context.Context, to channels.Target, messageID, emoji string, limit int) (any, error) {
	ch, err := a.scoped(ctx, to)
	if err != nil {
		return nil, err
	}
	var m *discordgo.Message
	err = a.call(ctx, "get message", func(o ...discordgo.RequestOption) (err error) {
		m, err = a.rest.ChannelMessage(ch, messageID, o...)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := map[string]any{"ok": true, "messageId": messageID, "reactions": reactionCounts(m.Reactions)}
	if emoji == "" {
		return out, nil
	}
	emoji = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(emoji, "<"), "a:"), ">")
	var users []*discordgo.User
	err = a.call(ctx, "list reactions", func(o ...discordgo.RequestOption) (err error) {
		users, err = a.rest.MessageReactions(ch, messageID, url.PathEscape(emoji), pageSize(limit, 25), "", "", o...)
		return err
	})
	if err != nil {
		return nil, err
	}
	ids := make([]map[string]any, len(users))
	for i, u := range users {
		ids[i] = map[string]any{"id": u.ID, "username": u.Username}
	}
	out["emoji"], out["users"] = emoji, ids
	return out, nil
}

// ListPins returns the channel's pinned messages.
func (a *Adapter) ListPins(ctx context.Context, to channels.Target) (any, error) {
	ch, err := a.scoped(ctx, to)
	if err != nil {
		return nil, err
	}
	var msgs []*discordgo.Message
	err = a.call(ctx, "list pins", func(o ...discordgo.RequestOption) (err error) {
		msgs, err = a.rest.ChannelMessagesPinned(ch, o...)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(msgs))
	for i, m := range msgs {
		out[i] = brief(m)
	}
	return map[string]any{"ok": true, "pins": out}, nil
}

// archiveMinutes are the auto-archive durations Discord accepts.
var archiveMinutes = []int{60, 1440, 4320, 10080}

// CreateThread starts a thread on a message, or a public thread of its
// own in the channel, and posts t.Text in it when given.
func (a *Adapter) CreateThread(ctx context.Context, to channels.Target, t channels.ThreadSpec) (any, error) {
	archive := 1440
	if t.AutoArchiveMinutes > 0 {
		archive = archiveMinutes[len(archiveMinutes)-1]
		for _, m := range archiveMinutes {
			if t.AutoArchiveMinutes <= m {
				archive = m
				break
			}
		}
	}
	name := []rune(t.Name)
	if len(name) > 100 {
		name = name[:100]
	}
	if t.MessageID == "" {
		var parent struct {
			Type discordgo.ChannelType `json:"type"`
		}
		if err := a.getJSON(ctx, "get channel", discordgo.EndpointChannel(to.ChatID), &parent); err != nil {
			return nil, err
		}
		if parent.Type == discordgo.ChannelTypeGuildForum || parent.Type == discordgo.ChannelTypeGuildMedia {
			return a.forumPost(ctx, to, string(name), archive, t.Text)
		}
	}
	var th *discordgo.Channel
	err := a.call(ctx, "create thread", func(o ...discordgo.RequestOption) (err error) {
		if t.MessageID != "" {
			th, err = a.rest.MessageThreadStart(to.ChatID, t.MessageID, string(name), archive, o...)
		} else {
			th, err = a.rest.ThreadStart(to.ChatID, string(name), discordgo.ChannelTypeGuildPublicThread, archive, o...)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	out := map[string]any{"ok": true, "threadId": th.ID, "name": th.Name, "parentId": th.ParentID}
	if strings.TrimSpace(t.Text) != "" {
		sent, err := a.Send(ctx, channels.Outbound{To: channels.Target{ChatID: to.ChatID, ThreadID: th.ID}, Text: t.Text})
		if err != nil {
			return nil, fmt.Errorf("thread %s was created, but its first message failed: %w", th.ID, err)
		}
		out["messageId"] = sent.MessageID
	}
	return out, nil
}

// forumPost starts a post of a forum (or media) channel: a thread whose
// first message, text, Discord requires.
func (a *Adapter) forumPost(ctx context.Context, to channels.Target, name string, archive int, text string) (any, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("discord: a forum post needs its first message (message)")
	}
	content := FormatMarkdown(text)
	if parts := channels.Chunk(content, a.opts.TextLimit, channels.ChunkLength); len(parts) > 0 {
		content = parts[0]
	}
	ms := &discordgo.MessageSend{Content: content, AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}}
	var th *discordgo.Channel
	err := a.call(ctx, "create forum post", func(o ...discordgo.RequestOption) (err error) {
		th, err = a.rest.ForumThreadStartComplex(to.ChatID, &discordgo.ThreadStart{Name: name, AutoArchiveDuration: archive}, ms, o...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "threadId": th.ID, "name": th.Name, "parentId": th.ParentID}, nil
}

// ListThreads returns the active threads of the channel (of every
// channel when the target is not a thread's parent).
func (a *Adapter) ListThreads(ctx context.Context, to channels.Target, limit int) (any, error) {
	guild, err := a.guildOf(ctx, to.ChatID)
	if err != nil {
		return nil, err
	}
	var list *discordgo.ThreadsList
	err = a.call(ctx, "list threads", func(o ...discordgo.RequestOption) (err error) {
		list, err = a.rest.GuildThreadsActive(guild, o...)
		return err
	})
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, th := range list.Threads {
		if th.ParentID != to.ChatID {
			continue
		}
		out = append(out, map[string]any{"id": th.ID, "name": th.Name, "parentId": th.ParentID, "messageCount": th.MessageCount})
		if len(out) == pageSize(limit, maxPage) {
			break
		}
	}
	return map[string]any{"ok": true, "threads": out}, nil
}

// ListChannels returns the channels of the chat's server.
func (a *Adapter) ListChannels(ctx context.Context, to channels.Target) (any, error) {
	if to.ChatID == "" {
		return nil, fmt.Errorf("discord channel-list needs a channel of the server: %w", channels.ErrUnsupported)
	}
	guild, err := a.guildOf(ctx, to.ChatID)
	if err != nil {
		return nil, err
	}
	var chs []*discordgo.Channel
	err = a.call(ctx, "list channels", func(o ...discordgo.RequestOption) (err error) {
		chs, err = a.rest.GuildChannels(guild, o...)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(chs))
	for i, c := range chs {
		out[i] = map[string]any{"id": c.ID, "name": c.Name, "type": c.Type, "parentId": c.ParentID, "position": c.Position}
	}
	return map[string]any{"ok": true, "guildId": guild, "channels": out}, nil
}

// scoped is the channel an action on to reads or writes: the thread when
// the target names one, once Discord confirms it is a thread of the
// target's channel. A thread id is a channel id on Discord, so without
// the check a session bound to one channel could name any channel the
// bot can see, in any server, as its "thread".
func (a *Adapter) scoped(ctx context.Context, to channels.Target) (string, error) {
	if to.ThreadID == "" || to.ThreadID == to.ChatID {
		return to.ChatID, nil
	}
	var th struct {
		ParentID string `json:"parent_id"`
	}
	if err := a.getJSON(ctx, "get thread", discordgo.EndpointChannel(to.ThreadID), &th); err != nil {
		return "", err
	}
	if th.ParentID != to.ChatID {
		return "", fmt.Errorf("discord: %s is not a thread of channel %s", to.ThreadID, to.ChatID)
	}
	return to.ThreadID, nil
}

// VerifyThread refuses a thread that is not a thread of the target's
// channel, before the manager runs any action (send, edit, delete, ...)
// on it.
func (a *Adapter) VerifyThread(ctx context.Context, to channels.Target) error {
	_, err := a.scoped(ctx, to)
	return err
}

// guildOf is the server of a channel; a DM has none.
func (a *Adapter) guildOf(ctx context.Context, chatID string) (string, error) {
	var ch struct {
		GuildID string `json:"guild_id"`
	}
	if err := a.getJSON(ctx, "get channel", discordgo.EndpointChannel(chatID), &ch); err != nil {
		return "", err
	}
	if ch.GuildID == "" {
		return "", fmt.Errorf("discord channel %s is a direct message, not in a server: %w", chatID, channels.ErrUnsupported)
	}
	return ch.GuildID, nil
}
