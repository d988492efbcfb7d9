package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/openclaw-go/openclaw/channels"
)

// The forum-topic, sticker and member actions. The Bot API has no
// history, search or list calls: read, reactions, list-pins,
// thread-list, search and channel-list stay unsupported.

var (
	_ channels.Threader          = (*Adapter)(nil)
	_ channels.StickerSender     = (*Adapter)(nil)
	_ channels.Moderator         = (*Adapter)(nil)
	_ channels.PermissionsReader = (*Adapter)(nil)
)

// CreateThread creates a forum topic (createForumTopic) in a forum
// supergroup and posts t.Text in it when given. Topics do not start on a
// message: MessageID is refused.
func (a *Adapter) CreateThread(ctx context.Context, to channels.Target, t channels.ThreadSpec) (any, error) {
	if t.MessageID != "" {
		return nil, fmt.Errorf("telegram forum topics do not start on a message: %w", channels.ErrUnsupported)
	}
	name := []rune(t.Name)
	if len(name) > 128 {
		name = name[:128]
	}
	var topic struct {
		ID   int64  `json:"message_thread_id"`
		Name string `json:"name"`
	}
	if err := a.callInto(ctx, "createForumTopic", tgbotapi.Params{"chat_id": to.ChatID, "name": string(name)}, &topic); err != nil {
		return nil, err
	}
	id := strconv.FormatInt(topic.ID, 10)
	out := map[string]any{"ok": true, "threadId": id, "name": topic.Name}
	if strings.TrimSpace(t.Text) != "" {
		sent, err := a.Send(ctx, channels.Outbound{To: channels.Target{ChatID: to.ChatID, ThreadID: id}, Text: t.Text})
		if err != nil {
			return nil, fmt.Errorf("topic %s was created, but its first message failed: %w", id, err)
		}
		out["messageId"] = sent.MessageID
	}
	return out, nil
}

// ListThreads: the Bot API cannot list a forum's topics.
func (a *Adapter) ListThreads(ctx context.Context, to channels.Target, limit int) (any, error) {
	return nil, fmt.Errorf("the telegram bot api cannot list forum topics: %w", channels.ErrUnsupported)
}

// SendSticker sends each sticker (a file_id) in turn (sendSticker), then
// the text as a message of its own; the result names the first.
func (a *Adapter) SendSticker(ctx context.Context, to channels.Target, stickerIDs []string, text string) (channels.Sent, error) {
	var first channels.Sent
	for _, id := range stickerIDs {
		p := a.targetParams(to, false)
		p["sticker"] = id
		var m struct {
			ID int64 `json:"message_id"`
		}
		if err := a.callInto(ctx, "sendSticker", p, &m); err != nil {
			return first, err
		}
		if first.MessageID == "" {
			first.MessageID = strconv.FormatInt(m.ID, 10)
		}
	}
	if strings.TrimSpace(text) != "" {
		if _, err := a.Send(ctx, channels.Outbound{To: to, Text: text}); err != nil {
			return first, err
		}
	}
	return first, nil
}

// Telegram treats a restriction or ban shorter than 30 seconds or longer
// than 366 days as forever; the agent must say so instead.
const (
	minRestrict = 30 * time.Second
	maxRestrict = 366 * 24 * time.Hour
)

// sendPermissions are the ChatPermissions of sending, all set to on.
func sendPermissions(on bool) string {
	keys := []string{"can_send_messages", "can_send_audios", "can_send_documents", "can_send_photos", "can_send_videos",
		"can_send_video_notes", "can_send_voice_notes", "can_send_polls", "can_send_other_messages", "can_add_web_page_previews"}
	m := map[string]bool{}
	for _, k := range keys {
		m[k] = on
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// noPermissions is what a timed-out member may do: nothing.
var noPermissions = sendPermissions(false)

// Timeout keeps a member of a supergroup from sending anything until
// until (restrictChatMember). A zero until lifts it: the member gets the
// chat's default permissions back (an unrestricted member's). reason has
// nowhere to go on Telegram.
func (a *Adapter) Timeout(ctx context.Context, to channels.Target, userID string, until time.Time, reason string) error {
	if until.IsZero() {
		var chat struct {
			Permissions json.RawMessage `json:"permissions"`
		}
		if err := a.callInto(ctx, "getChat", tgbotapi.Params{"chat_id": to.ChatID}, &chat); err != nil {
			return err
		}
		// A field left out of ChatPermissions is false: without the chat's
		// defaults, lifting must name every send right, not send "{}".
		perms := string(chat.Permissions)
		if len(chat.Permissions) == 0 || perms == "null" {
			perms = sendPermissions(true)
		}
		return a.callInto(ctx, "restrictChatMember", tgbotapi.Params{"chat_id": to.ChatID, "user_id": userID, "permissions": perms}, nil)
	}
	if d := time.Until(until); d < minRestrict || d > maxRestrict {
		return errors.New("telegram timeout: from 30 seconds to 366 days ahead")
	}
	return a.callInto(ctx, "restrictChatMember", tgbotapi.Params{"chat_id": to.ChatID, "user_id": userID,
		"permissions": noPermissions, "until_date": strconv.FormatInt(until.Unix(), 10)}, nil)
}

// Kick removes a member, who may come back by link (banChatMember, then
// unbanChatMember of the ban only).
func (a *Adapter) Kick(ctx context.Context, to channels.Target, userID, reason string) error {
	if err := a.callInto(ctx, "banChatMember", tgbotapi.Params{"chat_id": to.ChatID, "user_id": userID}, nil); err != nil {
		return err
	}
	return a.callInto(ctx, "unbanChatMember", tgbotapi.Params{"chat_id": to.ChatID, "user_id": userID, "only_if_banned": "true"}, nil)
}

// Ban bans a member for good (banChatMember); deleteDays above 0 also
// deletes all their messages in the chat (Telegram deletes all or none).
func (a *Adapter) Ban(ctx context.Context, to channels.Target, userID, reason string, deleteDays int) error {
	p := tgbotapi.Params{"chat_id": to.ChatID, "user_id": userID}
	if deleteDays > 0 {
		p["revoke_messages"] = "true"
	}
	return a.callInto(ctx, "banChatMember", p, nil)
}

// Permissions returns a member's status and rights in the chat
// (getChatMember), the bot's own when userID is "".
func (a *Adapter) Permissions(ctx context.Context, to channels.Target, userID string) (any, error) {
	if userID == "" {
		me := a.self.Load()
		if me == nil {
			return nil, errors.New("telegram permissions: the bot's own id is not known yet; name a userId")
		}
		userID = strconv.FormatInt(me.ID, 10)
	}
	var m map[string]any
	if err := a.callInto(ctx, "getChatMember", tgbotapi.Params{"chat_id": to.ChatID, "user_id": userID}, &m); err != nil {
		return nil, err
	}
	out := map[string]any{"ok": true, "userId": userID, "status": m["status"]}
	perms := map[string]any{}
	for k, v := range m {
		if strings.HasPrefix(k, "can_") {
			perms[k] = v
		}
	}
	out["permissions"] = perms
	if u, ok := m["until_date"]; ok {
		out["untilDate"] = u
	}
	return out, nil
}
