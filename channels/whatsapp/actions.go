package whatsapp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waCommon"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"google.golang.org/protobuf/proto"

	"github.com/openclaw-go/openclaw/channels"
)

// Typing shows "typing…" in the chat; WhatsApp clears it after a while
// or when our message arrives.
func (a *Adapter) Typing(ctx context.Context, to channels.Target) error {
	jid, err := ParseTarget(to.ChatID)
	if err != nil {
		return err
	}
	c, err := a.readyClient()
	if err != nil {
		return err
	}
	if err := c.SendChatPresence(ctx, jid, types.ChatPresenceComposing, types.ChatPresenceMediaText); err != nil {
		return classify("typing", err)
	}
	return nil
}

// React sets our reaction on a message; "" removes it. A message in a
// group must be one the adapter saw recently (the reaction names its
// author); in a direct chat an unknown message is taken to be theirs.
func (a *Adapter) React(ctx context.Context, to channels.Target, messageID, emoji string) error {
	jid, err := ParseTarget(to.ChatID)
	if err != nil {
		return err
	}
	key, err := a.keyOf(jid, messageID, false)
	if err != nil {
		return err
	}
	c, err := a.readyClient()
	if err != nil {
		return err
	}
	_, err = a.send(ctx, c, jid, &waE2E.Message{ReactionMessage: &waE2E.ReactionMessage{
		Key: key, Text: proto.String(emoji), SenderTimestampMS: proto.Int64(time.Now().UnixMilli()),
	}}, "")
	return err
}

// Delete revokes a message for everyone: ours, or someone else's in a
// group where we are an admin (if the adapter saw it recently).
func (a *Adapter) Delete(ctx context.Context, to channels.Target, messageID string) error {
	jid, err := ParseTarget(to.ChatID)
	if err != nil {
		return err
	}
	key, err := a.keyOf(jid, messageID, true)
	if err != nil {
		return err
	}
	c, err := a.readyClient()
	if err != nil {
		return err
	}
	_, err = a.send(ctx, c, jid, &waE2E.Message{ProtocolMessage: &waE2E.ProtocolMessage{
		Type: waE2E.ProtocolMessage_REVOKE.Enum(), Key: key,
	}}, "")
	return err
}

// Edit replaces the text of one of our messages. WhatsApp allows edits
// for a limited time after sending (15 minutes at the time of writing);
// later edits are ignored by the recipients' clients.
func (a *Adapter) Edit(ctx context.Context, to channels.Target, messageID, text string) error {
	jid, err := ParseTarget(to.ChatID)
	if err != nil {
		return err
	}
	body := strings.TrimSpace(ToWhatsApp(text))
	if body == "" {
		return fmt.Errorf("whatsapp: edit: empty text")
	}
	c, err := a.readyClient()
	if err != nil {
		return err
	}
	_, err = a.send(ctx, c, jid, &waE2E.Message{EditedMessage: &waE2E.FutureProofMessage{
		Message: &waE2E.Message{ProtocolMessage: &waE2E.ProtocolMessage{
			Key: &waCommon.MessageKey{
				RemoteJID: proto.String(jid.String()), FromMe: proto.Bool(true), ID: proto.String(messageID),
			},
			Type:          waE2E.ProtocolMessage_MESSAGE_EDIT.Enum(),
			EditedMessage: &waE2E.Message{ExtendedTextMessage: &waE2E.ExtendedTextMessage{Text: proto.String(body)}},
			TimestampMS:   proto.Int64(time.Now().UnixMilli()),
		}},
	}}, "")
	return err
}

// keyOf names message id in chat for a reaction or revocation. Messages
// we sent are ours; remembered inbound ones carry their author (needed in
// groups). An unknown message is taken to be ours when ownDefault (you
// can only revoke your own), else, in a direct chat, the other person's.
func (a *Adapter) keyOf(chat types.JID, id string, ownDefault bool) (*waCommon.MessageKey, error) {
	if id == "" {
		return nil, fmt.Errorf("whatsapp: no message id")
	}
	key := &waCommon.MessageKey{RemoteJID: proto.String(chat.String()), ID: proto.String(id), FromMe: proto.Bool(true)}
	r, ok := a.recent.get(chat.String(), id)
	switch {
	case ok && r.fromMe:
	case ok:
		key.FromMe = proto.Bool(false)
		if chat.Server == types.GroupServer {
			key.Participant = proto.String(r.sender.String())
		}
	case ownDefault:
	case chat.Server != types.GroupServer:
		key.FromMe = proto.Bool(false)
	default:
		return nil, fmt.Errorf("whatsapp: message %s in %s is not a recent one; its author is unknown", id, chat)
	}
	return key, nil
}

// FetchMedia downloads and decrypts an inbound attachment. It refuses a
// file whose declared size is over maxBytes (MediaMaxMb when maxBytes is
// not positive) before downloading, and a download that turns out larger.
func (a *Adapter) FetchMedia(ctx context.Context, m channels.Media, maxBytes int64) (io.ReadCloser, error) {
	var ref mediaRef
	if err := json.Unmarshal([]byte(m.FileID), &ref); err != nil || ref.DirectPath == "" {
		return nil, fmt.Errorf("whatsapp: media %q is not a WhatsApp file id", shorten(m.FileID))
	}
	if maxBytes <= 0 {
		maxBytes = int64(a.opts.MediaMaxMb) << 20
	}
	if ref.Length > uint64(maxBytes) {
		return nil, fmt.Errorf("whatsapp: media is %d bytes, over the %d byte limit: %w", ref.Length, maxBytes, ErrTooLarge)
	}
	msg, err := ref.message()
	if err != nil {
		return nil, err
	}
	c, err := a.readyClient()
	if err != nil {
		return nil, err
	}
	data, err := c.Download(ctx, msg)
	if err != nil {
		return nil, classify("download media", err)
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("whatsapp: media is %d bytes, over the %d byte limit: %w", len(data), maxBytes, ErrTooLarge)
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

// message rebuilds the media message whatsmeow downloads from; its type
// picks the decryption keys.
func (r mediaRef) message() (whatsmeow.DownloadableMessage, error) {
	path, n, mt := proto.String(r.DirectPath), proto.Uint64(r.Length), proto.String(r.MIME)
	switch r.Type {
	case "image":
		return &waE2E.ImageMessage{DirectPath: path, MediaKey: r.MediaKey, FileSHA256: r.FileSHA256,
			FileEncSHA256: r.FileEncSHA256, FileLength: n, Mimetype: mt}, nil
	case "video":
		return &waE2E.VideoMessage{DirectPath: path, MediaKey: r.MediaKey, FileSHA256: r.FileSHA256,
			FileEncSHA256: r.FileEncSHA256, FileLength: n, Mimetype: mt}, nil
	case "audio":
		return &waE2E.AudioMessage{DirectPath: path, MediaKey: r.MediaKey, FileSHA256: r.FileSHA256,
			FileEncSHA256: r.FileEncSHA256, FileLength: n, Mimetype: mt}, nil
	case "document":
		return &waE2E.DocumentMessage{DirectPath: path, MediaKey: r.MediaKey, FileSHA256: r.FileSHA256,
			FileEncSHA256: r.FileEncSHA256, FileLength: n, Mimetype: mt}, nil
	case "sticker":
		return &waE2E.StickerMessage{DirectPath: path, MediaKey: r.MediaKey, FileSHA256: r.FileSHA256,
			FileEncSHA256: r.FileEncSHA256, FileLength: n, Mimetype: mt}, nil
	}
	return nil, fmt.Errorf("whatsapp: media kind %q unknown", r.Type)
}

func shorten(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
