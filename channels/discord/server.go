package discord

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/openclaw-go/openclaw/channels"
)

// The server actions: roles, moderation, permissions, emoji, stickers,
// voice states and scheduled events. Each acts on the server of the
// target channel, so a session bound to one channel reaches only its own
// server.

var (
	_ channels.Roles             = (*Adapter)(nil)
	_ channels.Moderator         = (*Adapter)(nil)
	_ channels.PermissionsReader = (*Adapter)(nil)
	_ channels.EmojiLister       = (*Adapter)(nil)
	_ channels.EmojiUploader     = (*Adapter)(nil)
	_ channels.StickerUploader   = (*Adapter)(nil)
	_ channels.StickerSender     = (*Adapter)(nil)
	_ channels.VoiceStatuser     = (*Adapter)(nil)
	_ channels.Eventer           = (*Adapter)(nil)
)

// maxTimeout is the longest timeout Discord allows (28 days).
const maxTimeout = 28 * 24 * time.Hour

// reasonOpts adds the audit-log reason, when there is one.
func reasonOpts(reason string, o []discordgo.RequestOption) []discordgo.RequestOption {
	if reason == "" {
		return o
	}
	return append(o, discordgo.WithAuditLogReason(reason))
}

// RoleInfo returns the roles of the server.
func (a *Adapter) RoleInfo(ctx context.Context, to channels.Target) (any, error) {
	guild, err := a.guildOf(ctx, to.ChatID)
	if err != nil {
		return nil, err
	}
	var roles []*discordgo.Role
	err = a.call(ctx, "list roles", func(o ...discordgo.RequestOption) (err error) {
		roles, err = a.rest.GuildRoles(guild, o...)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(roles))
	for i, r := range roles {
		out[i] = map[string]any{"id": r.ID, "name": r.Name, "position": r.Position, "permissions": fmt.Sprint(r.Permissions), "managed": r.Managed, "mentionable": r.Mentionable}
	}
	return map[string]any{"ok": true, "guildId": guild, "roles": out}, nil
}

// AddRole gives a member a role.
func (a *Adapter) AddRole(ctx context.Context, to channels.Target, userID, roleID string) error {
	guild, err := a.guildOf(ctx, to.ChatID)
	if err != nil {
		return err
	}
	return a.call(ctx, "add role", func(o ...discordgo.RequestOption) error {
		return a.rest.GuildMemberRoleAdd(guild, userID, roleID, o...)
	})
}

// RemoveRole takes a role from a member.
func (a *Adapter) RemoveRole(ctx context.Context, to channels.Target, userID, roleID string) error {
	guild, err := a.guildOf(ctx, to.ChatID)
	if err != nil {
		return err
	}
	return a.call(ctx, "remove role", func(o ...discordgo.RequestOption) error {
		return a.rest.GuildMemberRoleRemove(guild, userID, roleID, o...)
	})
}

// Timeout keeps a member from talking until until (at most 28 days
// ahead); a zero until lifts the timeout.
func (a *Adapter) Timeout(ctx context.Context, to channels.Target, userID string, until time.Time, reason string) error {
	if !until.IsZero() {
		if d := time.Until(until); d <= 0 {
			return errors.New("discord timeout: until is in the past")
		} else if d > maxTimeout {
			return errors.New("discord timeout: at most 28 days")
		}
	}
	guild, err := a.guildOf(ctx, to.ChatID)
	if err != nil {
		return err
	}
	var at *time.Time
	if !until.IsZero() {
		u := until.UTC()
		at = &u
	}
	return a.call(ctx, "timeout member", func(o ...discordgo.RequestOption) error {
		return a.rest.GuildMemberTimeout(guild, userID, at, reasonOpts(reason, o)...)
	})
}

// Kick removes a member from the server (they may rejoin).
func (a *Adapter) Kick(ctx context.Context, to channels.Target, userID, reason string) error {
	guild, err := a.guildOf(ctx, to.ChatID)
	if err != nil {
		return err
	}
	return a.call(ctx, "kick member", func(o ...discordgo.RequestOption) error {
		return a.rest.GuildMemberDeleteWithReason(guild, userID, reason, o...)
	})
}

// Ban bans a user from the server, deleting deleteDays (0-7) of their
// messages.
func (a *Adapter) Ban(ctx context.Context, to channels.Target, userID, reason string, deleteDays int) error {
	guild, err := a.guildOf(ctx, to.ChatID)
	if err != nil {
		return err
	}
	return a.call(ctx, "ban member", func(o ...discordgo.RequestOption) error {
		return a.rest.GuildBanCreateWithReason(guild, userID, reason, deleteDays, o...)
	})
}

// Permissions returns what a member (the bot for "") may do in the
// channel, as Discord's bit set and the names of the bits set.
func (a *Adapter) Permissions(ctx context.Context, to channels.Target, userID string) (any, error) {
	if userID == "" {
		userID = a.selfID()
	}
	if userID == "" {
		return nil, errors.New("discord permissions: the bot's own id is not known yet; name a userId")
	}
	ch, err := a.scoped(ctx, to)
	if err != nil {
		return nil, err
	}
	var perms int64
	err = a.call(ctx, "channel permissions", func(o ...discordgo.RequestOption) (err error) {
		perms, err = a.rest.UserChannelPermissions(userID, ch, o...)
		return err
	})
	if err != nil {
		return nil, err
	}
	var names []string
	for bit, name := range permissionNames {
		if perms&bit != 0 {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return map[string]any{"ok": true, "userId": userID, "channelId": ch, "permissions": fmt.Sprint(perms), "names": names}, nil
}

// permissionNames are the bits the agent most often asks about.
var permissionNames = map[int64]string{
	discordgo.PermissionAdministrator:         "ADMINISTRATOR",
	discordgo.PermissionViewChannel:           "VIEW_CHANNEL",
	discordgo.PermissionSendMessages:          "SEND_MESSAGES",
	discordgo.PermissionManageMessages:        "MANAGE_MESSAGES",
	discordgo.PermissionManageChannels:        "MANAGE_CHANNELS",
	discordgo.PermissionManageRoles:           "MANAGE_ROLES",
	discordgo.PermissionKickMembers:           "KICK_MEMBERS",
	discordgo.PermissionBanMembers:            "BAN_MEMBERS",
	discordgo.PermissionModerateMembers:       "MODERATE_MEMBERS",
	discordgo.PermissionAddReactions:          "ADD_REACTIONS",
	discordgo.PermissionReadMessageHistory:    "READ_MESSAGE_HISTORY",
	discordgo.PermissionAttachFiles:           "ATTACH_FILES",
	discordgo.PermissionMentionEveryone:       "MENTION_EVERYONE",
	discordgo.PermissionManageThreads:         "MANAGE_THREADS",
	discordgo.PermissionCreatePublicThreads:   "CREATE_PUBLIC_THREADS",
	discordgo.PermissionSendMessagesInThreads: "SEND_MESSAGES_IN_THREADS",
	discordgo.PermissionManageEvents:          "MANAGE_EVENTS",
}

// ListEmojis returns the server's custom emoji, sorted by name, each
// with the identifier react takes.
func (a *Adapter) ListEmojis(ctx context.Context, to channels.Target, limit int) (any, error) {
	if to.ChatID == "" {
		return nil, fmt.Errorf("discord emoji-list needs a channel of the server: %w", channels.ErrUnsupported)
	}
	guild, err := a.guildOf(ctx, to.ChatID)
	if err != nil {
		return nil, err
	}
	var emojis []*discordgo.Emoji
	err = a.call(ctx, "list emoji", func(o ...discordgo.RequestOption) (err error) {
		emojis, err = a.rest.GuildEmojis(guild, o...)
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(emojis, func(x, y *discordgo.Emoji) int { return cmp.Compare(x.Name, y.Name) })
	emojis = emojis[:min(len(emojis), pageSize(limit, maxPage))]
	out := make([]map[string]any, len(emojis))
	for i, e := range emojis {
		out[i] = map[string]any{"name": e.Name, "identifier": e.Name + ":" + e.ID}
		if e.Animated {
			out[i]["animated"] = true
		}
	}
	return map[string]any{"ok": true, "emojis": out}, nil
}

// maxEmojiBytes is Discord's limit on an emoji image.
const maxEmojiBytes = 256 << 10

// emojiName is what Discord accepts as an emoji name.
func validEmojiName(n string) bool {
	if len(n) < 2 || len(n) > 32 {
		return false
	}
	for _, r := range n {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// UploadEmoji adds a custom emoji (PNG, JPEG, GIF or WebP of at most
// 256 KB) to the server.
func (a *Adapter) UploadEmoji(ctx context.Context, to channels.Target, name, imagePath string) (any, error) {
	if !validEmojiName(name) {
		return nil, errors.New("discord emoji-upload: emojiName is 2-32 letters, digits or _")
	}
	f, err := os.Open(imagePath)
	if err != nil {
		return nil, fmt.Errorf("discord emoji-upload: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxEmojiBytes+1))
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("discord emoji-upload: %w", err)
	}
	if len(data) > maxEmojiBytes {
		return nil, errors.New("discord emoji-upload: the image is over 256 KB")
	}
	mime := http.DetectContentType(data)
	if !slices.Contains([]string{"image/png", "image/jpeg", "image/gif", "image/webp"}, mime) {
		return nil, fmt.Errorf("discord emoji-upload: %s is not a PNG, JPEG, GIF or WebP image", mime)
	}
	guild, err := a.guildOf(ctx, to.ChatID)
	if err != nil {
		return nil, err
	}
	p := &discordgo.EmojiParams{Name: name, Image: "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)}
	var e *discordgo.Emoji
	err = a.call(ctx, "upload emoji", func(o ...discordgo.RequestOption) (err error) {
		e, err = a.rest.GuildEmojiCreate(guild, p, o...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "name": e.Name, "identifier": e.Name + ":" + e.ID}, nil
}

// maxStickerBytes is Discord's limit on a sticker file.
const maxStickerBytes = 512 << 10

// UploadSticker adds a sticker (PNG, APNG, GIF or Lottie JSON of at most
// 512 KB) to the server, as Discord's multipart form.
func (a *Adapter) UploadSticker(ctx context.Context, to channels.Target, st channels.StickerSpec, imagePath string) (any, error) {
	if n := len([]rune(st.Name)); n < 2 || n > 30 {
		return nil, errors.New("discord sticker-upload: stickerName is 2-30 characters")
	}
	f, err := os.Open(imagePath)
	if err != nil {
		return nil, fmt.Errorf("discord sticker-upload: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxStickerBytes+1))
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("discord sticker-upload: %w", err)
	}
	if len(data) > maxStickerBytes {
		return nil, errors.New("discord sticker-upload: the file is over 512 KB")
	}
	mime := http.DetectContentType(data)
	if json.Valid(data) {
		mime = "application/json"
	}
	if !slices.Contains([]string{"image/png", "image/gif", "application/json"}, mime) {
		return nil, fmt.Errorf("discord sticker-upload: %s is not a PNG, APNG, GIF or Lottie JSON file", mime)
	}
	guild, err := a.guildOf(ctx, to.ChatID)
	if err != nil {
		return nil, err
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range map[string]string{"name": st.Name, "description": st.Description, "tags": st.Tags} {
		if err := mw.WriteField(k, v); err != nil {
			return nil, err
		}
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="`+filepath.Base(imagePath)+`"`)
	h.Set("Content-Type", mime)
	part, err := mw.CreatePart(h)
	if err != nil {
		return nil, err
	}
	if _, err := part.Write(data); err != nil {
		return nil, err
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	endpoint := discordgo.EndpointGuildStickers(guild)
	var resp []byte
	err = a.call(ctx, "upload sticker", func(o ...discordgo.RequestOption) (err error) {
		resp, err = a.rest.RequestRaw(http.MethodPost, endpoint, mw.FormDataContentType(), body.Bytes(), endpoint, 0, o...)
		return err
	})
	if err != nil {
		return nil, err
	}
	var out struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	if err := decode("upload sticker", resp, &out); err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "stickerId": out.ID, "name": out.Name}, nil
}

// SendSticker sends up to three stickers, with an optional text.
func (a *Adapter) SendSticker(ctx context.Context, to channels.Target, stickerIDs []string, text string) (channels.Sent, error) {
	if len(stickerIDs) > 3 {
		return channels.Sent{}, errors.New("discord: at most 3 stickers per message")
	}
	ms := &discordgo.MessageSend{Content: FormatMarkdown(text), StickerIDs: stickerIDs,
		AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}}
	ch, err := a.scoped(ctx, to)
	if err != nil {
		return channels.Sent{}, err
	}
	var m *discordgo.Message
	err = a.call(ctx, "send sticker", func(o ...discordgo.RequestOption) (err error) {
		m, err = a.rest.ChannelMessageSendComplex(ch, ms, o...)
		return err
	})
	if err != nil {
		return channels.Sent{}, err
	}
	return channels.Sent{MessageID: m.ID}, nil
}

// VoiceStatus returns the member's voice state in the server (which
// voice channel, muted, deafened); not in voice answers inVoice false.
func (a *Adapter) VoiceStatus(ctx context.Context, to channels.Target, userID string) (any, error) {
	guild, err := a.guildOf(ctx, to.ChatID)
	if err != nil {
		return nil, err
	}
	var vs map[string]any
	err = a.getJSON(ctx, "voice state", discordgo.EndpointGuild(guild)+"/voice-states/"+userID, &vs)
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return map[string]any{"ok": true, "userId": userID, "inVoice": false}, nil
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "userId": userID, "inVoice": vs["channel_id"] != nil, "voiceState": vs}, nil
}

// ListEvents returns the server's scheduled events.
func (a *Adapter) ListEvents(ctx context.Context, to channels.Target) (any, error) {
	guild, err := a.guildOf(ctx, to.ChatID)
	if err != nil {
		return nil, err
	}
	var evs []*discordgo.GuildScheduledEvent
	err = a.call(ctx, "list events", func(o ...discordgo.RequestOption) (err error) {
		evs, err = a.rest.GuildScheduledEvents(guild, false, o...)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(evs))
	for i, e := range evs {
		out[i] = eventBrief(e)
	}
	return map[string]any{"ok": true, "events": out}, nil
}

func eventBrief(e *discordgo.GuildScheduledEvent) map[string]any {
	out := map[string]any{"id": e.ID, "name": e.Name, "description": e.Description, "startTime": e.ScheduledStartTime, "status": e.Status, "channelId": e.ChannelID}
	if e.ScheduledEndTime != nil {
		out["endTime"] = *e.ScheduledEndTime
	}
	if e.EntityMetadata.Location != "" {
		out["location"] = e.EntityMetadata.Location
	}
	return out
}

// CreateEvent schedules a server event: in a voice or stage channel, or
// external (a location and an end time).
func (a *Adapter) CreateEvent(ctx context.Context, to channels.Target, e channels.EventSpec) (any, error) {
	kind := strings.ToLower(e.Type)
	if kind == "" {
		kind = "voice"
		if e.Location != "" {
			kind = "external"
		}
	}
	p := &discordgo.GuildScheduledEventParams{Name: e.Name, Description: e.Description, ScheduledStartTime: &e.Start,
		PrivacyLevel: discordgo.GuildScheduledEventPrivacyLevelGuildOnly}
	if !e.End.IsZero() {
		p.ScheduledEndTime = &e.End
	}
	switch kind {
	case "voice", "stage":
		if e.ChannelID == "" {
			return nil, fmt.Errorf("a %s event needs eventChannelId", kind)
		}
		p.ChannelID, p.EntityType = e.ChannelID, discordgo.GuildScheduledEventEntityTypeVoice
		if kind == "stage" {
			p.EntityType = discordgo.GuildScheduledEventEntityTypeStageInstance
		}
	case "external":
		if e.Location == "" || e.End.IsZero() {
			return nil, errors.New("an external event needs a location and endTime")
		}
		p.EntityType = discordgo.GuildScheduledEventEntityTypeExternal
		p.EntityMetadata = &discordgo.GuildScheduledEventEntityMetadata{Location: e.Location}
	default:
		return nil, fmt.Errorf("eventType %q: want voice, stage or external", e.Type)
	}
	guild, err := a.guildOf(ctx, to.ChatID)
	if err != nil {
		return nil, err
	}
	var ev *discordgo.GuildScheduledEvent
	err = a.call(ctx, "create event", func(o ...discordgo.RequestOption) (err error) {
		ev, err = a.rest.GuildScheduledEventCreate(guild, p, o...)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := eventBrief(ev)
	out["ok"] = true
	return out, nil
}

// selfID is the bot's user id once READY told it.
func (a *Adapter) selfID() string {
	if me := a.self.Load(); me != nil {
		return me.ID
	}
	return ""
}
