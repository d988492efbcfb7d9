package telegram

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/openclaw-go/openclaw/channels"
)

// The Bot API objects the adapter reads. They are ours rather than the
// library's because the library predates forum topics and reactions.
type (
	tgUpdate struct {
		UpdateID          int64            `json:"update_id"`
		Message           *tgMessage       `json:"message"`
		EditedMessage     *tgMessage       `json:"edited_message"`
		ChannelPost       *tgMessage       `json:"channel_post"`
		EditedChannelPost *tgMessage       `json:"edited_channel_post"`
		CallbackQuery     *tgCallbackQuery `json:"callback_query"`
		MessageReaction   *tgReaction      `json:"message_reaction"`
		ChatMember        *tgMemberUpdated `json:"chat_member"`
	}
	tgMessage struct {
		MessageID       int64      `json:"message_id"`
		MessageThreadID int64      `json:"message_thread_id"`
		IsTopicMessage  bool       `json:"is_topic_message"`
		From            *tgUser    `json:"from"`
		SenderChat      *tgChat    `json:"sender_chat"`
		Chat            tgChat     `json:"chat"`
		Date            int64      `json:"date"`
		EditDate        int64      `json:"edit_date"`
		Text            string     `json:"text"`
		Entities        []tgEntity `json:"entities"`
		Caption         string     `json:"caption"`
		CaptionEntities []tgEntity `json:"caption_entities"`
		ReplyToMessage  *tgMessage `json:"reply_to_message"`
		Photo           []tgFile   `json:"photo"`
		Document        *tgFile    `json:"document"`
		Audio           *tgFile    `json:"audio"`
		Voice           *tgFile    `json:"voice"`
		Video           *tgFile    `json:"video"`
		Sticker         *tgFile    `json:"sticker"`
		NewChatMembers  []tgUser   `json:"new_chat_members"`
		LeftChatMember  *tgUser    `json:"left_chat_member"`
	}
	tgUser struct {
		ID        int64  `json:"id"`
		IsBot     bool   `json:"is_bot"`
		FirstName string `json:"first_name"`
		LastName  string `json:"last_name"`
		Username  string `json:"username"`
	}
	tgChat struct {
		ID        int64  `json:"id"`
		Type      string `json:"type"`
		Title     string `json:"title"`
		Username  string `json:"username"`
		FirstName string `json:"first_name"`
		LastName  string `json:"last_name"`
		IsForum   bool   `json:"is_forum"`
	}
	tgEntity struct {
		Type   string  `json:"type"`
		Offset int     `json:"offset"`
		Length int     `json:"length"`
		User   *tgUser `json:"user"`
	}
	tgFile struct {
		FileID   string `json:"file_id"`
		FileName string `json:"file_name"`
		MimeType string `json:"mime_type"`
		FileSize int64  `json:"file_size"`
		Emoji    string `json:"emoji"`
	}
	tgCallbackQuery struct {
		ID      string     `json:"id"`
		From    tgUser     `json:"from"`
		Message *tgMessage `json:"message"`
		Data    string     `json:"data"`
	}
	tgReaction struct {
		Chat        tgChat           `json:"chat"`
		MessageID   int64            `json:"message_id"`
		User        *tgUser          `json:"user"`
		ActorChat   *tgChat          `json:"actor_chat"`
		Date        int64            `json:"date"`
		NewReaction []tgReactionType `json:"new_reaction"`
	}
	tgReactionType struct {
		Type          string `json:"type"`
		Emoji         string `json:"emoji"`
		CustomEmojiID string `json:"custom_emoji_id"`
	}
	tgMemberUpdated struct {
		Chat          tgChat   `json:"chat"`
		From          tgUser   `json:"from"`
		Date          int64    `json:"date"`
		OldChatMember tgMember `json:"old_chat_member"`
		NewChatMember tgMember `json:"new_chat_member"`
	}
	tgMember struct {
		Status   string `json:"status"`
		User     tgUser `json:"user"`
		IsMember bool   `json:"is_member"`
	}
)

// allowedUpdates are the update kinds the adapter asks for; reactions and
// chat members are not sent unless asked.
const allowedUpdates = `["message","edited_message","channel_post","edited_channel_post","callback_query","message_reaction","chat_member"]`

// parseUpdate decodes one update.
func parseUpdate(data []byte) (tgUpdate, error) {
	var u tgUpdate
	err := json.Unmarshal(data, &u)
	return u, err
}

// normalise turns an update into an Inbound event. ok is false for
// updates with nothing to act on (kinds we do not handle, service
// messages); the caller confirms those without delivering them.
//
// Member events carry the member as Sender and "joined" or "left" as
// Text. Reaction events carry the first new emoji ("" when removed).
func normalise(u tgUpdate, me botIdentity, account string) (in channels.Inbound, ok bool) {
	in = channels.Inbound{
		Channel:   Channel,
		AccountID: account,
		EventID:   strconv.FormatInt(u.UpdateID, 10),
	}
	switch {
	case u.Message != nil:
		return fromMessage(in, u.Message, me, false)
	case u.EditedMessage != nil:
		return fromMessage(in, u.EditedMessage, me, true)
	case u.ChannelPost != nil:
		return fromMessage(in, u.ChannelPost, me, false)
	case u.EditedChannelPost != nil:
		return fromMessage(in, u.EditedChannelPost, me, true)
	case u.CallbackQuery != nil:
		q := u.CallbackQuery
		if q.ID == "" {
			return in, false
		}
		in.Kind = channels.EventCallback
		in.CallbackID, in.CallbackData = q.ID, q.Data
		in.Sender = senderOf(&q.From)
		in.Time = time.Now().UTC()
		if m := q.Message; m != nil {
			in.MessageID = itoa(m.MessageID)
			in.Chat = chatOf(m)
			if m.Date > 0 {
				in.Time = time.Unix(m.Date, 0).UTC()
			}
		} else {
			in.Chat = channels.Chat{ID: itoa(q.From.ID), Kind: channels.Direct}
		}
		return in, true
	case u.MessageReaction != nil:
		r := u.MessageReaction
		in.Kind = channels.EventReaction
		in.MessageID = itoa(r.MessageID)
		in.Chat = channels.Chat{ID: itoa(r.Chat.ID), Kind: chatKind(r.Chat.Type), Title: chatTitle(r.Chat)}
		switch {
		case r.User != nil:
			in.Sender = senderOf(r.User)
		case r.ActorChat != nil:
			in.Sender = senderOfChat(r.ActorChat)
		}
		for _, rt := range r.NewReaction {
			switch {
			case rt.Type == "emoji" && rt.Emoji != "":
				in.Reaction = rt.Emoji
			case rt.Type == "custom_emoji" && rt.CustomEmojiID != "":
				in.Reaction = "custom:" + rt.CustomEmojiID
			default:
				continue
			}
			break
		}
		in.Time = time.Unix(r.Date, 0).UTC()
		return in, true
	case u.ChatMember != nil:
		cm := u.ChatMember
		was, is := isMember(cm.OldChatMember), isMember(cm.NewChatMember)
		if was == is {
			return in, false
		}
		in.Kind = channels.EventMember
		in.Chat = channels.Chat{ID: itoa(cm.Chat.ID), Kind: chatKind(cm.Chat.Type), Title: chatTitle(cm.Chat)}
		in.Sender = senderOf(&cm.NewChatMember.User)
		in.Text = "left"
		if is {
			in.Text = "joined"
		}
		in.Time = time.Unix(cm.Date, 0).UTC()
		return in, true
	}
	return in, false
}

func isMember(m tgMember) bool {
	switch m.Status {
	case "creator", "administrator", "member":
		return true
	case "restricted":
		return m.IsMember
	}
	return false
}

func fromMessage(in channels.Inbound, m *tgMessage, me botIdentity, edited bool) (channels.Inbound, bool) {
	in.Kind = channels.EventMessage
	if edited {
		in.Kind = channels.EventEdit
	}
	in.MessageID = itoa(m.MessageID)
	in.Chat = chatOf(m)
	switch {
	case m.SenderChat != nil:
		in.Sender = senderOfChat(m.SenderChat)
	case m.From != nil:
		in.Sender = senderOf(m.From)
	}
	in.Time = time.Unix(m.Date, 0).UTC()
	if edited && m.EditDate > 0 {
		in.Time = time.Unix(m.EditDate, 0).UTC()
	}

	switch {
	case len(m.NewChatMembers) > 0:
		in.Kind = channels.EventMember
		in.Sender = senderOf(&m.NewChatMembers[0])
		in.Text = "joined"
		return in, true
	case m.LeftChatMember != nil:
		in.Kind = channels.EventMember
		in.Sender = senderOf(m.LeftChatMember)
		in.Text = "left"
		return in, true
	}

	text, ents := m.Text, m.Entities
	if text == "" {
		text, ents = m.Caption, m.CaptionEntities
	}
	in.Media = mediaOf(m)
	if text == "" && len(in.Media) == 0 {
		return in, false // a service message: pins, topic changes, …
	}
	in.Mentioned = mentions(text, ents, me)
	if r := m.ReplyToMessage; r != nil && !(m.IsTopicMessage && r.MessageID == m.MessageThreadID) {
		// In a forum topic a message that replies to nothing still carries
		// the topic's creation message as reply_to_message.
		in.ReplyToID = itoa(r.MessageID)
		if me.ID != 0 && r.From != nil && r.From.ID == me.ID {
			in.Mentioned = true
		}
	}
	in.Text = stripCommandSuffix(text, me.Username)
	return in, true
}

func chatOf(m *tgMessage) channels.Chat {
	c := channels.Chat{ID: itoa(m.Chat.ID), Kind: chatKind(m.Chat.Type), Title: chatTitle(m.Chat)}
	if m.MessageThreadID != 0 && (m.IsTopicMessage || m.Chat.IsForum) {
		c.ThreadID = itoa(m.MessageThreadID)
	}
	return c
}

// chatKind maps Telegram's chat types; unknown types count as groups,
// whose policy is the stricter one.
func chatKind(t string) channels.ChatKind {
	switch t {
	case "private":
		return channels.Direct
	case "channel":
		return channels.Channel
	}
	return channels.Group
}

func chatTitle(c tgChat) string {
	if c.Title != "" {
		return c.Title
	}
	return strings.TrimSpace(c.FirstName + " " + c.LastName)
}

func senderOf(u *tgUser) channels.Sender {
	return channels.Sender{
		ID:       itoa(u.ID),
		Username: u.Username,
		Name:     strings.TrimSpace(u.FirstName + " " + u.LastName),
		IsBot:    u.IsBot,
	}
}

// senderOfChat is the sender of a message sent on behalf of a chat (a
// channel post, an anonymous group admin): the chat's id, never the
// shared placeholder user's.
func senderOfChat(c *tgChat) channels.Sender {
	return channels.Sender{ID: itoa(c.ID), Username: c.Username, Name: chatTitle(*c)}
}

func mediaOf(m *tgMessage) []channels.Media {
	var out []channels.Media
	if n := len(m.Photo); n > 0 {
		p := m.Photo[n-1] // the largest size comes last
		out = append(out, channels.Media{Kind: "photo", FileID: p.FileID, MIME: "image/jpeg", Size: p.FileSize})
	}
	add := func(kind string, f *tgFile) {
		if f != nil && f.FileID != "" {
			out = append(out, channels.Media{Kind: kind, FileID: f.FileID, MIME: f.MimeType, Name: f.FileName, Size: f.FileSize})
		}
	}
	add("document", m.Document)
	add("audio", m.Audio)
	add("voice", m.Voice)
	add("video", m.Video)
	add("sticker", m.Sticker)
	return out
}

// mentions reports whether an msgEntity names the bot: an @username
// mention, a text mention of its id, or a /command@username.
func mentions(text string, ents []tgEntity, me botIdentity) bool {
	if len(ents) == 0 || (me.Username == "" && me.ID == 0) {
		return false
	}
	var units []uint16
	for _, e := range ents {
		switch e.Type {
		case "text_mention":
			if me.ID != 0 && e.User != nil && e.User.ID == me.ID {
				return true
			}
		case "mention", "bot_command":
			if me.Username == "" {
				continue
			}
			if units == nil {
				units = utf16.Encode([]rune(text))
			}
			s, ok := utf16Slice(units, e.Offset, e.Length)
			if !ok {
				continue
			}
			if e.Type == "mention" && strings.EqualFold(s, "@"+me.Username) {
				return true
			}
			if _, at, found := strings.Cut(s, "@"); e.Type == "bot_command" && found && strings.EqualFold(at, me.Username) {
				return true
			}
		}
	}
	return false
}

func utf16Slice(u []uint16, off, n int) (string, bool) {
	if off < 0 || n < 0 || off > len(u) || n > len(u)-off {
		return "", false
	}
	return string(utf16.Decode(u[off : off+n])), true
}

// stripCommandSuffix turns a leading "/cmd@ourbot" into "/cmd"; commands
// addressed to another bot stay as they are.
func stripCommandSuffix(text, username string) string {
	if username == "" || !strings.HasPrefix(text, "/") {
		return text
	}
	end := strings.IndexAny(text, " \t\n")
	if end < 0 {
		end = len(text)
	}
	cmd, at, found := strings.Cut(text[:end], "@")
	if !found || !strings.EqualFold(at, username) {
		return text
	}
	return cmd + text[end:]
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
