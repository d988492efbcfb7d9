package slacktest

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// The reading and workspace methods: conversations.history and .replies
// (the bot's own messages), reactions.get and pins.list (the reactions
// and pins the bot made), conversations.list, emoji.list and
// conversations.kick.

// Channels are the channels conversations.list answers.
var Channels = []map[string]any{
	{"id": "C0GENERAL", "name": "general", "is_channel": true, "is_private": false, "is_member": true, "num_members": 3},
	{"id": "C0PRIVATE", "name": "secret", "is_channel": true, "is_private": true, "is_member": true, "num_members": 2},
}

// Emoji are the workspace's custom emoji emoji.list answers.
var Emoji = map[string]string{"party": "https://emoji.example/party.png", "partyparrot": "alias:party"}

func historyHandlers() map[string]handler {
	return map[string]handler{
		"conversations.history": (*Server).history,
		"conversations.replies": (*Server).replies,
		"reactions.get":         (*Server).reactionsGet,
		"pins.list":             (*Server).pinsList,
		"conversations.list": func(s *Server, w http.ResponseWriter, c Call) {
			writeJSON(w, http.StatusOK, map[string]any{"ok": true, "channels": Channels, "response_metadata": map[string]any{"next_cursor": ""}})
		},
		"emoji.list": func(s *Server, w http.ResponseWriter, c Call) {
			writeJSON(w, http.StatusOK, map[string]any{"ok": true, "emoji": Emoji})
		},
		"conversations.kick": func(s *Server, w http.ResponseWriter, c Call) {
			if u := c.Params.Get("user"); u == "" || strings.HasPrefix(u, "UMISSING") {
				writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "user_not_found"})
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"ok": true})
		},
	}
}

// messageJSONLocked is m as Slack returns it, with the bot's reactions
// and its thread's reply count.
func (s *Server) messageJSONLocked(m Message) map[string]any {
	out := map[string]any{"type": "message", "ts": m.TS, "text": m.Text, "user": BotUserID, "bot_id": BotID}
	if m.ThreadTS != "" {
		out["thread_ts"] = m.ThreadTS
	}
	replies := 0
	for _, r := range s.messages {
		if r.Channel == m.Channel && r.ThreadTS == m.TS && r.TS != m.TS && !r.Deleted {
			replies++
		}
	}
	if replies > 0 {
		out["thread_ts"], out["reply_count"] = m.TS, replies
	}
	var reactions []map[string]any
	for _, c := range s.callsLocked("reactions.add") {
		if c.Params.Get("channel") == m.Channel && c.Params.Get("timestamp") == m.TS {
			reactions = append(reactions, map[string]any{"name": c.Params.Get("name"), "count": 1, "users": []string{BotUserID}})
		}
	}
	if reactions != nil {
		out["reactions"] = reactions
	}
	return out
}

// page keeps the messages of c's channel that pass keep and lie within
// its latest and oldest, at most its limit.
func (s *Server) pageLocked(c Call, keep func(Message) bool, newestFirst bool) []map[string]any {
	latest, _ := strconv.ParseFloat(c.Params.Get("latest"), 64)
	oldest, _ := strconv.ParseFloat(c.Params.Get("oldest"), 64)
	limit, _ := strconv.Atoi(c.Params.Get("limit"))
	ms := slices.Clone(s.messages)
	if newestFirst {
		slices.Reverse(ms)
	}
	out := []map[string]any{}
	for _, m := range ms {
		ts, _ := strconv.ParseFloat(m.TS, 64)
		if m.Deleted || m.Channel != c.Params.Get("channel") || !keep(m) || (latest > 0 && ts >= latest) || ts <= oldest {
			continue
		}
		if limit > 0 && len(out) == limit {
			break
		}
		out = append(out, s.messageJSONLocked(m))
	}
	return out
}

func (s *Server) history(w http.ResponseWriter, c Call) {
	s.mu.Lock()
	msgs := s.pageLocked(c, func(m Message) bool { return m.ThreadTS == "" || m.ThreadTS == m.TS }, true)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "messages": msgs, "has_more": false})
}

func (s *Server) replies(w http.ResponseWriter, c Call) {
	thread := c.Params.Get("ts")
	if thread == "" {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "thread_not_found"})
		return
	}
	s.mu.Lock()
	msgs := s.pageLocked(c, func(m Message) bool { return m.TS == thread || m.ThreadTS == thread }, false)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "messages": msgs, "has_more": false})
}

func (s *Server) reactionsGet(w http.ResponseWriter, c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.findLocked(c.Params.Get("channel"), c.Params.Get("timestamp"))
	if i < 0 {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "message_not_found"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "type": "message", "channel": c.Params.Get("channel"), "message": s.messageJSONLocked(s.messages[i])})
}

func (s *Server) pinsList(w http.ResponseWriter, c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pinned := map[string]bool{}
	for _, p := range s.calls {
		if p.Params.Get("channel") == c.Params.Get("channel") {
			switch p.Method {
			case "pins.add":
				pinned[p.Params.Get("timestamp")] = true
			case "pins.remove":
				delete(pinned, p.Params.Get("timestamp"))
			}
		}
	}
	items := []map[string]any{}
	for _, m := range s.messages {
		if m.Channel == c.Params.Get("channel") && pinned[m.TS] && !m.Deleted {
			items = append(items, map[string]any{"type": "message", "channel": m.Channel, "message": s.messageJSONLocked(m)})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "items": items})
}
