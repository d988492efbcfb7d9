package discordtest

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
)

// Fault is what a faulted call answers instead of its normal result.
type Fault struct {
	status     int
	code       int
	message    string
	retryAfter float64
	malformed  bool
}

// TooManyRequests answers 429 with retry_after (seconds) in the body and
// the Retry-After header, as Discord's rate limiter does.
func TooManyRequests(retryAfter float64) Fault {
	return Fault{status: http.StatusTooManyRequests, message: "You are being rate limited.", retryAfter: retryAfter}
}

// ServerError answers 500.
func ServerError() Fault {
	return Fault{status: http.StatusInternalServerError, message: "500: Internal Server Error"}
}

// APIError answers status with Discord's {code, message}, e.g. 403 50013
// "Missing Permissions".
func APIError(status, code int, message string) Fault {
	return Fault{status: status, code: code, message: message}
}

// Malformed answers 200 with a body that is not JSON.
func Malformed() Fault { return Fault{status: http.StatusOK, malformed: true} }

// Fail makes the next n calls of route answer f. Routes: gateway/bot,
// users/@me, user, channel, member, send, edit, delete, typing, react,
// pin, unpin, callback, followup, commands; and messages, message,
// reactions, pins, thread-create, guild, threads, guild-channels, roles,
// role-add, role-remove, member-edit, kick, ban, emojis, emoji-create, sticker-create, voice-state,
// events, event-create.
func (s *Server) Fail(route string, n int, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults[route] = append(s.faults[route], f)
	}
}

func (f Fault) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	if f.malformed {
		w.WriteHeader(f.status)
		_, _ = w.Write([]byte(`{"id":"12`))
		return
	}
	body := map[string]any{"message": f.message, "code": f.code}
	if f.retryAfter > 0 {
		body["retry_after"] = f.retryAfter
		body["global"] = false
		w.Header().Set("Retry-After", fmt.Sprint(f.retryAfter))
	}
	w.WriteHeader(f.status)
	_ = json.NewEncoder(w).Encode(body)
}

// route names a REST request; params are the path's ids.
func route(method, path string) (name string, params []string) {
	p := strings.Split(strings.Trim(path, "/"), "/")
	is := func(m string, pattern ...string) bool {
		if method != m || len(p) != len(pattern) {
			return false
		}
		params = params[:0]
		for i, seg := range pattern {
			switch seg {
			case "*":
				params = append(params, p[i])
			default:
				if p[i] != seg {
					return false
				}
			}
		}
		return true
	}
	switch {
	case is("GET", "gateway", "bot"):
		return "gateway/bot", nil
	case is("GET", "users", "@me"):
		return "users/@me", nil
	case is("GET", "users", "*"):
		return "user", params
	case is("GET", "channels", "*"):
		return "channel", params
	case is("GET", "guilds", "*", "members", "*"):
		return "member", params
	case is("POST", "channels", "*", "messages"):
		return "send", params
	case is("PATCH", "channels", "*", "messages", "*"):
		return "edit", params
	case is("DELETE", "channels", "*", "messages", "*"):
		return "delete", params
	case is("POST", "channels", "*", "typing"):
		return "typing", params
	case is("PUT", "channels", "*", "messages", "*", "reactions", "*", "@me"):
		return "react", params
	case is("PUT", "channels", "*", "pins", "*"):
		return "pin", params
	case is("DELETE", "channels", "*", "pins", "*"):
		return "unpin", params
	case is("POST", "interactions", "*", "*", "callback"):
		return "callback", params
	case is("POST", "webhooks", "*", "*"):
		return "followup", params
	case is("PUT", "applications", "*", "commands"):
		return "commands", params
	}
	return moreRoute(method, p)
}

func (s *Server) serveREST(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.EscapedPath(), "/api/v9")
	name, params := route(r.Method, path)
	body, files, err := readBody(r)
	if err != nil {
		writeErr(w, http.StatusBadRequest, 50035, "Invalid Form Body: "+err.Error())
		return
	}
	s.mu.Lock()
	s.calls = append(s.calls, Call{Route: name, Method: r.Method, Path: path, Query: r.URL.RawQuery, Reason: unescape(r.Header.Get("X-Audit-Log-Reason")), Body: body})
	s.notifyLocked()
	if r.Header.Get("Authorization") != "Bot "+s.token || s.revoked {
		s.mu.Unlock()
		writeErr(w, http.StatusUnauthorized, 0, "401: Unauthorized")
		return
	}
	if q := s.faults[name]; len(q) > 0 {
		s.faults[name] = q[1:]
		s.mu.Unlock()
		q[0].write(w)
		return
	}
	defer s.mu.Unlock()
	switch name {
	case "gateway/bot":
		writeJSON(w, 200, map[string]any{"url": s.GatewayURL(), "shards": 1,
			"session_start_limit": map[string]any{"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}})
	case "users/@me":
		writeJSON(w, 200, botUser())
	case "user":
		writeJSON(w, 200, map[string]any{"id": params[0], "username": "user" + params[0]})
	case "channel":
		ch, ok := s.channels[params[0]]
		if !ok {
			writeErr(w, 404, 10003, "Unknown Channel")
			return
		}
		writeJSON(w, 200, ch)
	case "member":
		writeJSON(w, 200, map[string]any{"user": map[string]any{"id": params[1], "username": "user" + params[1]}, "roles": []string{}})
	case "send", "edit":
		var m struct {
			Content         string          `json:"content"`
			Flags           int             `json:"flags"`
			Components      json.RawMessage `json:"components"`
			AllowedMentions json.RawMessage `json:"allowed_mentions"`
			Poll            json.RawMessage `json:"poll"`
			Attachments     []Attachment    `json:"attachments"`
			StickerIDs      []string        `json:"sticker_ids"`
			Reference       *struct {
				MessageID string `json:"message_id"`
			} `json:"message_reference"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			writeErr(w, 400, 50035, "Invalid Form Body")
			return
		}
		if m.Content == "" && len(files) == 0 && len(m.Poll) == 0 && len(m.StickerIDs) == 0 && name == "send" {
			writeErr(w, 400, 50006, "Cannot send an empty message")
			return
		}
		if m.Flags&voiceMessageFlag != 0 {
			// Discord's rules for a voice message: no content, one file,
			// and its length and waveform in the attachment metadata.
			if name != "send" || m.Content != "" || len(files) != 1 || len(m.Attachments) != 1 ||
				m.Attachments[0].DurationSecs <= 0 || m.Attachments[0].Waveform == "" {
				writeErr(w, 400, 50161, "Voice messages must have a single audio attachment with duration_secs and waveform, and no content")
				return
			}
		}
		if len([]rune(m.Content)) > 2000 {
			writeErr(w, 400, 50035, "Invalid Form Body: content: Must be 2000 or fewer in length.")
			return
		}
		msg := Message{ChannelID: params[0], Content: m.Content, Flags: m.Flags, Components: m.Components,
			AllowedMentions: m.AllowedMentions, Poll: m.Poll, Files: files, Attachments: m.Attachments, StickerIDs: m.StickerIDs}
		if m.Reference != nil {
			msg.ReplyTo = m.Reference.MessageID
		}
		if name == "send" {
			msg.ID = s.newIDLocked()
			s.sent = append(s.sent, msg)
		} else {
			msg.ID = params[1]
			s.edits = append(s.edits, msg)
		}
		s.notifyLocked()
		writeJSON(w, 200, map[string]any{"id": msg.ID, "channel_id": msg.ChannelID, "content": msg.Content,
			"author": botUser(), "timestamp": "2026-01-01T00:00:00+00:00", "type": 0})
	case "callback":
		var cb struct {
			Type int `json:"type"`
			Data *struct {
				Content string `json:"content"`
				Flags   int    `json:"flags"`
			} `json:"data"`
		}
		_ = json.Unmarshal(body, &cb)
		if s.acked[params[0]] {
			writeErr(w, 400, 40060, "Interaction has already been acknowledged.")
			return
		}
		s.acked[params[0]] = true
		c := Callback{InteractionID: params[0], Token: params[1], Type: cb.Type}
		if cb.Data != nil {
			c.Content, c.Flags = cb.Data.Content, cb.Data.Flags
		}
		s.callbacks = append(s.callbacks, c)
		s.notifyLocked()
		w.WriteHeader(http.StatusNoContent)
	case "followup":
		var m struct {
			Content string `json:"content"`
			Flags   int    `json:"flags"`
		}
		_ = json.Unmarshal(body, &m)
		s.callbacks = append(s.callbacks, Callback{Token: params[1], Content: m.Content, Flags: m.Flags})
		s.notifyLocked()
		writeJSON(w, 200, map[string]any{"id": s.newIDLocked(), "content": m.Content})
	case "commands":
		s.commands = append(json.RawMessage(nil), body...)
		s.notifyLocked()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	case "delete", "typing", "react", "pin", "unpin":
		w.WriteHeader(http.StatusNoContent)
	default:
		if !s.serveMoreLocked(w, r, name, params, body, files) {
			writeErr(w, 404, 0, "404: Not Found")
		}
	}
}

func (s *Server) serveAttachment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data, ok := s.files[strings.TrimPrefix(r.URL.Path, "/attachments/")]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	_, _ = w.Write(data)
}

// readBody returns the JSON body (payload_json of a multipart body) and
// the uploaded files.
func readBody(r *http.Request) ([]byte, []File, error) {
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		b, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		return b, nil, err
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	var body []byte
	var files []File
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return body, files, nil
		}
		if err != nil {
			return nil, nil, err
		}
		b, err := io.ReadAll(io.LimitReader(p, 64<<20))
		if err != nil {
			return nil, nil, err
		}
		if p.FormName() == "payload_json" {
			body = b
		} else {
			files = append(files, File{Form: p.FormName(), Name: p.FileName(), Bytes: b})
		}
	}
}

func botUser() map[string]any {
	return map[string]any{"id": BotID, "username": BotUsername, "bot": true, "discriminator": "0"}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeErr(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, map[string]any{"message": msg, "code": code})
}

// BotUserMap is the bot's user object, for events that mention or come
// from the bot.
func BotUserMap() map[string]any { return botUser() }
