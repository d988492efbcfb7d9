package discord

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/openclaw-go/openclaw/channels"
)

// Discord's limits on message components.
const (
	maxButtonRows    = 5
	maxButtonsPerRow = 5
	maxCustomID      = 100
	maxButtonLabel   = 80
	maxFilesPerMsg   = 10
)

// Send delivers msg: the text formatted for Discord, split into several
// messages when it has more than MaxLinesPerMessage lines (or grew past
// TextLimit while being formatted), sent in order. The first message
// replies to ReplyToID; the last carries the buttons and the attachments.
// Sent is the first message. Mentions in the text ping only the users
// of mentionAliases the text names as "@Handle"; a reply pings the
// replied-to author too.
// When a later part fails, Sent names the first and the error says what
// failed; a retry sends the earlier parts again.
func (a *Adapter) Send(ctx context.Context, msg channels.Outbound) (channels.Sent, error) {
	channelID := target(msg.To)
	if channelID == "" {
		return channels.Sent{}, errors.New("discord: send: no channel id")
	}
	hasText := strings.TrimSpace(msg.Text) != ""
	if !hasText && len(msg.Attachments) == 0 {
		return channels.Sent{}, errors.New("discord: send: empty message")
	}
	files, err := a.prepareFiles(msg.Attachments)
	if err != nil {
		return channels.Sent{}, err
	}
	if len(files) == 1 && files[0].voice && !hasText && len(msg.Buttons) == 0 {
		return a.sendVoice(ctx, channelID, msg, files[0])
	}
	rows, err := buttonRows(msg.Buttons)
	if err != nil {
		return channels.Sent{}, err
	}
	var parts []string
	if hasText {
		parts = a.split(applyMentionAliases(FormatMarkdown(msg.Text), a.opts.MentionAliases))
	}
	if len(parts) == 0 {
		if len(files) == 0 {
			return channels.Sent{}, errors.New("discord: send: nothing left to send after formatting")
		}
		parts = []string{""}
	}
	var first string
	for i, part := range parts {
		data := &discordgo.MessageSend{
			Content: part,
			AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}, RepliedUser: true,
				Users: aliasedUsers(part, a.opts.MentionAliases)},
		}
		if i == 0 && msg.ReplyToID != "" {
			data.Reference = &discordgo.MessageReference{MessageID: msg.ReplyToID, ChannelID: channelID, FailIfNotExists: ptr(false)}
		}
		if msg.Silent {
			data.Flags |= discordgo.MessageFlagsSuppressNotifications
		}
		if a.opts.SuppressEmbeds {
			data.Flags |= discordgo.MessageFlagsSuppressEmbeds
		}
		last := i == len(parts)-1
		var closeFiles func()
		if last {
			data.Components = rows
			if data.Files, closeFiles, err = openFiles(files); err != nil {
				return channels.Sent{MessageID: first}, err
			}
		}
		var m *discordgo.Message
		err := a.call(ctx, "send message", func(o ...discordgo.RequestOption) (err error) {
			m, err = a.rest.ChannelMessageSendComplex(channelID, data, o...)
			return err
		})
		if closeFiles != nil {
			closeFiles()
		}
		if err != nil {
			return channels.Sent{MessageID: first}, err
		}
		if m == nil || m.ID == "" {
			return channels.Sent{MessageID: first}, fmt.Errorf("discord send message: %w: no id", ErrMalformedResponse)
		}
		if first == "" {
			first = m.ID
		}
	}
	return channels.Sent{MessageID: first}, nil
}

// target is the channel a message goes to: the thread when there is one
// (a Discord thread is a channel of its own).
func target(to channels.Target) string {
	if to.ThreadID != "" {
		return to.ThreadID
	}
	return to.ChatID
}

// split cuts formatted text into messages of at most MaxLinesPerMessage
// lines and TextLimit UTF-16 units.
func (a *Adapter) split(text string) []string {
	var out []string
	for _, p := range SplitLines(text, a.opts.MaxLinesPerMessage) {
		if channels.UTF16Len(p) <= a.opts.TextLimit {
			out = append(out, p)
			continue
		}
		out = append(out, channels.Chunk(p, a.opts.TextLimit, channels.ChunkLength)...)
	}
	return out
}

// outFile is an attachment checked and ready to upload.
type outFile struct {
	path, name, mime string
	voice            bool // sent as a voice message
}

// prepareFiles checks every attachment before anything is sent, so a
// file over the cap refuses the whole message.
func (a *Adapter) prepareFiles(atts []channels.Attachment) ([]outFile, error) {
	if len(atts) > maxFilesPerMsg {
		return nil, fmt.Errorf("discord: %d attachments, Discord allows %d per message", len(atts), maxFilesPerMsg)
	}
	var out []outFile
	for _, at := range atts {
		c, err := channels.CheckAttachment("discord", at, a.opts.MediaMaxMb, ErrTooLarge)
		if err != nil {
			return nil, err
		}
		out = append(out, outFile{path: c.Path, name: c.Name, mime: c.MIME, voice: at.Voice})
	}
	return out, nil
}

// openFiles opens the files for one upload; the caller closes them.
func openFiles(files []outFile) ([]*discordgo.File, func(), error) {
	var opened []*os.File
	closeAll := func() {
		for _, f := range opened {
			f.Close()
		}
	}
	var out []*discordgo.File
	for _, f := range files {
		fh, err := os.Open(f.path)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("discord: attachment %q: %w", f.name, err)
		}
		opened = append(opened, fh)
		out = append(out, &discordgo.File{Name: f.name, ContentType: f.mime, Reader: fh})
	}
	return out, closeAll, nil
}

// buttonRows turns button rows into action rows of buttons whose
// custom_id is the button's Data.
func buttonRows(rows [][]channels.Button) ([]discordgo.MessageComponent, error) {
	var out []discordgo.MessageComponent
	for _, row := range rows {
		if len(row) == 0 {
			continue
		}
		if len(row) > maxButtonsPerRow {
			return nil, fmt.Errorf("discord: a row of %d buttons, Discord allows %d", len(row), maxButtonsPerRow)
		}
		var r discordgo.ActionsRow
		for _, b := range row {
			if b.Data == "" || len(b.Data) > maxCustomID {
				return nil, fmt.Errorf("discord: button %q: custom_id must be 1 to %d characters", b.Text, maxCustomID)
			}
			label := b.Text
			if len([]rune(label)) > maxButtonLabel {
				label = string([]rune(label)[:maxButtonLabel-1]) + "…"
			}
			r.Components = append(r.Components, discordgo.Button{Label: label, Style: discordgo.SecondaryButton, CustomID: b.Data})
		}
		out = append(out, r)
	}
	if len(out) > maxButtonRows {
		return nil, fmt.Errorf("discord: %d rows of buttons, Discord allows %d", len(out), maxButtonRows)
	}
	return out, nil
}

func ptr[T any](v T) *T { return &v }
