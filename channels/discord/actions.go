package discord

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/openclaw-go/openclaw/channels"
)

// Edit replaces the text of one of the bot's messages. Text longer than
// one message is cut to TextLimit (an edit cannot add messages).
func (a *Adapter) Edit(ctx context.Context, to channels.Target, messageID, text string) error {
	content := FormatMarkdown(text)
	if parts := channels.Chunk(content, a.opts.TextLimit, channels.ChunkLength); len(parts) > 0 {
		content = parts[0]
	}
	e := discordgo.NewMessageEdit(target(to), messageID).SetContent(content)
	e.AllowedMentions = &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
	return a.call(ctx, "edit message", func(o ...discordgo.RequestOption) error {
		_, err := a.rest.ChannelMessageEditComplex(e, o...)
		return err
	})
}

// Delete removes a message. A message already gone is not an error.
func (a *Adapter) Delete(ctx context.Context, to channels.Target, messageID string) error {
	err := a.call(ctx, "delete message", func(o ...discordgo.RequestOption) error {
		return a.rest.ChannelMessageDelete(target(to), messageID, o...)
	})
	var ae *APIError
	if errors.As(err, &ae) && ae.Code == codeUnknownMessage {
		return nil
	}
	return err
}

// React adds the bot's reaction: a Unicode emoji, or a custom one as
// "name:id". "" is refused: Discord removes reactions one emoji at a
// time.
func (a *Adapter) React(ctx context.Context, to channels.Target, messageID, emoji string) error {
	if emoji == "" {
		return fmt.Errorf("discord: removing every reaction at once: %w", channels.ErrUnsupported)
	}
	emoji = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(emoji, "<"), "a:"), ">")
	return a.call(ctx, "react", func(o ...discordgo.RequestOption) error {
		return a.rest.MessageReactionAdd(target(to), messageID, url.PathEscape(emoji), o...)
	})
}

// Typing shows "typing…" in the channel (or thread) for about ten
// seconds.
func (a *Adapter) Typing(ctx context.Context, to channels.Target) error {
	return a.call(ctx, "typing", func(o ...discordgo.RequestOption) error {
		return a.rest.ChannelTyping(target(to), o...)
	})
}

// Poll sends a native poll (1-10 answers; 1 to 768 hours, default 24).
// Discord polls are never anonymous to the server: Anonymous is refused.
func (a *Adapter) Poll(ctx context.Context, to channels.Target, p channels.Poll) (channels.Sent, error) {
	if len(p.Options) < 1 || len(p.Options) > 10 {
		return channels.Sent{}, errors.New("discord: a poll needs 1 to 10 options")
	}
	if p.Anonymous {
		return channels.Sent{}, fmt.Errorf("discord: anonymous polls: %w", channels.ErrUnsupported)
	}
	hours := 24
	if p.DurationSecs > 0 {
		hours = min(max((p.DurationSecs+3599)/3600, 1), 768)
	}
	poll := &discordgo.Poll{
		Question:         discordgo.PollMedia{Text: p.Question},
		AllowMultiselect: p.MultiSelect,
		Duration:         hours,
		LayoutType:       discordgo.PollLayoutTypeDefault,
	}
	for _, o := range p.Options {
		poll.Answers = append(poll.Answers, discordgo.PollAnswer{Media: &discordgo.PollMedia{Text: o}})
	}
	var m *discordgo.Message
	err := a.call(ctx, "send poll", func(o ...discordgo.RequestOption) (err error) {
		m, err = a.rest.ChannelMessageSendComplex(target(to), &discordgo.MessageSend{Poll: poll}, o...)
		return err
	})
	if err != nil {
		return channels.Sent{}, err
	}
	if m == nil || m.ID == "" {
		return channels.Sent{}, fmt.Errorf("discord send poll: %w: no id", ErrMalformedResponse)
	}
	return channels.Sent{MessageID: m.ID}, nil
}

// Pin pins a message.
func (a *Adapter) Pin(ctx context.Context, to channels.Target, messageID string) error {
	return a.call(ctx, "pin", func(o ...discordgo.RequestOption) error {
		return a.rest.ChannelMessagePin(target(to), messageID, o...)
	})
}

// Unpin unpins a message.
func (a *Adapter) Unpin(ctx context.Context, to channels.Target, messageID string) error {
	return a.call(ctx, "unpin", func(o ...discordgo.RequestOption) error {
		return a.rest.ChannelMessageUnpin(target(to), messageID, o...)
	})
}

// splitCallbackID reads "interactionID:token".
func splitCallbackID(id string) (*discordgo.Interaction, error) {
	iid, token, ok := strings.Cut(id, ":")
	if !ok || iid == "" || token == "" {
		return nil, errors.New("discord: callback id is not interaction id:token")
	}
	return &discordgo.Interaction{ID: iid, Token: token}, nil
}

// ackInteraction acknowledges an interaction once its event is stored: a
// button press with a deferred update (nothing changes on screen), a
// slash command with an ephemeral "received". Discord wants this within
// three seconds.
func (a *Adapter) ackInteraction(ctx context.Context, in channels.Inbound) {
	it, err := splitCallbackID(in.CallbackID)
	if err != nil {
		return
	}
	resp := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}
	if in.Kind == channels.EventMessage {
		resp = &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "Received " + in.Text + ".", Flags: discordgo.MessageFlagsEphemeral}}
	}
	actx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	err = a.call(actx, "acknowledge interaction", func(o ...discordgo.RequestOption) error {
		return a.rest.InteractionRespond(it, resp, o...)
	})
	if err != nil {
		a.log.Warn("discord interaction not acknowledged", "interaction", it.ID, "err", err)
	}
}

// AnswerCallback answers a button press: a deferred update (unless the
// adapter acknowledged it already) and, when text is not empty, an
// ephemeral follow-up only the presser sees.
func (a *Adapter) AnswerCallback(ctx context.Context, callbackID, text string) error {
	it, err := splitCallbackID(callbackID)
	if err != nil {
		return err
	}
	err = a.call(ctx, "answer interaction", func(o ...discordgo.RequestOption) error {
		return a.rest.InteractionRespond(it, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}, o...)
	})
	var ae *APIError
	if err != nil && !(errors.As(err, &ae) && ae.Code == codeAlreadyAcknowledged) {
		return err
	}
	if text == "" {
		return nil
	}
	appID := ""
	if me := a.self.Load(); me != nil {
		appID = me.AppID
	}
	if appID == "" {
		return errors.New("discord: answer interaction: application id unknown until the gateway is ready")
	}
	return a.call(ctx, "answer interaction", func(o ...discordgo.RequestOption) error {
		_, err := a.rest.FollowupMessageCreate(&discordgo.Interaction{AppID: appID, Token: it.Token}, false,
			&discordgo.WebhookParams{Content: text, Flags: discordgo.MessageFlagsEphemeral,
				AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}}, o...)
		return err
	})
}

// SetCommands registers the commands as global slash commands, replacing
// the bot's previous set. Only new, reset, status and voice (the gateway's
// /tts) come back as messages; other names are registered but ignored
// when used.
func (a *Adapter) SetCommands(ctx context.Context, cmds []channels.Command) error {
	appID := ""
	if me := a.self.Load(); me != nil {
		appID = me.AppID
	}
	if appID == "" {
		// Before READY: ask who we are.
		var u *discordgo.User
		if err := a.call(ctx, "get bot user", func(o ...discordgo.RequestOption) (err error) {
			u, err = a.rest.User("@me", o...)
			return err
		}); err != nil {
			return err
		}
		if u == nil || u.ID == "" {
			return fmt.Errorf("discord get bot user: %w: no id", ErrMalformedResponse)
		}
		appID = u.ID
	}
	list := make([]*discordgo.ApplicationCommand, 0, len(cmds)+1)
	seen := map[string]bool{}
	add := func(name, desc string) {
		name = strings.ToLower(strings.TrimPrefix(name, "/"))
		if name == "" || seen[name] {
			return
		}
		seen[name] = true
		list = append(list, &discordgo.ApplicationCommand{Name: name, Description: cmp.Or(desc, name),
			Type: discordgo.ChatApplicationCommand})
	}
	for _, c := range cmds {
		add(c.Name, c.Description)
	}
	add("status", "Show the session status")
	if !seen["voice"] {
		list = append(list, &discordgo.ApplicationCommand{Name: "voice", Type: discordgo.ChatApplicationCommand,
			Description: "Text-to-speech: status, on, off, provider <id>, audio <text>",
			Options: []*discordgo.ApplicationCommandOption{{Type: discordgo.ApplicationCommandOptionString, Name: voiceArgs,
				Description: "What follows /tts, e.g. status or audio Hello"}}})
	}
	return a.call(ctx, "register commands", func(o ...discordgo.RequestOption) error {
		_, err := a.rest.ApplicationCommandBulkOverwrite(appID, "", list, o...)
		return err
	})
}

// ChatInfo returns Discord's channel object for chatID.
func (a *Adapter) ChatInfo(ctx context.Context, chatID string) (map[string]any, error) {
	var out map[string]any
	err := a.getJSON(ctx, "get channel", discordgo.EndpointChannel(chatID), &out)
	return out, err
}

// MemberInfo returns Discord's guild member object for userID in the
// guild of chatID, or the user object in a DM.
func (a *Adapter) MemberInfo(ctx context.Context, chatID, userID string) (map[string]any, error) {
	var ch struct {
		GuildID string `json:"guild_id"`
	}
	if err := a.getJSON(ctx, "get channel", discordgo.EndpointChannel(chatID), &ch); err != nil {
		return nil, err
	}
	var out map[string]any
	if ch.GuildID == "" {
		err := a.getJSON(ctx, "get user", discordgo.EndpointUser(userID), &out)
		return out, err
	}
	err := a.getJSON(ctx, "get member", discordgo.EndpointGuildMember(ch.GuildID, userID), &out)
	return out, err
}

func (a *Adapter) getJSON(ctx context.Context, op, endpoint string, out any) error {
	var body []byte
	err := a.call(ctx, op, func(o ...discordgo.RequestOption) (err error) {
		body, err = a.rest.RequestWithBucketID(http.MethodGet, endpoint, nil, endpoint, o...)
		return err
	})
	if err != nil {
		return err
	}
	return decode(op, body, out)
}

// mediaHosts are the hosts attachment URLs may point at.
var mediaHosts = map[string]bool{"cdn.discordapp.com": true, "media.discordapp.net": true}

// FetchMedia downloads an inbound attachment (Media.FileID is its URL)
// from Discord's CDN (or the API host, for tests), refusing more than
// maxBytes.
func (a *Adapter) FetchMedia(ctx context.Context, m channels.Media, maxBytes int64) (io.ReadCloser, error) {
	u, err := url.Parse(m.FileID)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") ||
		!(mediaHosts[u.Hostname()] || (a.base != nil && u.Host == a.base.Host)) ||
		(u.Scheme == "http" && !(a.base != nil && u.Host == a.base.Host)) {
		return nil, fmt.Errorf("discord: fetch media: %q is not a Discord attachment URL", m.FileID)
	}
	if maxBytes > 0 && m.Size > maxBytes {
		return nil, fmt.Errorf("discord: fetch media: %d bytes, over %d: %w", m.Size, maxBytes, ErrTooLarge)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, &channels.RetryableError{Err: fmt.Errorf("discord fetch media: %s", a.scrub(err.Error()))}
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		err := &APIError{Op: "fetch media", Status: resp.StatusCode, Message: http.StatusText(resp.StatusCode)}
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			return nil, &channels.RetryableError{After: parseRetryAfter(resp.Header.Get("Retry-After")), Err: err}
		}
		return nil, err
	}
	if maxBytes > 0 && resp.ContentLength > maxBytes {
		resp.Body.Close()
		return nil, fmt.Errorf("discord: fetch media: %d bytes, over %d: %w", resp.ContentLength, maxBytes, ErrTooLarge)
	}
	if maxBytes <= 0 {
		return resp.Body, nil
	}
	return &cappedBody{r: io.LimitReader(resp.Body, maxBytes+1), c: resp.Body, left: maxBytes}, nil
}

// cappedBody fails a read past its cap instead of cutting the file short.
type cappedBody struct {
	r    io.Reader
	c    io.Closer
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return 0, fmt.Errorf("discord: fetch media: %w", ErrTooLarge)
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.c.Close() }

// OpenDirect returns the DM channel with userID, which Discord opens (or
// finds) on request: a user id is not a channel to send to.
func (a *Adapter) OpenDirect(ctx context.Context, userID string) (string, error) {
	var body []byte
	err := a.call(ctx, "open DM", func(o ...discordgo.RequestOption) (err error) {
		body, err = a.rest.RequestWithBucketID(http.MethodPost, discordgo.EndpointUserChannels("@me"),
			map[string]string{"recipient_id": userID}, discordgo.EndpointUserChannels(""), o...)
		return err
	})
	if err != nil {
		return "", err
	}
	var ch struct {
		ID string `json:"id"`
	}
	if err := decode("open DM", body, &ch); err != nil {
		return "", err
	}
	if ch.ID == "" {
		return "", fmt.Errorf("discord open DM with %s: %w: no channel id", userID, ErrMalformedResponse)
	}
	return ch.ID, nil
}
