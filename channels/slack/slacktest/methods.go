package slacktest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

type handler func(s *Server, w http.ResponseWriter, c Call)

var handlers map[string]handler

func init() {
	ok := func(s *Server, w http.ResponseWriter, c Call) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	}
	handlers = map[string]handler{
		"auth.test":                    (*Server).authTest,
		"apps.connections.open":        (*Server).connectionsOpen,
		"chat.postMessage":             (*Server).postMessage,
		"chat.update":                  (*Server).update,
		"chat.delete":                  (*Server).delete,
		"reactions.add":                ok,
		"pins.add":                     ok,
		"pins.remove":                  ok,
		"conversations.info":           (*Server).conversationsInfo,
		"conversations.open":           (*Server).conversationsOpen,
		"users.info":                   (*Server).usersInfo,
		"files.getUploadURLExternal":   (*Server).getUploadURL,
		"files.completeUploadExternal": (*Server).completeUpload,
	}
	for name, h := range historyHandlers() {
		handlers[name] = h
	}
}

func (s *Server) authTest(w http.ResponseWriter, _ Call) {
	writeJSON(w, http.StatusOK, map[string]any{
		"ok": true, "url": "https://openclaw-test.slack.com/", "team": "OpenClaw Test", "user": BotName,
		"team_id": TeamID, "user_id": BotUserID, "bot_id": BotID,
	})
}

func (s *Server) connectionsOpen(w http.ResponseWriter, _ Call) {
	u := "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/socket"
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "url": u})
}

// nextTSLocked returns a fresh message timestamp. s.mu must be held.
func (s *Server) nextTSLocked() string {
	s.nextTS++
	return fmt.Sprintf("%d.000100", s.nextTS)
}

func (s *Server) postMessage(w http.ResponseWriter, c Call) {
	ch := c.Params.Get("channel")
	if ch == "" {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "channel_not_found"})
		return
	}
	text, blocks := c.Params.Get("text"), c.Params.Get("blocks")
	if text == "" && blocks == "" {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "no_text"})
		return
	}
	if blocks != "" && !json.Valid([]byte(blocks)) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "invalid_blocks"})
		return
	}
	s.mu.Lock()
	ts := s.nextTSLocked()
	m := Message{Method: "chat.postMessage", Channel: ch, TS: ts, ThreadTS: c.Params.Get("thread_ts"), Text: text, Blocks: blocks}
	s.messages = append(s.messages, m)
	s.notifyLocked()
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "channel": ch, "ts": ts,
		"message": map[string]any{"type": "message", "text": text, "user": BotUserID, "bot_id": BotID, "ts": ts}})
}

// findLocked returns the index of the bot's message ts in channel, or -1.
func (s *Server) findLocked(channel, ts string) int {
	for i, m := range s.messages {
		if m.Channel == channel && m.TS == ts && !m.Deleted {
			return i
		}
	}
	return -1
}

func (s *Server) update(w http.ResponseWriter, c Call) {
	ch, ts := c.Params.Get("channel"), c.Params.Get("ts")
	s.mu.Lock()
	i := s.findLocked(ch, ts)
	if i < 0 {
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "message_not_found"})
		return
	}
	s.messages[i].Text = c.Params.Get("text")
	if b := c.Params.Get("blocks"); b != "" {
		s.messages[i].Blocks = b
	}
	s.notifyLocked()
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "channel": ch, "ts": ts, "text": c.Params.Get("text")})
}

func (s *Server) delete(w http.ResponseWriter, c Call) {
	ch, ts := c.Params.Get("channel"), c.Params.Get("ts")
	s.mu.Lock()
	i := s.findLocked(ch, ts)
	if i >= 0 {
		s.messages[i].Deleted = true
		s.notifyLocked()
	}
	s.mu.Unlock()
	if i < 0 {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "message_not_found"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "channel": ch, "ts": ts})
}

func (s *Server) conversationsInfo(w http.ResponseWriter, c Call) {
	ch := c.Params.Get("channel")
	if ch == "" || strings.HasPrefix(ch, "CMISSING") {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "channel_not_found"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "channel": map[string]any{
		"id": ch, "name": "general", "is_channel": strings.HasPrefix(ch, "C"), "is_im": strings.HasPrefix(ch, "D"),
		"is_private": false, "num_members": 3, "topic": map[string]any{"value": "testing"},
	}})
}

// DMOf is the id of the DM conversation the fake opens with a user.
func DMOf(userID string) string { return "D" + userID }

func (s *Server) conversationsOpen(w http.ResponseWriter, c Call) {
	users := c.Params.Get("users")
	if users == "" || strings.Contains(users, ",") {
		// Several users would be a group DM; the fake has only one-to-one.
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "users_list_not_supplied"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "channel": map[string]any{"id": DMOf(users), "is_im": true, "user": users}})
}

func (s *Server) usersInfo(w http.ResponseWriter, c Call) {
	u := c.Params.Get("user")
	if u == "" || strings.HasPrefix(u, "UMISSING") {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "user_not_found"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "user": map[string]any{
		"id": u, "team_id": TeamID, "name": strings.ToLower(u), "real_name": "User " + u, "is_bot": false,
		"profile": map[string]any{"display_name": "user-" + strings.ToLower(u), "real_name": "User " + u},
	}})
}

func (s *Server) getUploadURL(w http.ResponseWriter, c Call) {
	name := c.Params.Get("filename")
	if name == "" || c.Params.Get("length") == "" || c.Params.Get("length") == "0" {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "invalid_arguments"})
		return
	}
	s.mu.Lock()
	s.nextID++
	id := fmt.Sprintf("F%d", s.nextID)
	s.uploads[id] = &Upload{FileID: id, Name: name}
	s.notifyLocked()
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "upload_url": s.srv.URL + "/upload/" + id, "file_id": id})
}

func (s *Server) completeUpload(w http.ResponseWriter, c Call) {
	var files []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal([]byte(c.Params.Get("files")), &files); err != nil || len(files) == 0 {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "invalid_arguments"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, f := range files {
		u, ok := s.uploads[f.ID]
		if !ok || u.Bytes == nil {
			writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "file_not_found"})
			return
		}
		u.Title, u.Channel, u.ThreadTS, u.Done = f.Title, c.Params.Get("channel_id"), c.Params.Get("thread_ts"), true
		s.uploaded = append(s.uploaded, *u)
		delete(s.uploads, f.ID)
		out = append(out, map[string]any{"id": f.ID, "title": f.Title})
	}
	s.notifyLocked()
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "files": out})
}
