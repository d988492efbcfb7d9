package telegramtest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

type handler func(s *Server, w http.ResponseWriter, r *http.Request, c Call)

var handlers map[string]handler

func init() {
	ok := func(s *Server, w http.ResponseWriter, r *http.Request, c Call) { writeResult(w, true) }
	handlers = map[string]handler{
		"getMe":               (*Server).getMe,
		"getUpdates":          (*Server).getUpdates,
		"setWebhook":          (*Server).setWebhook,
		"deleteWebhook":       (*Server).deleteWebhook,
		"getWebhookInfo":      (*Server).getWebhookInfo,
		"sendMessage":         (*Server).sendMessage,
		"editMessageText":     (*Server).editMessageText,
		"deleteMessage":       (*Server).deleteMessage,
		"sendChatAction":      ok,
		"setMessageReaction":  ok,
		"sendPoll":            (*Server).sendPoll,
		"pinChatMessage":      ok,
		"unpinChatMessage":    ok,
		"sendDocument":        sendFile("document"),
		"sendPhoto":           sendFile("photo"),
		"sendVoice":           sendFile("voice"),
		"answerCallbackQuery": ok,
		"setMyCommands":       (*Server).setMyCommands,
		"getChat":             (*Server).getChat,
		"getChatMember":       (*Server).getChatMember,
		"getFile":             (*Server).getFile,
	}
	for name, h := range memberHandlers() {
		handlers[name] = h
	}
}

func (s *Server) getMe(w http.ResponseWriter, _ *http.Request, _ Call) {
	writeResult(w, map[string]any{
		"id": BotID, "is_bot": true, "first_name": BotName, "username": BotUsername,
		"can_join_groups": true, "can_read_all_group_messages": false, "supports_inline_queries": false,
	})
}

// getUpdates drops every update below offset for good, then waits up to
// timeout seconds for one at or above it.
func (s *Server) getUpdates(w http.ResponseWriter, r *http.Request, c Call) {
	offset := paramInt(c.Params, "offset")
	limit := int(paramInt(c.Params, "limit"))
	if limit <= 0 || limit > 100 {
		limit = 100
	}
	timeout := time.Duration(paramInt(c.Params, "timeout")) * time.Second
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()

	s.mu.Lock()
	if s.webhook.URL != "" {
		s.mu.Unlock()
		writeError(w, http.StatusConflict, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first", 0)
		return
	}
	if offset > 0 {
		kept := s.updates[:0:0]
		for _, u := range s.updates {
			if u.id >= offset {
				kept = append(kept, u)
			}
		}
		if len(kept) != len(s.updates) {
			s.updates = kept
			s.notifyLocked()
		}
	}
	for {
		if len(s.updates) > 0 {
			n := min(limit, len(s.updates))
			out := make([]json.RawMessage, n)
			for i := range n {
				out[i] = s.updates[i].body
			}
			s.mu.Unlock()
			writeResult(w, out)
			return
		}
		ch := s.changed.Chan()
		s.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			writeResult(w, []any{})
			return
		case <-r.Context().Done():
			return
		case <-s.closed:
			writeResult(w, []any{})
			return
		}
		s.mu.Lock()
	}
}

func (s *Server) setWebhook(w http.ResponseWriter, _ *http.Request, c Call) {
	u := c.Params.Get("url")
	if u != "" && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		writeError(w, http.StatusBadRequest, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook", 0)
		return
	}
	s.mu.Lock()
	s.webhook = webhookState{URL: u, Secret: c.Params.Get("secret_token")}
	s.notifyLocked()
	s.mu.Unlock()
	writeResult(w, true)
}

func (s *Server) deleteWebhook(w http.ResponseWriter, _ *http.Request, c Call) {
	s.mu.Lock()
	s.webhook = webhookState{}
	if c.Params.Get("drop_pending_updates") == "true" {
		s.updates = nil
	}
	s.notifyLocked()
	s.mu.Unlock()
	writeResult(w, true)
}

func (s *Server) getWebhookInfo(w http.ResponseWriter, _ *http.Request, _ Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	writeResult(w, map[string]any{"url": s.webhook.URL, "has_custom_certificate": false, "pending_update_count": len(s.updates)})
}

// rejectsHTML reports whether text should fail as unparsable HTML.
func (s *Server) rejectsHTML(parseMode, text string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.marker != "" && strings.EqualFold(parseMode, "HTML") && strings.Contains(text, s.marker)
}

func (s *Server) parseError(w http.ResponseWriter, text string) {
	off := strings.Index(text, s.markerValue())
	writeError(w, http.StatusBadRequest, "Bad Request: can't parse entities: Can't find end of the entity starting at byte offset "+strconv.Itoa(max(off, 0)), 0)
}

func (s *Server) markerValue() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.marker
}

// record stores a sent message and answers with its Message object.
func (s *Server) record(w http.ResponseWriter, m Message, extra map[string]any) {
	s.mu.Lock()
	s.nextMsg++
	m.MessageID = s.nextMsg
	s.sent = append(s.sent, m)
	s.messages[msgKey{m.ChatID, m.MessageID}] = len(s.sent) - 1
	s.notifyLocked()
	s.mu.Unlock()
	res := map[string]any{
		"message_id": m.MessageID,
		"date":       time.Now().Unix(),
		"chat":       chatObject(m.ChatID),
		"from":       map[string]any{"id": BotID, "is_bot": true, "first_name": BotName, "username": BotUsername},
	}
	if m.ThreadID != 0 {
		res["message_thread_id"] = m.ThreadID
		res["is_topic_message"] = true
	}
	for k, v := range extra {
		res[k] = v
	}
	writeResult(w, res)
}

func baseMessage(method string, c Call) Message {
	return Message{
		Method:      method,
		ChatID:      c.Params.Get("chat_id"),
		ParseMode:   c.Params.Get("parse_mode"),
		ReplyTo:     paramInt(c.Params, "reply_to_message_id"),
		ThreadID:    paramInt(c.Params, "message_thread_id"),
		ReplyMarkup: c.Params.Get("reply_markup"),
		Silent:      c.Params.Get("disable_notification") == "true",
	}
}

func (s *Server) sendMessage(w http.ResponseWriter, _ *http.Request, c Call) {
	m := baseMessage("sendMessage", c)
	m.Text = c.Params.Get("text")
	if m.ChatID == "" {
		writeError(w, http.StatusBadRequest, "Bad Request: chat_id is empty", 0)
		return
	}
	if strings.TrimSpace(m.Text) == "" {
		writeError(w, http.StatusBadRequest, "Bad Request: message text is empty", 0)
		return
	}
	if s.rejectsHTML(m.ParseMode, m.Text) {
		s.parseError(w, m.Text)
		return
	}
	s.record(w, m, map[string]any{"text": m.Text})
}

func sendFile(field string) handler {
	return func(s *Server, w http.ResponseWriter, _ *http.Request, c Call) {
		m := baseMessage(c.Method, c)
		m.Text = c.Params.Get("caption")
		f, ok := c.Files[field]
		if !ok {
			if id := c.Params.Get(field); id != "" {
				f = File{Name: id}
			} else {
				writeError(w, http.StatusBadRequest, "Bad Request: there is no "+field+" in the request", 0)
				return
			}
		}
		if s.rejectsHTML(m.ParseMode, m.Text) {
			s.parseError(w, m.Text)
			return
		}
		m.FileName, m.FileBytes = f.Name, f.Bytes
		s.record(w, m, map[string]any{"caption": m.Text, field: map[string]any{"file_id": "file-" + f.Name, "file_name": f.Name, "file_size": len(f.Bytes)}})
	}
}

func (s *Server) sendPoll(w http.ResponseWriter, _ *http.Request, c Call) {
	m := baseMessage("sendPoll", c)
	m.Text = c.Params.Get("question")
	var opts []json.RawMessage
	if err := json.Unmarshal([]byte(c.Params.Get("options")), &opts); err != nil || len(opts) < 2 {
		writeError(w, http.StatusBadRequest, "Bad Request: poll must have at least 2 option", 0)
		return
	}
	s.record(w, m, map[string]any{"poll": map[string]any{"id": "poll-1", "question": m.Text}})
}

// editMessageText changes a sent message's text in place. As in the real
// API the new parse_mode and reply_markup replace the old ones (an edit
// without reply_markup drops the keyboard), and an edit that changes
// nothing is refused as "message is not modified".
func (s *Server) editMessageText(w http.ResponseWriter, _ *http.Request, c Call) {
	chat, id, text := c.Params.Get("chat_id"), paramInt(c.Params, "message_id"), c.Params.Get("text")
	parseMode, markup := c.Params.Get("parse_mode"), c.Params.Get("reply_markup")
	if strings.TrimSpace(text) == "" {
		writeError(w, http.StatusBadRequest, "Bad Request: message text is empty", 0)
		return
	}
	if s.rejectsHTML(parseMode, text) {
		s.parseError(w, text)
		return
	}
	s.mu.Lock()
	i, found := s.messages[msgKey{chat, id}]
	var m *Message
	if found {
		m = &s.sent[i]
	}
	modified := found && (m.Text != text || m.ReplyMarkup != markup)
	if modified {
		s.edits = append(s.edits, Edit{ChatID: chat, MessageID: id, Old: m.Text, Text: text, ParseMode: parseMode})
		m.Text, m.ParseMode, m.ReplyMarkup = text, parseMode, markup
		m.Edits++
		s.notifyLocked()
	}
	s.mu.Unlock()
	switch {
	case !found:
		writeError(w, http.StatusBadRequest, "Bad Request: message to edit not found", 0)
	case !modified:
		writeError(w, http.StatusBadRequest, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message", 0)
	default:
		writeResult(w, map[string]any{"message_id": id, "chat": chatObject(chat), "date": time.Now().Unix(), "edit_date": time.Now().Unix(), "text": text})
	}
}

func (s *Server) deleteMessage(w http.ResponseWriter, _ *http.Request, c Call) {
	key := msgKey{c.Params.Get("chat_id"), paramInt(c.Params, "message_id")}
	s.mu.Lock()
	i, ok := s.messages[key]
	if ok {
		delete(s.messages, key)
		s.sent[i].Deleted = true
		s.notifyLocked()
	}
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusBadRequest, "Bad Request: message to delete not found", 0)
		return
	}
	writeResult(w, true)
}

func (s *Server) setMyCommands(w http.ResponseWriter, _ *http.Request, c Call) {
	raw := c.Params.Get("commands")
	var cmds []struct {
		Command     string `json:"command"`
		Description string `json:"description"`
	}
	if err := json.Unmarshal([]byte(raw), &cmds); err != nil {
		writeError(w, http.StatusBadRequest, "Bad Request: can't parse commands JSON object", 0)
		return
	}
	s.mu.Lock()
	s.commands = json.RawMessage(raw)
	s.mu.Unlock()
	writeResult(w, true)
}

func (s *Server) getChat(w http.ResponseWriter, _ *http.Request, c Call) {
	id := c.Params.Get("chat_id")
	if _, err := strconv.ParseInt(id, 10, 64); err != nil {
		writeError(w, http.StatusBadRequest, "Bad Request: chat not found", 0)
		return
	}
	writeResult(w, chatObject(id))
}

func (s *Server) getChatMember(w http.ResponseWriter, _ *http.Request, c Call) {
	uid := paramInt(c.Params, "user_id")
	if uid == 0 {
		writeError(w, http.StatusBadRequest, "Bad Request: invalid user_id specified", 0)
		return
	}
	m := map[string]any{"status": "member", "user": map[string]any{"id": uid, "is_bot": uid == BotID, "first_name": "User " + strconv.FormatInt(uid, 10)}}
	if uid == BotID {
		m["status"], m["can_restrict_members"], m["can_delete_messages"], m["can_manage_topics"] = "administrator", true, true, true
	}
	writeResult(w, m)
}

// chatObject describes a chat by its id: positive ids are private chats,
// long -100… ids supergroups, other negative ids groups.
func chatObject(id string) map[string]any {
	n, _ := strconv.ParseInt(id, 10, 64)
	switch {
	case n > 0:
		return map[string]any{"id": n, "type": "private", "first_name": "User " + id}
	case strings.HasPrefix(id, "-100") && len(id) > 8:
		return map[string]any{"id": n, "type": "supergroup", "title": "Group " + id}
	default:
		return map[string]any{"id": n, "type": "group", "title": "Group " + id}
	}
}

func (s *Server) getFile(w http.ResponseWriter, _ *http.Request, c Call) {
	id := c.Params.Get("file_id")
	s.mu.Lock()
	data, ok := s.files[id]
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusBadRequest, "Bad Request: invalid file_id", 0)
		return
	}
	writeResult(w, map[string]any{"file_id": id, "file_unique_id": "u-" + id, "file_size": len(data), "file_path": "files/" + id})
}
