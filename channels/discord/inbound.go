package discord

import (
	"cmp"
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/openclaw-go/openclaw/channels"
)

// The gateway objects the adapter reads. They are ours rather than
// discordgo's so that decoding stays lenient (discordgo's Message and
// Interaction decoders fail on component and option shapes they do not
// know) and the normaliser stays a pure function.
type (
	dcUser struct {
		ID         string `json:"id"`
		Username   string `json:"username"`
		GlobalName string `json:"global_name"`
		Bot        bool   `json:"bot"`
	}
	dcMember struct {
		User  *dcUser  `json:"user"`
		Nick  string   `json:"nick"`
		Roles []string `json:"roles"`
	}
	dcAttachment struct {
		ID          string `json:"id"`
		URL         string `json:"url"`
		Filename    string `json:"filename"`
		ContentType string `json:"content_type"`
		Size        int64  `json:"size"`
	}
	dcMessage struct {
		ID                string         `json:"id"`
		ChannelID         string         `json:"channel_id"`
		GuildID           string         `json:"guild_id"`
		Author            *dcUser        `json:"author"`
		Member            *dcMember      `json:"member"`
		Content           string         `json:"content"`
		Timestamp         string         `json:"timestamp"`
		EditedTimestamp   string         `json:"edited_timestamp"`
		Mentions          []dcUser       `json:"mentions"`
		MentionRoles      []string       `json:"mention_roles"`
		Attachments       []dcAttachment `json:"attachments"`
		Type              int            `json:"type"`
		Flags             int            `json:"flags"`
		WebhookID         string         `json:"webhook_id"`
		MessageReference  *dcReference   `json:"message_reference"`
		ReferencedMessage *dcMessage     `json:"referenced_message"`
	}
	dcReference struct {
		MessageID string `json:"message_id"`
		ChannelID string `json:"channel_id"`
	}
	dcReaction struct {
		UserID    string    `json:"user_id"`
		ChannelID string    `json:"channel_id"`
		MessageID string    `json:"message_id"`
		GuildID   string    `json:"guild_id"`
		Member    *dcMember `json:"member"`
		Emoji     struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"emoji"`
	}
	dcInteraction struct {
		ID        string     `json:"id"`
		Type      int        `json:"type"`
		Token     string     `json:"token"`
		GuildID   string     `json:"guild_id"`
		ChannelID string     `json:"channel_id"`
		Member    *dcMember  `json:"member"`
		User      *dcUser    `json:"user"`
		Message   *dcMessage `json:"message"`
		Data      struct {
			Name     string `json:"name"`
			CustomID string `json:"custom_id"`
			Options  []struct {
				Name  string `json:"name"`
				Value any    `json:"value"`
			} `json:"options"`
		} `json:"data"`
	}
	// dcChannel is the part of a channel object thread tracking needs.
	dcChannel struct {
		ID       string `json:"id"`
		Type     int    `json:"type"`
		ParentID string `json:"parent_id"`
		Name     string `json:"name"`
	}
)

// Message types that carry what a person wrote: default and reply, and
// a slash command's or thread starter's visible message are left out.
const (
	msgDefault = 0
	msgReply   = 19
)

// Interaction types.
const (
	interactionCommand   = 2
	interactionComponent = 3
)

// slashCommands are the application commands the adapter registers and
// turns into "/name" messages. /voice is /tts: Discord keeps the name tts
// for its own built-in command.
var slashCommands = map[string]bool{"new": true, "reset": true, "status": true, "voice": true}

// voiceArgs is the option of /voice that carries what follows /tts.
const voiceArgs = "args"

// threadInfo is what the adapter knows of a channel: whether it is a
// thread and, if so, its parent.
type threadInfo struct {
	isThread bool
	parentID string
}

// normEnv is what the normaliser knows beyond the event.
type normEnv struct {
	me        botIdentity
	account   string
	allowBots bool
	threads   threadLookup
	// botRole reports whether a role id is the bot's own managed role:
	// Discord's autocomplete often turns "@Bot" into a mention of it.
	botRole func(roleID string) bool
}

// threadLookup says whether channelID is a thread and of which channel.
// known is false when the adapter does not know the channel.
type threadLookup func(channelID string) (info threadInfo, known bool)

// isThreadType reports Discord's thread channel types (announcement,
// public and private thread).
func isThreadType(t int) bool { return t == 10 || t == 11 || t == 12 }

// normalise turns one dispatch event into an Inbound event. ok is false
// for events with nothing to act on (our own messages, other bots unless
// allowBots, system messages, embeds-only edits, unknown interactions).
func normalise(t string, d json.RawMessage, env normEnv) (in channels.Inbound, ok bool) {
	me, allowBots, threads := env.me, env.allowBots, env.threads
	in = channels.Inbound{Channel: Channel, AccountID: env.account}
	switch t {
	case "MESSAGE_CREATE", "MESSAGE_UPDATE":
		var m dcMessage
		if json.Unmarshal(d, &m) != nil || m.ID == "" || m.ChannelID == "" || m.Author == nil || m.Author.ID == "" {
			return in, false
		}
		if m.Type != msgDefault && m.Type != msgReply {
			return in, false
		}
		if m.Author.ID == me.ID || (m.Author.Bot && !allowBots) {
			return in, false
		}
		in.Kind = channels.EventMessage
		in.EventID = m.ID
		in.Time = parseTime(m.Timestamp)
		if t == "MESSAGE_UPDATE" {
			if m.EditedTimestamp == "" {
				return in, false // an embed resolved, not an edit
			}
			in.Kind = channels.EventEdit
			in.Time = parseTime(m.EditedTimestamp)
			in.EventID = "edit:" + m.ID + ":" + m.EditedTimestamp
		}
		in.MessageID = m.ID
		in.GuildID = m.GuildID
		in.Chat = chatOf(m.ChannelID, m.GuildID, threads)
		in.Sender = senderOf(m.Author)
		if m.Member != nil {
			in.Roles = m.Member.Roles
			if m.Member.Nick != "" {
				in.Sender.Name = m.Member.Nick
			}
		}
		for _, u := range m.Mentions {
			if me.ID != "" && u.ID == me.ID {
				in.Mentioned = true
			} else if u.ID != "" && (m.Author == nil || u.ID != m.Author.ID) {
				in.MentionsOthers = true
			}
		}
		text := stripMention(m.Content, me.ID)
		for _, r := range m.MentionRoles {
			if env.botRole != nil && env.botRole(r) {
				in.Mentioned = true
				text = strings.TrimSpace(strings.ReplaceAll(text, "<@&"+r+">", ""))
			} else {
				in.MentionsOthers = true
			}
		}
		if r := m.MessageReference; r != nil && r.MessageID != "" {
			in.ReplyToID = r.MessageID
			if rm := m.ReferencedMessage; rm != nil && rm.Author != nil && me.ID != "" && rm.Author.ID == me.ID {
				in.Mentioned = true
			} else if rm != nil && rm.Author != nil && rm.Author.Bot && rm.WebhookID == "" {
				in.MentionsOthers = true // a reply to another bot
			}
		}
		in.Text = text
		in.Media = mediaOf(m.Attachments)
		if in.Text == "" && len(in.Media) == 0 {
			return in, false
		}
		return in, true

	case "MESSAGE_REACTION_ADD", "MESSAGE_REACTION_REMOVE":
		var r dcReaction
		if json.Unmarshal(d, &r) != nil || r.MessageID == "" || r.ChannelID == "" || r.UserID == "" || r.UserID == me.ID {
			return in, false
		}
		emoji := r.Emoji.Name
		if r.Emoji.ID != "" {
			emoji = "custom:" + r.Emoji.Name + ":" + r.Emoji.ID
		}
		if emoji == "" {
			return in, false
		}
		in.Kind = channels.EventReaction
		in.MessageID = r.MessageID
		in.GuildID = r.GuildID
		in.Chat = chatOf(r.ChannelID, r.GuildID, threads)
		in.Sender = channels.Sender{ID: r.UserID}
		if r.Member != nil {
			in.Roles = r.Member.Roles
			if r.Member.User != nil {
				in.Sender = senderOf(r.Member.User)
			}
		}
		if in.Sender.IsBot && !allowBots {
			return in, false
		}
		in.Reaction = emoji
		in.EventID = "reaction:" + r.MessageID + ":" + r.UserID + ":" + emoji
		if t == "MESSAGE_REACTION_REMOVE" {
			in.Reaction = ""
			in.EventID = "unreaction:" + r.MessageID + ":" + r.UserID + ":" + emoji
		}
		return in, true // the gateway gives no time: handle stamps it

	case "INTERACTION_CREATE":
		var it dcInteraction
		if json.Unmarshal(d, &it) != nil || it.ID == "" || it.Token == "" || it.ChannelID == "" {
			return in, false
		}
		user := it.User
		if it.Member != nil {
			in.Roles = it.Member.Roles
			if it.Member.User != nil {
				user = it.Member.User
			}
		}
		if user == nil || user.ID == "" {
			return in, false
		}
		in.EventID = it.ID
		in.GuildID = it.GuildID
		in.Chat = chatOf(it.ChannelID, it.GuildID, threads)
		in.Sender = senderOf(user)
		in.Time = snowflakeTime(it.ID)
		switch it.Type {
		case interactionComponent:
			in.Kind = channels.EventCallback
			in.CallbackID = it.ID + ":" + it.Token
			in.CallbackData = it.Data.CustomID
			if it.Message != nil {
				in.MessageID = it.Message.ID
			}
			return in, true
		case interactionCommand:
			if !slashCommands[it.Data.Name] {
				return in, false
			}
			in.Kind = channels.EventMessage
			in.CallbackID = it.ID + ":" + it.Token
			in.Text = "/" + it.Data.Name
			if it.Data.Name == "voice" {
				in.Text = "/tts"
				for _, o := range it.Data.Options {
					if s, ok := o.Value.(string); ok && o.Name == voiceArgs && strings.TrimSpace(s) != "" {
						// One line, as the gateway reads commands: a
						// newline in the option would make it text.
						in.Text += " " + strings.Join(strings.Fields(s), " ")
					}
				}
			}
			in.Mentioned = true // a command is addressed to the bot
			return in, true
		}
	}
	return in, false
}

// chatOf is the chat of a channel: direct outside a guild, group inside
// one, with a thread as ThreadID of its parent channel.
func chatOf(channelID, guildID string, threads threadLookup) channels.Chat {
	if guildID == "" {
		return channels.Chat{ID: channelID, Kind: channels.Direct}
	}
	c := channels.Chat{ID: channelID, Kind: channels.Group}
	if threads != nil {
		if ti, known := threads(channelID); known && ti.isThread && ti.parentID != "" {
			c.ID, c.ThreadID = ti.parentID, channelID
		}
	}
	return c
}

func senderOf(u *dcUser) channels.Sender {
	return channels.Sender{ID: u.ID, Username: u.Username, Name: cmp.Or(u.GlobalName, u.Username), IsBot: u.Bot}
}

// stripMention removes the bot's <@id> and <@!id> mentions.
func stripMention(text, botID string) string {
	if botID != "" {
		text = strings.ReplaceAll(text, "<@"+botID+">", "")
		text = strings.ReplaceAll(text, "<@!"+botID+">", "")
	}
	return strings.TrimSpace(text)
}

func mediaOf(atts []dcAttachment) []channels.Media {
	var out []channels.Media
	for _, at := range atts {
		if at.URL == "" {
			continue
		}
		kind := "document"
		mt := strings.ToLower(at.ContentType)
		switch {
		case strings.HasPrefix(mt, "image/"):
			kind = "photo"
		case strings.HasPrefix(mt, "video/"):
			kind = "video"
		case strings.HasPrefix(mt, "audio/"):
			kind = "audio"
		}
		out = append(out, channels.Media{Kind: kind, FileID: at.URL, MIME: at.ContentType, Name: at.Filename, Size: at.Size})
	}
	return out
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// snowflakeTime is when a snowflake id was made (ms since 2015).
func snowflakeTime(id string) time.Time {
	t, err := discordgo.SnowflakeTimestamp(id)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// handle normalises one dispatch event and stores it, retrying until the
// sink accepts it; then it acknowledges interactions. It returns false
// when ctx ended first.
func (a *Adapter) handle(ctx context.Context, t string, d json.RawMessage) bool {
	switch t {
	case "THREAD_CREATE", "THREAD_UPDATE", "CHANNEL_CREATE", "CHANNEL_UPDATE":
		var ch dcChannel
		if json.Unmarshal(d, &ch) == nil && ch.ID != "" {
			a.threads.Store(ch.ID, threadInfo{isThread: isThreadType(ch.Type), parentID: ch.ParentID})
		}
		return true
	case "THREAD_LIST_SYNC", "GUILD_CREATE":
		var g struct {
			Threads []dcChannel `json:"threads"`
			Roles   []struct {
				ID   string `json:"id"`
				Tags *struct {
					BotID string `json:"bot_id"`
				} `json:"tags"`
			} `json:"roles"`
		}
		if json.Unmarshal(d, &g) == nil {
			for _, ch := range g.Threads {
				if ch.ID != "" {
					a.threads.Store(ch.ID, threadInfo{isThread: true, parentID: ch.ParentID})
				}
			}
			if me := a.self.Load(); me != nil {
				for _, r := range g.Roles {
					if r.Tags != nil && r.Tags.BotID == me.ID && r.ID != "" {
						a.botRoles.Store(r.ID, true)
					}
				}
			}
		}
		return true
	case "MESSAGE_CREATE", "MESSAGE_UPDATE", "MESSAGE_REACTION_ADD", "MESSAGE_REACTION_REMOVE", "INTERACTION_CREATE":
	default:
		return true
	}
	me := botIdentity{}
	if p := a.self.Load(); p != nil {
		me = *p
	}
	in, ok := normalise(t, d, normEnv{me: me, account: a.opts.AccountID, allowBots: a.opts.AllowBots,
		threads: a.threadOf(ctx), botRole: func(id string) bool { _, ok := a.botRoles.Load(id); return ok }})
	if !ok {
		return true
	}
	if in.Time.IsZero() {
		in.Time = time.Now().UTC()
	}
	sink := a.life.Sink()
	if sink == nil {
		return true
	}
	stored := channels.ReceiveUntilStored(ctx, sink, in, a.backoff, func(attempt int, err error) {
		a.log.Warn("discord event not stored; retrying", "event", in.EventID, "attempt", attempt+1, "err", err)
	})
	if !stored {
		return false
	}
	if t == "INTERACTION_CREATE" && in.CallbackID != "" {
		a.ackInteraction(ctx, in)
	}
	return true
}

// threadOf looks a guild channel up: from what the gateway told us, else
// GET channels/{id} (remembered, also when it fails, so one bad channel
// costs one call).
func (a *Adapter) threadOf(ctx context.Context) threadLookup {
	return func(id string) (threadInfo, bool) {
		if v, ok := a.threads.Load(id); ok {
			return v.(threadInfo), true
		}
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		var ch *discordgo.Channel
		err := a.call(lctx, "get channel", func(o ...discordgo.RequestOption) (err error) {
			ch, err = a.rest.Channel(id, o...)
			return err
		})
		ti := threadInfo{}
		if err == nil && ch != nil {
			ti = threadInfo{isThread: ch.IsThread(), parentID: ch.ParentID}
		} else {
			a.log.Debug("discord channel lookup failed", "channel", id, "err", err)
		}
		a.threads.Store(id, ti)
		return ti, true
	}
}
