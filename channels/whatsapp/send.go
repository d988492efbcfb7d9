package whatsapp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"google.golang.org/protobuf/proto"

	"github.com/openclaw-go/openclaw/channels"
)

var (
	// ErrNotLinked means the account has no linked device: nothing can be
	// sent until someone runs the login. Not worth retrying.
	ErrNotLinked = errors.New("whatsapp: " + LinkHint)
	// ErrSessionEnded means WhatsApp ended the session (logged out from
	// the phone, a temporary ban, another client took over the device);
	// the adapter does not reconnect until it is restarted or linked
	// again. Not worth retrying.
	ErrSessionEnded = errors.New("session ended")
	// ErrTooLarge is returned for an attachment or a download over the
	// cap; the message is not sent.
	ErrTooLarge = errors.New("media too large")
	// errNotConnected is wrapped in a RetryableError while the account is
	// linked but the connection is down.
	errNotConnected = errors.New("whatsapp: not connected")
)

// captionLimit is the longest caption (UTF-16 units) put on a file;
// longer text goes in its own message after the files.
const captionLimit = 1024

// Send delivers msg: the text converted by ToWhatsApp, quoting ReplyToID
// when set; attachments as image, video, audio or document messages with
// the text as the first one's caption when it fits. Buttons become a
// numbered list of choices under the text (see choicesText). Sent is the
// message carrying the text (or the first file when there is none).
//
// Each message gets an id derived from IdempotencyKey, so a retry of a
// message that did arrive is dropped by WhatsApp's clients as a
// duplicate rather than shown twice.
func (a *Adapter) Send(ctx context.Context, msg channels.Outbound) (channels.Sent, error) {
	to, err := ParseTarget(msg.To.ChatID)
	if err != nil {
		return channels.Sent{}, err
	}
	text := strings.TrimSpace(ToWhatsApp(msg.Text) + choicesText(msg.Buttons))
	if text == "" && len(msg.Attachments) == 0 {
		return channels.Sent{}, errors.New("whatsapp: send: empty message")
	}
	files, err := a.prepareFiles(msg.Attachments)
	if err != nil {
		return channels.Sent{}, err
	}
	c, err := a.readyClient()
	if err != nil {
		return channels.Sent{}, err
	}
	quote := a.quoteOf(to, msg.ReplyToID)
	captioned := text != "" && len(files) > 0 && files[0].kind != whatsmeow.MediaAudio &&
		channels.UTF16Len(text) <= captionLimit
	part := 0
	nextID := func() types.MessageID {
		part++
		return messageID(msg.IdempotencyKey, part)
	}
	var textID, firstID string
	for i, f := range files {
		var ci *waE2E.ContextInfo
		caption := ""
		if i == 0 {
			ci = quote
			if captioned {
				caption = text
			}
		}
		m, err := a.uploadFile(ctx, c, f, caption, ci)
		if err != nil {
			return channels.Sent{MessageID: firstID}, err
		}
		id, err := a.send(ctx, c, to, m, nextID())
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
	if text != "" && !captioned {
		ci := quote
		if len(files) > 0 {
			ci = nil
		}
		m := &waE2E.Message{ExtendedTextMessage: &waE2E.ExtendedTextMessage{Text: proto.String(text), ContextInfo: ci}}
		if textID, err = a.send(ctx, c, to, m, nextID()); err != nil {
			return channels.Sent{MessageID: firstID}, err
		}
	}
	if textID == "" {
		textID = firstID
	}
	return channels.Sent{MessageID: textID}, nil
}

// choicesText renders buttons as a numbered list to answer by replying.
// WhatsApp shows no interactive buttons to messages from a linked device
// (its button and list messages reach only some clients, and only from
// business accounts), so a Tool Guard approval reads "Reply with 1 or 2"
// and the person's reply goes to the agent like any message.
func choicesText(rows [][]channels.Button) string {
	var b strings.Builder
	n := 0
	for _, row := range rows {
		for _, btn := range row {
			n++
			fmt.Fprintf(&b, "\n%d. %s", n, btn.Text)
		}
	}
	if n == 0 {
		return ""
	}
	return "\n" + b.String() + "\n_Reply with the number of your choice._"
}

// messageID is the id of part n of the message with key, or "" (whatsmeow
// picks a random one) without a key. Same shape as whatsmeow's ids.
func messageID(key string, n int) types.MessageID {
	if key == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(key + "\x00" + strconv.Itoa(n)))
	return types.MessageID(whatsmeow.WebMessageIDPrefix + strings.ToUpper(hex.EncodeToString(sum[:9])))
}

// send sends one message and remembers it as ours.
func (a *Adapter) send(ctx context.Context, c Client, to types.JID, m *waE2E.Message, id types.MessageID) (string, error) {
	var extra []whatsmeow.SendRequestExtra
	if id != "" {
		extra = append(extra, whatsmeow.SendRequestExtra{ID: id})
	}
	resp, err := c.SendMessage(ctx, to, m, extra...)
	if err != nil {
		return "", classify("send message", err)
	}
	a.recent.addOwn(to.String(), resp.ID)
	return resp.ID, nil
}

// readyClient is the connected client, or why there is none: a
// permanent error when the account is not linked or WhatsApp ended the
// session, a RetryableError while (re)connecting.
func (a *Adapter) readyClient() (Client, error) {
	a.mu.Lock()
	c, ended := a.client, a.ended
	a.mu.Unlock()
	running := a.life.Running()
	switch {
	case ended == LinkHint:
		return nil, ErrNotLinked
	case ended != "":
		return nil, fmt.Errorf("whatsapp: %s: %w", ended, ErrSessionEnded)
	case !running:
		return nil, errors.New("whatsapp: adapter not started")
	case c == nil || !c.IsConnected() || !c.IsLoggedIn():
		return nil, &channels.RetryableError{Err: errNotConnected}
	}
	return c, nil
}

// quoteOf is the context that quotes message id in chat, nil for none.
func (a *Adapter) quoteOf(to types.JID, id string) *waE2E.ContextInfo {
	if id == "" {
		return nil
	}
	ci := &waE2E.ContextInfo{StanzaID: proto.String(id)}
	r, ok := a.recent.get(to.String(), id)
	ci.QuotedMessage = &waE2E.Message{Conversation: proto.String(r.text)}
	if ok && !r.fromMe && !r.sender.IsEmpty() {
		ci.Participant = proto.String(r.sender.String())
	} else if c := a.currentClient(); ok && r.fromMe && c != nil {
		ci.Participant = proto.String(c.OwnID().ToNonAD().String())
	} else if to.Server != types.GroupServer {
		// In a direct chat an unremembered message is most likely theirs.
		ci.Participant = proto.String(to.String())
	}
	return ci
}

// ParseTarget reads a chat id: a JID ("…@s.whatsapp.net", "…@g.us",
// "…@lid") or a phone number ("+4915…", digits, optionally with a
// "whatsapp:" prefix and spaces or dashes).
func ParseTarget(s string) (types.JID, error) {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "whatsapp:"))
	if s == "" {
		return types.JID{}, errors.New("whatsapp: send: no chat id")
	}
	if strings.Contains(s, "@") {
		j, err := types.ParseJID(s)
		if err != nil || j.User == "" {
			return types.JID{}, fmt.Errorf("whatsapp: chat id %q is not a WhatsApp JID", s)
		}
		return j.ToNonAD(), nil
	}
	digits := strings.Map(func(r rune) rune {
		switch {
		case r >= '0' && r <= '9':
			return r
		case r == '+' || r == ' ' || r == '-' || r == '(' || r == ')' || r == '.':
			return -1
		}
		return 'x'
	}, s)
	if strings.Contains(digits, "x") || len(digits) < 6 || len(digits) > 15 {
		return types.JID{}, fmt.Errorf("whatsapp: chat id %q is neither a JID nor a phone number", s)
	}
	return types.NewJID(digits, types.DefaultUserServer), nil
}

// classify wraps err of doing what: network trouble and timeouts are
// worth retrying; a missing device is ErrNotLinked; the rest is final
// (retrying a refused message would only repeat the refusal).
func classify(what string, err error) error {
	switch {
	case errors.Is(err, whatsmeow.ErrNotLoggedIn):
		return fmt.Errorf("%w (%s: %v)", ErrNotLinked, what, err)
	case isTransient(err):
		return &channels.RetryableError{Err: fmt.Errorf("whatsapp: %s: %w", what, err)}
	}
	return fmt.Errorf("whatsapp: %s: %w", what, err)
}

func isTransient(err error) bool {
	var ne net.Error
	var he whatsmeow.DownloadHTTPError
	switch {
	case errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, whatsmeow.ErrNotConnected),
		errors.Is(err, whatsmeow.ErrIQTimedOut),
		errors.Is(err, whatsmeow.ErrMessageTimedOut),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.As(err, &ne):
		return true
	case errors.As(err, &he):
		return he.Response != nil && (he.Response.StatusCode >= 500 || he.Response.StatusCode == http.StatusTooManyRequests)
	}
	return false
}

// outFile is an attachment checked and ready to upload.
type outFile struct {
	path, name, mime string // mime without parameters for media kinds
	kind             whatsmeow.MediaType
	voice            bool // a push-to-talk voice note (Ogg/Opus)
}

// prepareFiles checks every attachment before anything is sent, so a
// file over the cap refuses the whole message.
func (a *Adapter) prepareFiles(atts []channels.Attachment) ([]outFile, error) {
	var out []outFile
	for _, at := range atts {
		c, err := channels.CheckAttachment("whatsapp", at, a.opts.MediaMaxMb, ErrTooLarge)
		if err != nil {
			return nil, err
		}
		mt := c.MIME
		if mt == "" {
			mt = "application/octet-stream"
		}
		f := fileKind(outFile{path: c.Path, name: c.Name, mime: mt})
		if at.Voice {
			f.kind, f.mime, f.voice = whatsmeow.MediaAudio, "audio/ogg; codecs=opus", true
		}
		out = append(out, f)
	}
	return out, nil
}

// fileKind picks how f is sent: an image (JPEG, PNG, WebP), a video
// (MP4, 3GP), an audio or, for anything else, a document that keeps its
// file name.
func fileKind(f outFile) outFile {
	base, _, _ := strings.Cut(strings.ToLower(f.mime), ";")
	base = strings.TrimSpace(base)
	f.kind = whatsmeow.MediaDocument
	switch {
	case base == "image/jpeg" || base == "image/png" || base == "image/webp":
		f.kind = whatsmeow.MediaImage
	case base == "video/mp4" || base == "video/3gpp":
		f.kind = whatsmeow.MediaVideo
	case strings.HasPrefix(base, "audio/"):
		f.kind = whatsmeow.MediaAudio
	}
	if f.kind != whatsmeow.MediaDocument {
		f.mime = base
	}
	return f
}

// uploadFile uploads f and returns the message that carries it: an image
// (JPEG, PNG, WebP), a video (MP4), an audio or, for anything else, a
// document that keeps its file name.
func (a *Adapter) uploadFile(ctx context.Context, c Client, f outFile, caption string, ci *waE2E.ContextInfo) (*waE2E.Message, error) {
	data, err := os.ReadFile(f.path)
	if err != nil {
		return nil, fmt.Errorf("whatsapp: attachment %q: %w", f.name, err)
	}
	if int64(len(data)) > int64(a.opts.MediaMaxMb)<<20 {
		return nil, fmt.Errorf("whatsapp: attachment %q grew over the %d MB limit: %w", f.name, a.opts.MediaMaxMb, ErrTooLarge)
	}
	kind, base := f.kind, f.mime
	up, err := c.Upload(ctx, data, kind)
	if err != nil {
		return nil, classify("upload "+f.name, err)
	}
	var capt *string
	if caption != "" {
		capt = proto.String(caption)
	}
	switch kind {
	case whatsmeow.MediaImage:
		return &waE2E.Message{ImageMessage: &waE2E.ImageMessage{
			URL: proto.String(up.URL), DirectPath: proto.String(up.DirectPath), MediaKey: up.MediaKey,
			FileEncSHA256: up.FileEncSHA256, FileSHA256: up.FileSHA256, FileLength: proto.Uint64(up.FileLength),
			Mimetype: proto.String(base), Caption: capt, ContextInfo: ci,
		}}, nil
	case whatsmeow.MediaVideo:
		return &waE2E.Message{VideoMessage: &waE2E.VideoMessage{
			URL: proto.String(up.URL), DirectPath: proto.String(up.DirectPath), MediaKey: up.MediaKey,
			FileEncSHA256: up.FileEncSHA256, FileSHA256: up.FileSHA256, FileLength: proto.Uint64(up.FileLength),
			Mimetype: proto.String(base), Caption: capt, ContextInfo: ci,
		}}, nil
	case whatsmeow.MediaAudio:
		// Audio carries no caption: the text follows as its own message.
		// A voice note is push-to-talk (PTT), shown with a waveform and
		// played inline, as the phone records it.
		am := &waE2E.AudioMessage{
			URL: proto.String(up.URL), DirectPath: proto.String(up.DirectPath), MediaKey: up.MediaKey,
			FileEncSHA256: up.FileEncSHA256, FileSHA256: up.FileSHA256, FileLength: proto.Uint64(up.FileLength),
			Mimetype: proto.String(base), ContextInfo: ci,
		}
		if f.voice {
			am.PTT = proto.Bool(true)
		}
		return &waE2E.Message{AudioMessage: am}, nil
	}
	return &waE2E.Message{DocumentMessage: &waE2E.DocumentMessage{
		URL: proto.String(up.URL), DirectPath: proto.String(up.DirectPath), MediaKey: up.MediaKey,
		FileEncSHA256: up.FileEncSHA256, FileSHA256: up.FileSHA256, FileLength: proto.Uint64(up.FileLength),
		Mimetype: proto.String(f.mime), FileName: proto.String(f.name), Title: proto.String(f.name),
		Caption: capt, ContextInfo: ci,
	}}, nil
}
