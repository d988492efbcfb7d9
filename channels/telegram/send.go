package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/openclaw-go/openclaw/channels"
)

const (
	captionLimit  = 1024     // UTF-16 units of a media caption
	photoMaxBytes = 10 << 20 // larger images go as documents
)

// Send delivers msg: the text as HTML (resent once as plain text if
// Telegram cannot parse the HTML), attachments as photos or documents
// with the text as caption when it fits. Sent is the message carrying
// the text (or the first file when there is no text).
func (a *Adapter) Send(ctx context.Context, msg channels.Outbound) (channels.Sent, error) {
	if msg.To.ChatID == "" {
		return channels.Sent{}, errors.New("telegram: send: no chat id")
	}
	hasText := strings.TrimSpace(msg.Text) != ""
	if !hasText && len(msg.Attachments) == 0 {
		return channels.Sent{}, errors.New("telegram: send: empty message")
	}
	files, err := a.prepareFiles(msg.Attachments)
	if err != nil {
		return channels.Sent{}, err
	}
	base := a.targetParams(msg.To, false)
	if msg.ReplyToID != "" {
		base["reply_to_message_id"] = msg.ReplyToID
		base["allow_sending_without_reply"] = "true"
	}
	if msg.Silent {
		base["disable_notification"] = "true"
	}
	markup, err := inlineKeyboard(msg.Buttons)
	if err != nil {
		return channels.Sent{}, err
	}

	captioned := hasText && len(files) > 0 && channels.UTF16Len(PlainText(msg.Text)) <= captionLimit
	var textID, firstID string
	for i, f := range files {
		p := cloneParams(base)
		if i > 0 {
			delete(p, "reply_to_message_id")
			delete(p, "allow_sending_without_reply")
		}
		caption := ""
		if i == 0 && captioned {
			caption = msg.Text
		}
		if i == 0 && (captioned || !hasText) && markup != "" {
			p["reply_markup"] = markup
		}
		id, err := a.sendFile(ctx, p, f, caption)
		if err != nil {
			return channels.Sent{MessageID: firstID}, err
		}
		if firstID == "" {
			firstID = id
		}
		if i == 0 && captioned {
			textID = id
		}
	}
	if hasText && !captioned {
		p := cloneParams(base)
		if len(files) > 0 {
			delete(p, "reply_to_message_id")
			delete(p, "allow_sending_without_reply")
		}
		if markup != "" {
			p["reply_markup"] = markup
		}
		a.linkPreview(p)
		res, err := a.callFormatted(ctx, "sendMessage", p, "text", msg.Text, nil)
		if err != nil {
			return channels.Sent{MessageID: firstID}, err
		}
		if textID, err = messageID("sendMessage", res); err != nil {
			return channels.Sent{}, err
		}
	}
	if textID == "" {
		textID = firstID
	}
	return channels.Sent{MessageID: textID}, nil
}

// linkPreview turns link previews off in a text message's params when
// the account says so (a caption has none).
func (a *Adapter) linkPreview(p tgbotapi.Params) {
	if a.opts.NoLinkPreview {
		p["link_preview_options"] = `{"is_disabled":true}`
	}
}

// targetParams are chat_id and message_thread_id. The General topic of a
// forum (thread 1) takes no thread id when sending, but does for typing.
func (a *Adapter) targetParams(to channels.Target, typing bool) tgbotapi.Params {
	p := tgbotapi.Params{"chat_id": to.ChatID}
	if to.ThreadID != "" && (typing || to.ThreadID != "1") {
		p["message_thread_id"] = to.ThreadID
	}
	return p
}

// callFormatted sends field as Telegram HTML; if Telegram refuses the
// HTML it sends the plain text once more without a parse mode. open
// gives fresh file readers for each attempt (nil for no files).
func (a *Adapter) callFormatted(ctx context.Context, method string, p tgbotapi.Params, field, md string, open func() ([]tgbotapi.RequestFile, func(), error)) (json.RawMessage, error) {
	attempt := func(p tgbotapi.Params) (json.RawMessage, error) {
		if open == nil {
			return a.call(ctx, method, p, nil)
		}
		files, closeAll, err := open()
		if err != nil {
			return nil, err
		}
		defer closeAll()
		return a.call(ctx, method, p, files)
	}
	html := cloneParams(p)
	if md != "" {
		html[field] = FormatHTML(md)
		html["parse_mode"] = "HTML"
	}
	res, err := attempt(html)
	if err == nil || md == "" || !isParseError(err) {
		return res, err
	}
	a.log.Warn("telegram refused our HTML; sending plain text", "method", method, "err", err)
	plain := cloneParams(p)
	plain[field] = PlainText(md)
	return attempt(plain)
}

// outFile is an attachment checked and ready to upload.
type outFile struct {
	path, name string
	method     string // sendPhoto, sendVoice or sendDocument
	field      string // photo, voice or document
}

// prepareFiles checks every attachment before anything is sent, so a
// file over the cap refuses the whole message.
func (a *Adapter) prepareFiles(atts []channels.Attachment) ([]outFile, error) {
	var out []outFile
	for _, at := range atts {
		c, err := channels.CheckAttachment("telegram", at, a.opts.MediaMaxMb, ErrTooLarge)
		if err != nil {
			return nil, err
		}
		f := outFile{path: c.Path, name: c.Name, method: "sendDocument", field: "document"}
		if at.Voice {
			// A voice note: Ogg/Opus shown with a waveform and played inline.
			f.method, f.field = "sendVoice", "voice"
			out = append(out, f)
			continue
		}
		switch strings.ToLower(strings.TrimSpace(strings.Split(c.MIME, ";")[0])) {
		case "image/jpeg", "image/png", "image/webp":
			if c.Size <= photoMaxBytes {
				f.method, f.field = "sendPhoto", "photo"
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// sendFile uploads one file with an optional caption and returns the
// message id.
func (a *Adapter) sendFile(ctx context.Context, p tgbotapi.Params, f outFile, caption string) (string, error) {
	open := func() ([]tgbotapi.RequestFile, func(), error) {
		fh, err := os.Open(f.path)
		if err != nil {
			return nil, nil, fmt.Errorf("telegram: attachment %q: %w", f.name, err)
		}
		// The library closes readers that are Closers only when it read
		// them to the end; we close it ourselves either way.
		r := struct{ io.Reader }{fh}
		return []tgbotapi.RequestFile{{Name: f.field, Data: tgbotapi.FileReader{Name: f.name, Reader: r}}},
			func() { fh.Close() }, nil
	}
	res, err := a.callFormatted(ctx, f.method, p, "caption", caption, open)
	if err != nil {
		return "", err
	}
	return messageID(f.method, res)
}

func messageID(method string, res json.RawMessage) (string, error) {
	var m struct {
		MessageID int64 `json:"message_id"`
	}
	if err := json.Unmarshal(res, &m); err != nil || m.MessageID == 0 {
		return "", fmt.Errorf("telegram %s: %w: no message_id in result", method, ErrMalformedResponse)
	}
	return itoa(m.MessageID), nil
}

// inlineKeyboard encodes button rows as reply_markup ("" for none).
// Telegram limits callback data to 64 bytes.
func inlineKeyboard(rows [][]channels.Button) (string, error) {
	type button struct {
		Text         string `json:"text"`
		CallbackData string `json:"callback_data"`
	}
	var kb [][]button
	for _, row := range rows {
		var r []button
		for _, b := range row {
			if len(b.Data) > 64 {
				return "", fmt.Errorf("telegram: button %q: callback data is %d bytes, Telegram allows 64", b.Text, len(b.Data))
			}
			r = append(r, button{Text: b.Text, CallbackData: b.Data})
		}
		if len(r) > 0 {
			kb = append(kb, r)
		}
	}
	if len(kb) == 0 {
		return "", nil
	}
	b, err := json.Marshal(map[string]any{"inline_keyboard": kb})
	return string(b), err
}

func cloneParams(p tgbotapi.Params) tgbotapi.Params {
	out := make(tgbotapi.Params, len(p)+2)
	for k, v := range p {
		out[k] = v
	}
	return out
}
