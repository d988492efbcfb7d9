package telegramtest

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf16"
)

// User is a Telegram user for injected updates.
type User struct {
	ID        int64
	Username  string
	FirstName string
	IsBot     bool
}

func (u User) object() map[string]any {
	m := map[string]any{"id": u.ID, "is_bot": u.IsBot, "first_name": u.FirstName}
	if m["first_name"] == "" {
		m["first_name"] = "User"
	}
	if u.Username != "" {
		m["username"] = u.Username
	}
	return m
}

// Bot is the fake's own bot as a User, for replies to the bot.
var Bot = User{ID: BotID, Username: BotUsername, FirstName: BotName, IsBot: true}

// Msg describes a message to inject. Zero fields are left out.
type Msg struct {
	ChatID    int64
	ChatType  string // private, group, supergroup, channel; default by id
	Title     string
	Forum     bool  // the chat is a forum supergroup
	ThreadID  int64 // forum topic (message_thread_id)
	MessageID int64 // default: the fake's next message id
	From      User
	Text      string // @username and a leading /command get entities
	Caption   string
	ReplyTo   int64 // message_id being replied to
	ReplyFrom User  // author of the replied-to message
	Document  *Doc
	Photo     bool
	Voice     *Voice
}

// Voice is an attached voice note (Ogg/Opus, as Telegram's clients record).
type Voice struct {
	ID       string // file id; default "voice-<message id>"
	Bytes    []byte
	Duration int // seconds
}

// Doc is an attached document.
type Doc struct {
	Name  string
	MIME  string
	Bytes []byte
}

// AddUpdate queues a raw update; body is the update without update_id,
// e.g. {"message": {...}}. It returns the update_id given to it.
func (s *Server) AddUpdate(body map[string]any) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextUpd++
	id := s.nextUpd
	m := make(map[string]any, len(body)+1)
	for k, v := range body {
		m[k] = v
	}
	m["update_id"] = id
	b, err := json.Marshal(m)
	if err != nil {
		s.t.Fatalf("telegramtest: marshal update: %v", err)
	}
	s.updates = append(s.updates, pending{id: id, body: b})
	s.notifyLocked()
	return id
}

// AddRawUpdate queues an update given as JSON (update_id is set by the
// fake) and returns its id.
func (s *Server) AddRawUpdate(raw string) int64 {
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		s.t.Fatalf("telegramtest: raw update: %v", err)
	}
	return s.AddUpdate(m)
}

// AddMessage queues a "message" update built from m.
func (s *Server) AddMessage(m Msg) int64 {
	return s.AddUpdate(map[string]any{"message": s.messageObject(m)})
}

// AddPrivateText queues a private text message from from.
func (s *Server) AddPrivateText(from User, text string) int64 {
	return s.AddMessage(Msg{ChatID: from.ID, From: from, Text: text})
}

// AddGroupText queues a supergroup message; "@openclaw_test_bot" in text
// becomes a mention entity.
func (s *Server) AddGroupText(chatID int64, from User, text string) int64 {
	return s.AddMessage(Msg{ChatID: chatID, ChatType: "supergroup", Title: "Test Group", From: from, Text: text})
}

// AddTopicText queues a message in forum topic threadID of chatID.
func (s *Server) AddTopicText(chatID, threadID int64, from User, text string) int64 {
	return s.AddMessage(Msg{ChatID: chatID, ChatType: "supergroup", Title: "Test Forum", Forum: true, ThreadID: threadID, From: from, Text: text})
}

// AddEdited queues an "edited_message" update for messageID.
func (s *Server) AddEdited(chatID, messageID int64, from User, text string) int64 {
	msg := s.messageObject(Msg{ChatID: chatID, MessageID: messageID, From: from, Text: text})
	msg["edit_date"] = time.Now().Unix()
	return s.AddUpdate(map[string]any{"edited_message": msg})
}

// AddCallback queues a "callback_query": from pressed an inline button
// carrying data on the bot's message messageID in chatID.
func (s *Server) AddCallback(chatID, messageID int64, from User, data string) int64 {
	s.mu.Lock()
	s.nextMsg++
	qid := s.nextMsg
	s.mu.Unlock()
	msg := s.messageObject(Msg{ChatID: chatID, MessageID: messageID, From: Bot, Text: "buttons"})
	return s.AddUpdate(map[string]any{"callback_query": map[string]any{
		"id":            "cbq-" + itoa64(qid),
		"from":          from.object(),
		"message":       msg,
		"chat_instance": "ci-" + itoa64(chatID),
		"data":          data,
	}})
}

// AddDocument queues a message with a document attached.
func (s *Server) AddDocument(chatID int64, from User, d Doc, caption string) int64 {
	s.AddFile("doc-"+d.Name, d.Bytes)
	return s.AddMessage(Msg{ChatID: chatID, From: from, Document: &d, Caption: caption})
}

// AddVoice queues a voice note from a private chat and makes its
// recording downloadable.
func (s *Server) AddVoice(from User, v Voice) int64 {
	if v.ID == "" {
		v.ID = "voice-" + itoa64(from.ID) + "-" + strconv.Itoa(len(v.Bytes))
	}
	s.AddFile(v.ID, v.Bytes)
	return s.AddMessage(Msg{ChatID: from.ID, From: from, Voice: &v})
}

func (s *Server) messageObject(m Msg) map[string]any {
	if m.MessageID == 0 {
		s.mu.Lock()
		s.nextMsg++
		m.MessageID = s.nextMsg
		s.mu.Unlock()
	}
	if m.ChatType == "" {
		m.ChatType = chatObject(itoa64(m.ChatID))["type"].(string)
	}
	chat := map[string]any{"id": m.ChatID, "type": m.ChatType}
	switch m.ChatType {
	case "private":
		chat["first_name"] = m.From.FirstName
		if m.From.Username != "" {
			chat["username"] = m.From.Username
		}
	default:
		chat["title"] = m.Title
		if chat["title"] == "" {
			chat["title"] = "Chat " + itoa64(m.ChatID)
		}
	}
	if m.Forum {
		chat["is_forum"] = true
	}
	msg := map[string]any{"message_id": m.MessageID, "date": time.Now().Unix(), "chat": chat}
	if m.ChatType != "channel" {
		msg["from"] = m.From.object()
	} else {
		msg["sender_chat"] = chat
	}
	if m.ThreadID != 0 {
		msg["message_thread_id"] = m.ThreadID
		msg["is_topic_message"] = true
	}
	if m.Text != "" {
		msg["text"] = m.Text
		if ents := entities(m.Text); len(ents) > 0 {
			msg["entities"] = ents
		}
	}
	if m.Caption != "" {
		msg["caption"] = m.Caption
		if ents := entities(m.Caption); len(ents) > 0 {
			msg["caption_entities"] = ents
		}
	}
	if m.ReplyTo != 0 {
		from := m.ReplyFrom
		if from.ID == 0 {
			from = Bot
		}
		msg["reply_to_message"] = map[string]any{"message_id": m.ReplyTo, "date": time.Now().Unix(), "chat": chat, "from": from.object(), "text": "earlier"}
	}
	if d := m.Document; d != nil {
		msg["document"] = map[string]any{"file_id": "doc-" + d.Name, "file_unique_id": "u-" + d.Name, "file_name": d.Name, "mime_type": d.MIME, "file_size": len(d.Bytes)}
	}
	if v := m.Voice; v != nil {
		msg["voice"] = map[string]any{"file_id": v.ID, "file_unique_id": "u-" + v.ID, "duration": v.Duration, "mime_type": "audio/ogg", "file_size": len(v.Bytes)}
	}
	if m.Photo {
		msg["photo"] = []any{
			map[string]any{"file_id": "photo-small", "file_unique_id": "ps", "width": 90, "height": 90, "file_size": 1000},
			map[string]any{"file_id": "photo-large", "file_unique_id": "pl", "width": 1280, "height": 1280, "file_size": 90000},
		}
	}
	return msg
}

// entities finds @username mentions and a leading /command, with offsets
// and lengths in UTF-16 code units as Telegram gives them.
func entities(text string) []map[string]any {
	var out []map[string]any
	units := 0
	runes := []rune(text)
	for i := 0; i < len(runes); {
		r := runes[i]
		start := units
		if (r == '@' || (r == '/' && i == 0)) && (i == 0 || runes[i-1] == ' ' || runes[i-1] == '\n') {
			j := i + 1
			for j < len(runes) && (isWordRune(runes[j]) || (r == '/' && runes[j] == '@')) {
				j++
			}
			if j > i+1 {
				n := len(utf16.Encode(runes[i:j]))
				typ := "mention"
				if r == '/' {
					typ = "bot_command"
				}
				out = append(out, map[string]any{"type": typ, "offset": start, "length": n})
				units += n
				i = j
				continue
			}
		}
		units += len(utf16.Encode([]rune{r}))
		i++
	}
	return out
}

func isWordRune(r rune) bool {
	return r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
