package telegramtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
)

// The forum-topic, sticker and member methods: createForumTopic (in a
// supergroup), sendSticker (recorded as a sent message, the sticker's
// file_id in FileName), and banChatMember, unbanChatMember and
// restrictChatMember, which only check their parameters.

var nextTopic atomic.Int64

func memberHandlers() map[string]handler {
	member := func(s *Server, w http.ResponseWriter, _ *http.Request, c Call) {
		if paramInt(c.Params, "user_id") == 0 {
			writeError(w, http.StatusBadRequest, "Bad Request: invalid user_id specified", 0)
			return
		}
		if !strings.HasPrefix(c.Params.Get("chat_id"), "-") {
			writeError(w, http.StatusBadRequest, "Bad Request: method is available for supergroup and channel chats only", 0)
			return
		}
		if c.Method == "restrictChatMember" && !json.Valid([]byte(c.Params.Get("permissions"))) {
			writeError(w, http.StatusBadRequest, "Bad Request: can't parse permissions JSON object", 0)
			return
		}
		writeResult(w, true)
	}
	return map[string]handler{
		"banChatMember":      member,
		"unbanChatMember":    member,
		"restrictChatMember": member,
		"createForumTopic": func(s *Server, w http.ResponseWriter, _ *http.Request, c Call) {
			if !strings.HasPrefix(c.Params.Get("chat_id"), "-100") {
				writeError(w, http.StatusBadRequest, "Bad Request: the chat is not a forum", 0)
				return
			}
			if c.Params.Get("name") == "" {
				writeError(w, http.StatusBadRequest, "Bad Request: topic name is empty", 0)
				return
			}
			writeResult(w, map[string]any{"message_thread_id": 100 + nextTopic.Add(1), "name": c.Params.Get("name"), "icon_color": 7322096})
		},
		"sendSticker": func(s *Server, w http.ResponseWriter, _ *http.Request, c Call) {
			m := baseMessage("sendSticker", c)
			m.FileName = c.Params.Get("sticker")
			if m.FileName == "" {
				writeError(w, http.StatusBadRequest, "Bad Request: there is no sticker in the request", 0)
				return
			}
			s.record(w, m, map[string]any{"sticker": map[string]any{"file_id": m.FileName, "type": "regular"}})
		},
	}
}
