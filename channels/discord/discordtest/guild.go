package discordtest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// The reading, thread and server endpoints: message lists, reactions,
// pins, threads, a guild's channels, roles, members, bans, emoji, voice
// states and scheduled events. Messages read back are those the bot sent;
// reactions and pins are those it made.

// OwnerID owns every guild of the fake.
const OwnerID = "900000000000000009"

// moreRoute names the requests route does not.
func moreRoute(method string, p []string) (name string, params []string) {
	is := func(m string, pattern ...string) bool {
		if method != m || len(p) != len(pattern) {
			return false
		}
		params = params[:0]
		for i, seg := range pattern {
			switch {
			case seg == "*":
				params = append(params, p[i])
			case p[i] != seg:
				return false
			}
		}
		return true
	}
	switch {
	case is("GET", "channels", "*", "messages"):
		return "messages", params
	case is("GET", "channels", "*", "messages", "*"):
		return "message", params
	case is("GET", "channels", "*", "messages", "*", "reactions", "*"):
		return "reactions", params
	case is("GET", "channels", "*", "pins"):
		return "pins", params
	case is("POST", "channels", "*", "threads"), is("POST", "channels", "*", "messages", "*", "threads"):
		return "thread-create", params
	case is("GET", "guilds", "*"):
		return "guild", params
	case is("GET", "guilds", "*", "threads", "active"):
		return "threads", params
	case is("GET", "guilds", "*", "channels"):
		return "guild-channels", params
	case is("GET", "guilds", "*", "roles"):
		return "roles", params
	case is("PUT", "guilds", "*", "members", "*", "roles", "*"):
		return "role-add", params
	case is("DELETE", "guilds", "*", "members", "*", "roles", "*"):
		return "role-remove", params
	case is("PATCH", "guilds", "*", "members", "*"):
		return "member-edit", params
	case is("DELETE", "guilds", "*", "members", "*"):
		return "kick", params
	case is("PUT", "guilds", "*", "bans", "*"):
		return "ban", params
	case is("GET", "guilds", "*", "emojis"):
		return "emojis", params
	case is("POST", "guilds", "*", "emojis"):
		return "emoji-create", params
	case is("POST", "guilds", "*", "stickers"):
		return "sticker-create", params
	case is("GET", "guilds", "*", "voice-states", "*"):
		return "voice-state", params
	case is("GET", "guilds", "*", "scheduled-events"):
		return "events", params
	case is("POST", "guilds", "*", "scheduled-events"):
		return "event-create", params
	case is("POST", "users", "@me", "channels"):
		return "dm-open", nil
	}
	return "", nil
}

// Roles are the roles of every guild: @everyone (its id is the guild's)
// may view and send; Mods may also manage messages.
func roles(guild string) []map[string]any {
	return []map[string]any{
		{"id": guild, "name": "@everyone", "position": 0, "permissions": strconv.Itoa(1<<10 | 1<<11)},
		{"id": "role-mod", "name": "Mods", "position": 1, "permissions": strconv.Itoa(1<<10 | 1<<11 | 1<<13)},
	}
}

// SetVoiceState makes voice-states/{userID} answer the user in channel.
func (s *Server) SetVoiceState(userID, channelID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.voice == nil {
		s.voice = map[string]string{}
	}
	s.voice[userID] = channelID
}

// AddEmoji adds a custom emoji to every guild.
func (s *Server) AddEmoji(id, name string, animated bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emojis = append(s.emojis, map[string]any{"id": id, "name": name, "animated": animated})
}

// serveMoreLocked answers the requests moreRoute names; false for others.
func (s *Server) serveMoreLocked(w http.ResponseWriter, r *http.Request, name string, params []string, body []byte, files []File) bool {
	switch name {
	case "messages":
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		var out []map[string]any
		for _, m := range slices.Backward(s.sent) {
			if m.ChannelID == params[0] && (limit == 0 || len(out) < limit) {
				out = append(out, s.messageJSONLocked(m))
			}
		}
		writeJSON(w, 200, orEmpty(out))
	case "message":
		for _, m := range s.sent {
			if m.ID == params[1] {
				writeJSON(w, 200, s.messageJSONLocked(m))
				return true
			}
		}
		writeErr(w, 404, 10008, "Unknown Message")
	case "reactions":
		var out []map[string]any
		for _, c := range s.callsLocked("react") {
			if id, emoji := reactionOf(c.Path); id == params[1] && emoji == unescape(params[2]) {
				out = append(out, botUser())
			}
		}
		writeJSON(w, 200, orEmpty(out))
	case "pins":
		var out []map[string]any
		for _, m := range s.sent {
			for _, c := range s.callsLocked("pin") {
				if c.Path == "/channels/"+m.ChannelID+"/pins/"+m.ID {
					out = append(out, s.messageJSONLocked(m))
					break
				}
			}
		}
		writeJSON(w, 200, orEmpty(out))
	case "thread-create":
		var req struct {
			Name    string `json:"name"`
			Type    int    `json:"type"`
			Message *struct {
				Content string `json:"content"`
			} `json:"message"`
		}
		_ = json.Unmarshal(body, &req)
		parent := s.channels[params[0]]
		if forum := parent["type"] == 15 || parent["type"] == 16; forum != (req.Message != nil) && len(params) == 1 {
			writeErr(w, 400, 50035, "Invalid Form Body: message is required for a forum post, and only there")
			return true
		}
		th := map[string]any{"id": s.newIDLocked(), "name": req.Name, "type": 11, "parent_id": params[0], "guild_id": parent["guild_id"], "message_count": 0}
		if len(params) == 2 {
			th["id"] = params[1] // a thread on a message has the message's id
		}
		s.channels[th["id"].(string)] = th
		if req.Message != nil {
			s.sent = append(s.sent, Message{ID: th["id"].(string), ChannelID: th["id"].(string), Content: req.Message.Content})
			s.notifyLocked()
		}
		writeJSON(w, 201, th)
	case "guild":
		writeJSON(w, 200, map[string]any{"id": params[0], "name": "guild " + params[0], "owner_id": OwnerID, "roles": roles(params[0])})
	case "threads":
		var out []map[string]any
		for _, c := range s.sortedChannelsLocked() {
			if c["guild_id"] == params[0] && c["type"] == 11 {
				out = append(out, c)
			}
		}
		writeJSON(w, 200, map[string]any{"threads": orEmpty(out), "members": []any{}})
	case "guild-channels":
		var out []map[string]any
		for _, c := range s.sortedChannelsLocked() {
			if c["guild_id"] == params[0] && c["type"] != 11 {
				out = append(out, c)
			}
		}
		writeJSON(w, 200, orEmpty(out))
	case "roles":
		writeJSON(w, 200, roles(params[0]))
	case "member-edit":
		writeJSON(w, 200, map[string]any{"user": map[string]any{"id": params[1]}, "roles": []string{}})
	case "role-add", "role-remove", "kick", "ban":
		w.WriteHeader(http.StatusNoContent)
	case "emojis":
		writeJSON(w, 200, orEmpty(s.emojis))
	case "sticker-create":
		form := map[string]File{}
		for _, f := range files {
			form[f.Form] = f
		}
		name, tags := string(form["name"].Bytes), string(form["tags"].Bytes)
		if name == "" || tags == "" || len(form["file"].Bytes) == 0 {
			writeErr(w, 400, 50035, "Invalid Form Body")
			return true
		}
		st := map[string]any{"id": s.newIDLocked(), "name": name, "tags": tags, "description": string(form["description"].Bytes), "type": 2, "format_type": 1}
		s.stickers = append(s.stickers, File{Name: form["file"].Name, Bytes: form["file"].Bytes})
		writeJSON(w, 200, st)
	case "emoji-create":
		var req struct {
			Name  string `json:"name"`
			Image string `json:"image"`
		}
		if err := json.Unmarshal(body, &req); err != nil || req.Name == "" || !strings.HasPrefix(req.Image, "data:image/") {
			writeErr(w, 400, 50035, "Invalid Form Body")
			return true
		}
		e := map[string]any{"id": s.newIDLocked(), "name": req.Name, "animated": strings.HasPrefix(req.Image, "data:image/gif")}
		s.emojis = append(s.emojis, e)
		writeJSON(w, 201, e)
	case "voice-state":
		ch, ok := s.voice[params[1]]
		if !ok {
			writeErr(w, 404, 10065, "Unknown Voice State")
			return true
		}
		writeJSON(w, 200, map[string]any{"guild_id": params[0], "user_id": params[1], "channel_id": ch, "mute": false, "deaf": false})
	case "events":
		writeJSON(w, 200, orEmpty(s.events))
	case "event-create":
		var ev map[string]any
		if err := json.Unmarshal(body, &ev); err != nil || ev["name"] == nil || ev["scheduled_start_time"] == nil {
			writeErr(w, 400, 50035, "Invalid Form Body")
			return true
		}
		ev["id"], ev["guild_id"], ev["status"] = s.newIDLocked(), params[0], 1
		s.events = append(s.events, ev)
		writeJSON(w, 200, ev)
	case "dm-open":
		// Discord answers with the one DM channel it keeps per user, the
		// same each time.
		var req struct {
			RecipientID string `json:"recipient_id"`
		}
		if err := json.Unmarshal(body, &req); err != nil || req.RecipientID == "" {
			writeErr(w, 400, 50035, "Invalid Form Body")
			return true
		}
		id := DMChannelOf(req.RecipientID)
		ch := map[string]any{"id": id, "type": 1, "recipients": []any{map[string]any{"id": req.RecipientID, "username": "user" + req.RecipientID}}}
		s.channels[id] = ch
		writeJSON(w, 200, ch)
	default:
		return false
	}
	return true
}

// messageJSONLocked is a sent message as Discord returns it, with the
// bot's reactions on it.
func (s *Server) messageJSONLocked(m Message) map[string]any {
	counts := map[string]int{}
	var order []string
	for _, c := range s.callsLocked("react") {
		if id, emoji := reactionOf(c.Path); id == m.ID {
			if counts[emoji] == 0 {
				order = append(order, emoji)
			}
			counts[emoji]++
		}
	}
	var reactions []map[string]any
	for _, e := range order {
		reactions = append(reactions, map[string]any{"count": counts[e], "me": true, "emoji": map[string]any{"name": e}})
	}
	return map[string]any{"id": m.ID, "channel_id": m.ChannelID, "content": m.Content, "author": botUser(),
		"timestamp": "2026-01-01T00:00:00+00:00", "type": 0, "reactions": orEmpty(reactions)}
}

// reactionOf reads a react call's path: its message id and emoji.
func reactionOf(path string) (messageID, emoji string) {
	p := strings.Split(strings.Trim(path, "/"), "/")
	if len(p) < 6 {
		return "", ""
	}
	return p[3], unescape(p[5])
}

func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

func (s *Server) sortedChannelsLocked() []map[string]any {
	ids := make([]string, 0, len(s.channels))
	for id := range s.channels {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]map[string]any, len(ids))
	for i, id := range ids {
		out[i] = s.channels[id]
	}
	return out
}

func orEmpty(v []map[string]any) []map[string]any {
	if v == nil {
		return []map[string]any{}
	}
	return v
}

// Stickers returns the files of the stickers uploaded, in order.
func (s *Server) Stickers() []File {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]File(nil), s.stickers...)
}

// DMChannelOf is the id of the DM channel the fake opens with a user.
func DMChannelOf(userID string) string { return "9" + userID }
