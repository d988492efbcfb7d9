package slack

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/channels"
)

// Kinds of payload, as Socket Mode names its envelopes.
const (
	kindEvents      = "events_api"
	kindSlash       = "slash_commands"
	kindInteractive = "interactive"
)

// The Slack objects the adapter reads. They are ours rather than
// slack-go's so that one decoder serves Socket Mode and HTTP Events and
// so that unknown shapes fail soft.
type (
	// slEnvelope is an Events API callback (the Socket Mode events_api
	// payload, or the body of an HTTP Events request).
	slEnvelope struct {
		Type      string          `json:"type"` // event_callback, url_verification
		Challenge string          `json:"challenge"`
		TeamID    string          `json:"team_id"`
		EventID   string          `json:"event_id"`
		EventTime int64           `json:"event_time"`
		Event     json.RawMessage `json:"event"`
	}
	slEvent struct {
		Type         string     `json:"type"`
		Subtype      string     `json:"subtype"`
		Channel      string     `json:"channel"`
		ChannelType  string     `json:"channel_type"`
		User         string     `json:"user"`
		BotID        string     `json:"bot_id"`
		Username     string     `json:"username"`
		Text         string     `json:"text"`
		TS           string     `json:"ts"`
		ThreadTS     string     `json:"thread_ts"`
		ParentUserID string     `json:"parent_user_id"`
		EventTS      string     `json:"event_ts"`
		Team         string     `json:"team"`
		Files        []slFile   `json:"files"`
		Message      *slEvent   `json:"message"`
		Previous     *slEvent   `json:"previous_message"`
		Reaction     string     `json:"reaction"`
		Item         *slItem    `json:"item"`
		UserProfile  *slProfile `json:"user_profile"`
	}
	slProfile struct {
		DisplayName string `json:"display_name"`
		RealName    string `json:"real_name"`
		Name        string `json:"name"`
	}
	slItem struct {
		Type    string `json:"type"`
		Channel string `json:"channel"`
		TS      string `json:"ts"`
	}
	slFile struct {
		ID                 string `json:"id"`
		Name               string `json:"name"`
		Title              string `json:"title"`
		Mimetype           string `json:"mimetype"`
		Size               int64  `json:"size"`
		URLPrivate         string `json:"url_private"`
		URLPrivateDownload string `json:"url_private_download"`
	}
	// slSlash is a slash command (Socket Mode payload; HTTP mode sends the
	// same keys form-encoded).
	slSlash struct {
		Command     string `json:"command"`
		Text        string `json:"text"`
		TeamID      string `json:"team_id"`
		ChannelID   string `json:"channel_id"`
		ChannelName string `json:"channel_name"`
		UserID      string `json:"user_id"`
		UserName    string `json:"user_name"`
		ResponseURL string `json:"response_url"`
		TriggerID   string `json:"trigger_id"`
	}
	// slInteraction is an interactive payload; only block_actions are
	// handled.
	slInteraction struct {
		Type string `json:"type"`
		User struct {
			ID       string `json:"id"`
			Username string `json:"username"`
			Name     string `json:"name"`
			TeamID   string `json:"team_id"`
		} `json:"user"`
		Team struct {
			ID string `json:"id"`
		} `json:"team"`
		Channel struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"channel"`
		Container struct {
			MessageTS string `json:"message_ts"`
			ChannelID string `json:"channel_id"`
			ThreadTS  string `json:"thread_ts"`
		} `json:"container"`
		Message     *slEvent `json:"message"`
		ResponseURL string   `json:"response_url"`
		TriggerID   string   `json:"trigger_id"`
		Actions     []struct {
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
			ActionTS string `json:"action_ts"`
		} `json:"actions"`
	}
)

// normalise turns one payload into an Inbound event. kind is the Socket
// Mode envelope type (events_api, slash_commands, interactive). ok is
// false for payloads with nothing to act on (our own messages, joins,
// other apps' commands); err is set for payloads that do not decode. The
// caller acknowledges both without delivering them.
//
// EventID is team:channel:ts for messages (a channel mention arrives as
// both a message and an app_mention event; they share it, so the second
// is dropped as a duplicate), the envelope's event_id for edits and
// reactions, and the trigger id for commands and button presses. Time is
// zero when Slack gives none.
// replyToBot (implicitMentions.replyToBot) says whether a reply in a
// thread the bot started counts as mentioning it.
func normalise(kind string, payload []byte, me botIdentity, account, slashCommand string, replyToBot bool) (channels.Inbound, bool, error) {
	in := channels.Inbound{Channel: Channel, AccountID: account}
	switch kind {
	case kindEvents:
		var env slEnvelope
		if err := json.Unmarshal(payload, &env); err != nil {
			return in, false, fmt.Errorf("events payload: %w", err)
		}
		if env.Type != "event_callback" || len(env.Event) == 0 {
			return in, false, nil
		}
		var ev slEvent
		if err := json.Unmarshal(env.Event, &ev); err != nil {
			return in, false, fmt.Errorf("event: %w", err)
		}
		in.TeamID = env.TeamID
		if in.TeamID == "" {
			in.TeamID = ev.Team
		}
		ok := fromEvent(&in, &ev, env.EventID, me, replyToBot)
		return in, ok, nil
	case kindSlash:
		var c slSlash
		if err := json.Unmarshal(payload, &c); err != nil {
			return in, false, fmt.Errorf("slash command: %w", err)
		}
		return fromSlash(in, c, slashCommand)
	case kindInteractive:
		var p slInteraction
		if err := json.Unmarshal(payload, &p); err != nil {
			return in, false, fmt.Errorf("interaction: %w", err)
		}
		return fromInteraction(in, p)
	}
	return in, false, errors.New("unknown payload kind " + strconv.Quote(kind))
}

// fromEvent fills in from an Events API event; false means skip it.
func fromEvent(in *channels.Inbound, ev *slEvent, eventID string, me botIdentity, replyToBot bool) bool {
	switch ev.Type {
	case "message", "app_mention":
		if ev.Subtype == "message_changed" {
			return fromEdit(in, ev, eventID, me, replyToBot)
		}
		if !wantedSubtype(ev.Subtype) || ours(ev, me) || (ev.User == "" && ev.BotID != "") {
			return false
		}
		if ev.Channel == "" || ev.TS == "" || ev.User == "" {
			return false
		}
		fromMessage(in, ev, me, replyToBot)
		if strings.TrimSpace(in.Text) == "" && len(in.Media) == 0 {
			return false
		}
		in.Kind = channels.EventMessage
		in.EventID = in.TeamID + ":" + ev.Channel + ":" + ev.TS
		if ev.Type == "app_mention" {
			in.Mentioned = true
		}
		return true
	case "reaction_added":
		if ev.Item == nil || ev.Item.Type != "message" || ev.Item.Channel == "" || ev.User == "" || ev.User == me.UserID {
			return false
		}
		in.Kind = channels.EventReaction
		in.EventID = eventIDOr(eventID, in.TeamID, ev.Item.Channel, "reaction:"+ev.User+":"+ev.Reaction+":"+ev.Item.TS)
		in.MessageID = ev.Item.TS
		in.Chat = channels.Chat{ID: ev.Item.Channel, Kind: chatKind("", ev.Item.Channel)}
		in.Sender = channels.Sender{ID: ev.User}
		in.Reaction = ev.Reaction
		in.Time = tsTime(ev.EventTS)
		return true
	}
	return false
}

// fromEdit handles message_changed: an edit of someone's message becomes
// EventEdit. Unfurls (the text did not change) and our own edits are
// skipped.
func fromEdit(in *channels.Inbound, ev *slEvent, eventID string, me botIdentity, replyToBot bool) bool {
	m := ev.Message
	if m == nil || m.User == "" || ours(m, me) || ev.Channel == "" || m.TS == "" {
		return false
	}
	if ev.Previous != nil && ev.Previous.Text == m.Text {
		return false
	}
	m.Channel, m.ChannelType = ev.Channel, ev.ChannelType
	fromMessage(in, m, me, replyToBot)
	in.Kind = channels.EventEdit
	in.EventID = eventIDOr(eventID, in.TeamID, ev.Channel, "edit:"+m.TS+":"+ev.EventTS)
	if t := tsTime(ev.EventTS); !t.IsZero() {
		in.Time = t
	}
	return true
}

func fromMessage(in *channels.Inbound, ev *slEvent, me botIdentity, replyToBot bool) {
	in.MessageID = ev.TS
	in.Chat = channels.Chat{ID: ev.Channel, Kind: chatKind(ev.ChannelType, ev.Channel)}
	if ev.ThreadTS != "" && ev.ThreadTS != ev.TS {
		in.Chat.ThreadID = ev.ThreadTS
	}
	in.Sender = channels.Sender{ID: ev.User, IsBot: ev.BotID != ""}
	if p := ev.UserProfile; p != nil {
		in.Sender.Username = p.Name
		in.Sender.Name = p.DisplayName
		if in.Sender.Name == "" {
			in.Sender.Name = p.RealName
		}
	}
	in.Mentioned = mentions(ev.Text, me.UserID) ||
		(replyToBot && in.Chat.ThreadID != "" && me.UserID != "" && ev.ParentUserID == me.UserID)
	if ev.ChannelType == "channel" || ev.ChannelType == "group" { // not DMs or group DMs
		in.MentionsOthers = mentionsOtherUser(ev.Text, me.UserID, ev.User)
	}
	in.Text = readableText(stripMention(ev.Text, me.UserID))
	in.Media = mediaOf(ev.Files)
	in.Time = tsTime(ev.TS)
}

func fromSlash(in channels.Inbound, c slSlash, slashCommand string) (channels.Inbound, bool, error) {
	if !strings.EqualFold(c.Command, slashCommand) || c.ChannelID == "" || c.UserID == "" {
		return in, false, nil
	}
	in.Kind = channels.EventMessage
	in.EventID = "command:" + c.TriggerID
	if c.TriggerID == "" {
		return in, false, nil
	}
	in.TeamID = c.TeamID
	kind := chatKind("", c.ChannelID)
	if c.ChannelName == "directmessage" {
		kind = channels.Direct
	}
	in.Chat = channels.Chat{ID: c.ChannelID, Kind: kind}
	if kind != channels.Direct && c.ChannelName != "" && c.ChannelName != "privategroup" {
		in.Chat.Title = c.ChannelName
	}
	in.Sender = channels.Sender{ID: c.UserID, Username: c.UserName}
	in.Text = readableText(strings.TrimSpace(c.Text))
	in.Mentioned = true // a command is addressed to the bot
	in.CallbackID = c.ResponseURL
	return in, true, nil
}

func fromInteraction(in channels.Inbound, p slInteraction) (channels.Inbound, bool, error) {
	if p.Type != "block_actions" || len(p.Actions) == 0 || p.User.ID == "" {
		return in, false, nil
	}
	act := p.Actions[0]
	chatID := p.Channel.ID
	if chatID == "" {
		chatID = p.Container.ChannelID
	}
	if chatID == "" {
		return in, false, nil
	}
	in.Kind = channels.EventCallback
	in.TeamID = p.Team.ID
	if in.TeamID == "" {
		in.TeamID = p.User.TeamID
	}
	in.CallbackID = p.ResponseURL
	if in.CallbackID == "" {
		in.CallbackID = p.TriggerID
	}
	in.CallbackData = act.Value
	in.MessageID = p.Container.MessageTS
	thread := p.Container.ThreadTS
	if m := p.Message; m != nil {
		if in.MessageID == "" {
			in.MessageID = m.TS
		}
		if thread == "" {
			thread = m.ThreadTS
		}
	}
	in.Chat = channels.Chat{ID: chatID, Kind: chatKind("", chatID)}
	if p.Channel.Name == "directmessage" {
		in.Chat.Kind = channels.Direct
	}
	if thread != "" && thread != in.MessageID {
		in.Chat.ThreadID = thread
	}
	in.Sender = channels.Sender{ID: p.User.ID, Username: p.User.Username, Name: p.User.Name}
	in.Time = tsTime(act.ActionTS)
	switch {
	case p.TriggerID != "":
		in.EventID = "action:" + p.TriggerID
	case act.ActionTS != "":
		in.EventID = in.TeamID + ":" + chatID + ":action:" + act.ActionTS
	default:
		return in, false, nil
	}
	return in, true, nil
}

// wantedSubtype lists the message subtypes that carry something a person
// wrote; joins, topic changes, deletions and the like are skipped.
func wantedSubtype(s string) bool {
	switch s {
	case "", "file_share", "thread_broadcast", "me_message":
		return true
	}
	return false
}

// ours reports whether the bot itself wrote ev.
func ours(ev *slEvent, me botIdentity) bool {
	return (me.UserID != "" && ev.User == me.UserID) || (me.BotID != "" && ev.BotID == me.BotID)
}

// chatKind maps Slack's channel_type, or the id's prefix when the event
// has none: im (D…) is direct; channels, private channels and mpims are
// groups, whose policy is the stricter one.
func chatKind(channelType, id string) channels.ChatKind {
	switch channelType {
	case "im":
		return channels.Direct
	case "channel", "group", "mpim":
		return channels.Group
	}
	if strings.HasPrefix(id, "D") {
		return channels.Direct
	}
	return channels.Group
}

func eventIDOr(eventID, team, channel, local string) string {
	if eventID != "" {
		return eventID
	}
	return team + ":" + channel + ":" + local
}

// tsTime reads a Slack timestamp ("1700000000.000100"); zero when it is
// not one.
func tsTime(ts string) time.Time {
	sec, frac, _ := strings.Cut(ts, ".")
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || s <= 0 || s > 1<<40 {
		return time.Time{}
	}
	var us int64
	if len(frac) == 6 {
		us, _ = strconv.ParseInt(frac, 10, 64)
	}
	return time.Unix(s, us*1000).UTC()
}

func mediaOf(files []slFile) []channels.Media {
	var out []channels.Media
	for _, f := range files {
		u := f.URLPrivateDownload
		if u == "" {
			u = f.URLPrivate
		}
		if u == "" {
			continue
		}
		name := f.Name
		if name == "" {
			name = f.Title
		}
		out = append(out, channels.Media{Kind: mediaKind(f.Mimetype), FileID: u, MIME: f.Mimetype, Name: name, Size: f.Size})
	}
	return out
}

func mediaKind(mime string) string {
	switch {
	case strings.HasPrefix(mime, "image/"):
		return "photo"
	case strings.HasPrefix(mime, "audio/"):
		return "audio"
	case strings.HasPrefix(mime, "video/"):
		return "video"
	}
	return "document"
}
