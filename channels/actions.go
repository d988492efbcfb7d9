package channels

import (
	"context"
	"errors"
	"time"
)

// DangerousActions change who is in a chat, what they may do, or what
// the server holds: a chat stranger (or a prompt-injected model) must not
// reach them. The message tool runs them only for the owner, and the
// networks that have an OpenClaw switch for them keep it off by default.
var DangerousActions = []string{"timeout", "kick", "ban", "role-add", "role-remove", "emoji-upload", "sticker-upload", "event-create"}

// maxDeleteDays is the most days of messages a ban may delete.
const maxDeleteDays = 7

// moreAction runs the reading, thread, server and moderation actions.
// handled is false for an action it does not know.
func moreAction(ctx context.Context, ad Adapter, req ActionRequest, unsupported error, need func(field, v string) error, ok map[string]any) (res any, handled bool, err error) {
	do := func(r any, err error) (any, bool, error) { return r, true, err }
	done := func(err error) (any, bool, error) {
		if err != nil {
			return nil, true, err
		}
		return ok, true, nil
	}
	switch req.Action {
	case "read":
		r, ok2 := ad.(Reader)
		if !ok2 {
			return do(nil, unsupported)
		}
		return do(r.Read(ctx, req.To, ReadQuery{Limit: req.Limit, Before: req.Before, After: req.After}))
	case "reactions":
		r, ok2 := ad.(ReactionLister)
		if !ok2 {
			return do(nil, unsupported)
		}
		if err := need("messageId", req.MessageID); err != nil {
			return do(nil, err)
		}
		return do(r.Reactions(ctx, req.To, req.MessageID, req.Emoji, req.Limit))
	case "list-pins":
		p, ok2 := ad.(PinLister)
		if !ok2 {
			return do(nil, unsupported)
		}
		return do(p.ListPins(ctx, req.To))
	case "thread-create", "thread-list":
		t, ok2 := ad.(Threader)
		if !ok2 {
			return do(nil, unsupported)
		}
		if req.Action == "thread-list" {
			return do(t.ListThreads(ctx, req.To, req.Limit))
		}
		if err := need("a thread name (threadName)", req.Name); err != nil {
			return do(nil, err)
		}
		return do(t.CreateThread(ctx, req.To, ThreadSpec{Name: req.Name, MessageID: req.MessageID, Text: req.Text, AutoArchiveMinutes: req.AutoArchive}))
	case "channel-list":
		c, ok2 := ad.(ChannelLister)
		if !ok2 {
			return do(nil, unsupported)
		}
		return do(c.ListChannels(ctx, req.To))
	case "search":
		s, ok2 := ad.(Searcher)
		if !ok2 {
			return do(nil, unsupported)
		}
		if err := need("a query", req.Query); err != nil {
			return do(nil, err)
		}
		return do(s.Search(ctx, req.To, req.Query, req.Limit))
	case "role-info", "role-add", "role-remove":
		r, ok2 := ad.(Roles)
		if !ok2 {
			return do(nil, unsupported)
		}
		switch req.Action {
		case "role-info":
			return do(r.RoleInfo(ctx, req.To))
		case "role-add":
			if err := errors.Join(need("userId", req.UserID), need("roleId", req.RoleID)); err != nil {
				return do(nil, err)
			}
			return done(r.AddRole(ctx, req.To, req.UserID, req.RoleID))
		default:
			if err := errors.Join(need("userId", req.UserID), need("roleId", req.RoleID)); err != nil {
				return do(nil, err)
			}
			return done(r.RemoveRole(ctx, req.To, req.UserID, req.RoleID))
		}
	case "timeout", "kick", "ban":
		m, ok2 := ad.(Moderator)
		if !ok2 {
			return do(nil, unsupported)
		}
		if err := need("userId", req.UserID); err != nil {
			return do(nil, err)
		}
		switch req.Action {
		case "timeout":
			until := req.Until
			if until.IsZero() && req.DurationMinutes > 0 {
				until = time.Now().Add(time.Duration(req.DurationMinutes) * time.Minute)
			}
			return done(m.Timeout(ctx, req.To, req.UserID, until, req.Reason))
		case "kick":
			return done(m.Kick(ctx, req.To, req.UserID, req.Reason))
		default:
			return done(m.Ban(ctx, req.To, req.UserID, req.Reason, min(max(req.DeleteDays, 0), maxDeleteDays)))
		}
	case "permissions":
		p, ok2 := ad.(PermissionsReader)
		if !ok2 {
			return do(nil, unsupported)
		}
		return do(p.Permissions(ctx, req.To, req.UserID))
	case "emoji-list":
		e, ok2 := ad.(EmojiLister)
		if !ok2 {
			return do(nil, unsupported)
		}
		return do(e.ListEmojis(ctx, req.To, req.Limit))
	case "sticker":
		s, ok2 := ad.(StickerSender)
		if !ok2 {
			return do(nil, unsupported)
		}
		if len(req.StickerIDs) == 0 {
			return do(nil, errors.New("sticker needs stickerId"))
		}
		sent, err := s.SendSticker(ctx, req.To, req.StickerIDs, req.Text)
		if err != nil {
			return do(nil, err)
		}
		ok["messageId"] = sent.MessageID
		return ok, true, nil
	case "voice-status":
		v, ok2 := ad.(VoiceStatuser)
		if !ok2 {
			return do(nil, unsupported)
		}
		if err := need("userId", req.UserID); err != nil {
			return do(nil, err)
		}
		return do(v.VoiceStatus(ctx, req.To, req.UserID))
	case "event-list", "event-create":
		e, ok2 := ad.(Eventer)
		if !ok2 {
			return do(nil, unsupported)
		}
		if req.Action == "event-list" {
			return do(e.ListEvents(ctx, req.To))
		}
		ev := req.Event
		if ev.Name == "" {
			ev.Name = req.Name
		}
		if err := need("eventName", ev.Name); err != nil {
			return do(nil, err)
		}
		if ev.Start.IsZero() {
			return do(nil, errors.New("event-create needs startTime (RFC 3339)"))
		}
		return do(e.CreateEvent(ctx, req.To, ev))
	case "emoji-upload":
		u, ok2 := ad.(EmojiUploader)
		if !ok2 {
			return do(nil, unsupported)
		}
		if err := errors.Join(need("emojiName", req.EmojiName), need("media (an image in your workspace)", req.MediaPath)); err != nil {
			return do(nil, err)
		}
		return do(u.UploadEmoji(ctx, req.To, req.EmojiName, req.MediaPath))
	case "sticker-upload":
		u, ok2 := ad.(StickerUploader)
		if !ok2 {
			return do(nil, unsupported)
		}
		if err := errors.Join(need("stickerName", req.Sticker.Name), need("stickerTags", req.Sticker.Tags),
			need("media (an image in your workspace)", req.MediaPath)); err != nil {
			return do(nil, err)
		}
		return do(u.UploadSticker(ctx, req.To, req.Sticker, req.MediaPath))
	}
	return nil, false, nil
}
