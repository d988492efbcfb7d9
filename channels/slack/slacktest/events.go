package slacktest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// Msg describes a message event. Empty fields get defaults: a fresh TS,
// ChannelType from the channel id (D… im, G… group, else channel).
type Msg struct {
	Channel     string
	ChannelType string
	User        string
	Text        string
	TS          string
	ThreadTS    string
	BotID       string
	Subtype     string
	Files       []FileRef
}

// FileRef is a file shared in a message.
type FileRef struct {
	Name, Mimetype, URL string
	Size                int64
}

// Command is a slash command invocation.
type Command struct {
	Command, Text, Channel, ChannelName, User, UserName, ResponseURL string
}

// Action is a button press (block_actions).
type Action struct {
	User, Channel, MessageTS, ThreadTS, Value, ResponseURL string
}

func (s *Server) freshTS() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nextTSLocked()
}

func (s *Server) freshID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	return prefix + strconv.FormatInt(s.nextID, 10)
}

// messageEvent is the inner event of m; it fills in m.TS.
func (s *Server) messageEvent(typ string, m *Msg) map[string]any {
	if m.TS == "" {
		m.TS = s.freshTS()
	}
	ct := m.ChannelType
	if ct == "" {
		switch m.Channel[:min(1, len(m.Channel))] {
		case "D":
			ct = "im"
		case "G":
			ct = "group"
		default:
			ct = "channel"
		}
	}
	ev := map[string]any{"type": typ, "channel": m.Channel, "user": m.User, "text": m.Text,
		"ts": m.TS, "event_ts": m.TS, "team": TeamID}
	if typ == "message" {
		ev["channel_type"] = ct
	}
	if m.ThreadTS != "" {
		ev["thread_ts"] = m.ThreadTS
	}
	if m.BotID != "" {
		ev["bot_id"] = m.BotID
	}
	if m.Subtype != "" {
		ev["subtype"] = m.Subtype
	}
	if len(m.Files) > 0 {
		var files []map[string]any
		for i, f := range m.Files {
			files = append(files, map[string]any{"id": fmt.Sprintf("F%d", i+1), "name": f.Name, "title": f.Name,
				"mimetype": f.Mimetype, "size": f.Size, "url_private": f.URL, "url_private_download": f.URL})
		}
		ev["files"] = files
	}
	return ev
}

// Callback wraps an inner event as an Events API event_callback (the
// events_api payload, or an HTTP Events request body).
func (s *Server) Callback(event map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{
		"token": "verification-token-unused", "team_id": TeamID, "api_app_id": AppID, "type": "event_callback",
		"event_id": s.freshID("Ev"), "event_time": time.Now().Unix(), "event": event,
		"authorizations": []map[string]any{{"team_id": TeamID, "user_id": BotUserID, "is_bot": true}},
	})
	return b
}

// MessagePayload is the event_callback of a message event; it fills in
// m.TS.
func (s *Server) MessagePayload(m *Msg) []byte { return s.Callback(s.messageEvent("message", m)) }

// AppMentionPayload is the event_callback of an app_mention event.
func (s *Server) AppMentionPayload(m *Msg) []byte {
	return s.Callback(s.messageEvent("app_mention", m))
}

// ReactionPayload is the event_callback of reaction_added.
func (s *Server) ReactionPayload(user, channel, ts, reaction string) []byte {
	return s.Callback(map[string]any{"type": "reaction_added", "user": user, "reaction": reaction,
		"item": map[string]any{"type": "message", "channel": channel, "ts": ts}, "event_ts": s.freshTS()})
}

// CommandPayload is the slash_commands payload of c (HTTP mode sends the
// same keys form-encoded; see CommandForm).
func (s *Server) CommandPayload(c Command) []byte {
	b, _ := json.Marshal(s.commandFields(c))
	return b
}

// CommandForm is c as the form body of an HTTP slash command request.
func (s *Server) CommandForm(c Command) []byte {
	v := url.Values{}
	for k, val := range s.commandFields(c) {
		v.Set(k, val)
	}
	return []byte(v.Encode())
}

func (s *Server) commandFields(c Command) map[string]string {
	return map[string]string{"token": "unused", "team_id": TeamID, "team_domain": "openclaw-test",
		"channel_id": c.Channel, "channel_name": c.ChannelName, "user_id": c.User, "user_name": c.UserName,
		"command": c.Command, "text": c.Text, "api_app_id": AppID, "response_url": c.ResponseURL,
		"trigger_id": s.freshID("trig-")}
}

// ActionPayload is the interactive payload of a button press.
func (s *Server) ActionPayload(a Action) []byte {
	msg := map[string]any{"type": "message", "ts": a.MessageTS, "user": BotUserID, "bot_id": BotID}
	if a.ThreadTS != "" {
		msg["thread_ts"] = a.ThreadTS
	}
	b, _ := json.Marshal(map[string]any{
		"type": "block_actions", "user": map[string]any{"id": a.User, "username": "user", "name": "user", "team_id": TeamID},
		"api_app_id": AppID, "team": map[string]any{"id": TeamID, "domain": "openclaw-test"},
		"container":  map[string]any{"type": "message", "message_ts": a.MessageTS, "channel_id": a.Channel, "is_ephemeral": false},
		"trigger_id": s.freshID("trig-"), "channel": map[string]any{"id": a.Channel, "name": "general"},
		"message": msg, "response_url": a.ResponseURL,
		"actions": []map[string]any{{"action_id": "openclaw_btn_0_0", "block_id": "openclaw_btn_row_0",
			"text": map[string]any{"type": "plain_text", "text": "Allow"}, "value": a.Value, "type": "button",
			"action_ts": s.freshTS()}},
	})
	return b
}

// PushMessage pushes a message event over Socket Mode and returns the
// envelope id and the message ts.
func (s *Server) PushMessage(m Msg) (envelopeID, ts string) {
	p := s.MessagePayload(&m)
	return s.Push("events_api", p), m.TS
}

// PushAppMention pushes an app_mention event over Socket Mode.
func (s *Server) PushAppMention(m Msg) (envelopeID, ts string) {
	p := s.AppMentionPayload(&m)
	return s.Push("events_api", p), m.TS
}

// Sign returns the X-Slack-Request-Timestamp and X-Slack-Signature
// headers Slack would send with body at time at.
func Sign(secret string, at time.Time, body []byte) (timestamp, signature string) {
	timestamp = strconv.FormatInt(at.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("v0:" + timestamp + ":"))
	m.Write(body)
	return timestamp, "v0=" + hex.EncodeToString(m.Sum(nil))
}
