package whatsapp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/openclaw-go/openclaw/backoff"
	"github.com/openclaw-go/openclaw/channels"
)

// Receive retries: a failing store gets a few quick tries inside the
// event handler (which holds up whatsmeow's event processing), then the
// message is left unacknowledged. The waits are 100 ms then 200 ms; the
// cap is never reached in so few tries.
const receiveAttempts = 3

var receiveBackoff = backoff.Policy{Min: 100 * time.Millisecond, Max: time.Second}

// onMessage normalises a message and stores it. It returns whether the
// message may be acknowledged: true when it was stored or is nothing we
// keep (our own messages, status updates, protocol messages), false when
// the store refused it.
//
// On false whatsmeow sends neither the delivery receipt nor the ack, and
// keeps the decrypted copy in its event buffer, so WhatsApp redelivers the
// message on a later connection and it is decrypted from that buffer;
// nothing forces that redelivery soon, though: until the next reconnect
// the message sits on WhatsApp's servers, the sender sees one grey tick,
// and no read receipt is sent. That is the WhatsApp form of "acknowledge
// only after storing".
func (a *Adapter) onMessage(ctx context.Context, c Client, e *events.Message) bool {
	in, ok := normalise(e, selfOf(c), a.opts.AccountID)
	if !ok {
		return true
	}
	a.recent.add(in.Chat.ID, in.MessageID, e.Info.Sender.ToNonAD(), quotable(e.Message))
	sink := a.life.Sink()
	if sink == nil {
		return false
	}
	for attempt := 1; ; attempt++ {
		err := sink.Receive(ctx, in)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return false
		}
		if attempt == receiveAttempts {
			a.log.Error("whatsapp message not stored; left unacknowledged for WhatsApp to redeliver, no read receipt",
				"message_id", in.EventID, "chat", in.Chat.ID, "err", err)
			return false
		}
		a.log.Warn("whatsapp message not stored; retrying", "message_id", in.EventID, "attempt", attempt, "err", err)
		if !channels.Sleep(ctx, receiveBackoff.Delay(attempt-1)) {
			return false
		}
	}
	if a.opts.SendReadReceipts && in.Kind == channels.EventMessage {
		var sender types.JID
		if e.Info.IsGroup {
			sender = e.Info.Sender
		}
		if err := c.MarkRead(ctx, []types.MessageID{e.Info.ID}, time.Now(), e.Info.Chat, sender); err != nil {
			a.log.Warn("whatsapp read receipt failed", "message_id", e.Info.ID, "err", err)
		}
	}
	return true
}

// self is who we are, for mentions and quotes.
type self struct {
	pn, lid types.JID // both without a device part; either may be empty
}

func selfOf(c Client) self {
	return self{pn: c.OwnID().ToNonAD(), lid: c.OwnLID().ToNonAD()}
}

func (s self) is(jid string) bool {
	j, err := types.ParseJID(jid)
	if err != nil || j.User == "" {
		return false
	}
	switch j.Server {
	case types.DefaultUserServer, types.LegacyUserServer:
		return !s.pn.IsEmpty() && j.User == s.pn.User
	case types.HiddenUserServer:
		return !s.lid.IsEmpty() && j.User == s.lid.User
	}
	return false
}

// normalise turns a message event into an Inbound event. ok is false for
// what we do not hand on: our own messages (from any of our devices),
// status updates and other broadcasts, newsletters, revocations and other
// protocol messages, and messages with nothing we can read.
//
// Sender.ID is the sender's phone number in E.164 ("+4915…") whenever
// WhatsApp tells us the number (allowFrom lists are phone numbers), else
// the sender's JID (a hidden "…@lid" id).
func normalise(e *events.Message, me self, account string) (in channels.Inbound, ok bool) {
	info := e.Info
	if e.Message == nil || info.IsFromMe || info.ID == "" {
		return in, false
	}
	switch info.Chat.Server {
	case types.BroadcastServer, types.NewsletterServer:
		return in, false
	}
	in = channels.Inbound{
		Channel:   Channel,
		AccountID: account,
		EventID:   info.ID,
		Kind:      channels.EventMessage,
		MessageID: info.ID,
		Chat:      channels.Chat{ID: info.Chat.ToNonAD().String(), Kind: channels.Direct},
		Sender:    senderOf(info),
		Time:      info.Timestamp.UTC(),
	}
	if info.Chat.Server == types.GroupServer {
		in.Chat.Kind = channels.Group
	} else {
		in.Chat.Title = info.PushName
	}
	m := e.Message
	if r := m.GetReactionMessage(); r != nil {
		in.Kind = channels.EventReaction
		in.MessageID = r.GetKey().GetID()
		in.Reaction = r.GetText() // "" when the reaction was removed
		return in, in.MessageID != ""
	}
	if pm := m.GetProtocolMessage(); pm != nil {
		if pm.GetType() != waE2E.ProtocolMessage_MESSAGE_EDIT || pm.GetEditedMessage() == nil {
			return in, false
		}
		in.Kind = channels.EventEdit
		in.MessageID = pm.GetKey().GetID()
		m = pm.GetEditedMessage()
	}
	in.Text = textOf(m)
	in.Media = mediaOf(m)
	if in.Text == "" && len(in.Media) == 0 {
		return in, false // a contact card, location, poll, call notice…
	}
	if ci := contextOf(m); ci != nil {
		in.ReplyToID = ci.GetStanzaID()
		if p := ci.GetParticipant(); in.ReplyToID != "" && p != "" && me.is(p) {
			in.Mentioned = true
		}
		for _, j := range ci.GetMentionedJID() {
			if me.is(j) {
				in.Mentioned = true
			}
		}
	}
	return in, true
}

func senderOf(info types.MessageInfo) channels.Sender {
	s := channels.Sender{Name: info.PushName, IsBot: info.Sender.IsBot()}
	sender := info.Sender.ToNonAD()
	switch {
	case sender.Server == types.DefaultUserServer:
		s.ID = userID(sender)
	case info.SenderAlt.Server == types.DefaultUserServer:
		s.ID = userID(info.SenderAlt.ToNonAD())
	default:
		s.ID = sender.String()
	}
	return s
}

// userID is a phone JID as E.164, any other JID as itself.
func userID(j types.JID) string {
	if j.Server == types.DefaultUserServer && j.User != "" {
		return "+" + j.User
	}
	return j.String()
}

// textOf is the text of a message or the caption of its media.
func textOf(m *waE2E.Message) string {
	switch {
	case m.GetConversation() != "":
		return m.GetConversation()
	case m.GetExtendedTextMessage() != nil:
		return m.GetExtendedTextMessage().GetText()
	case m.GetImageMessage() != nil:
		return m.GetImageMessage().GetCaption()
	case m.GetVideoMessage() != nil:
		return m.GetVideoMessage().GetCaption()
	case m.GetDocumentMessage() != nil:
		return m.GetDocumentMessage().GetCaption()
	}
	return ""
}

// contextOf is the reply/mention context of whichever part carries it.
func contextOf(m *waE2E.Message) *waE2E.ContextInfo {
	for _, ci := range []*waE2E.ContextInfo{
		m.GetExtendedTextMessage().GetContextInfo(),
		m.GetImageMessage().GetContextInfo(),
		m.GetVideoMessage().GetContextInfo(),
		m.GetAudioMessage().GetContextInfo(),
		m.GetDocumentMessage().GetContextInfo(),
		m.GetStickerMessage().GetContextInfo(),
	} {
		if ci != nil {
			return ci
		}
	}
	return nil
}

// mediaRef is what Media.FileID holds (as JSON): enough of the media
// message to download and decrypt the file later. It holds the media key,
// so FileIDs are as private as the messages.
type mediaRef struct {
	Type          string `json:"t"` // image, video, audio, document, sticker
	DirectPath    string `json:"p"`
	MediaKey      []byte `json:"k"`
	FileSHA256    []byte `json:"h"`
	FileEncSHA256 []byte `json:"e"`
	Length        uint64 `json:"n"`
	MIME          string `json:"m,omitempty"`
}

// downloadable is a media message for whatsmeow's Download of m's kind.
type downloadable interface {
	GetDirectPath() string
	GetMediaKey() []byte
	GetFileSHA256() []byte
	GetFileEncSHA256() []byte
	GetMimetype() string
	GetFileLength() uint64
}

func mediaOf(m *waE2E.Message) []channels.Media {
	var out []channels.Media
	add := func(kind, typ, name string, d downloadable) {
		if d == nil || d.GetDirectPath() == "" || len(d.GetMediaKey()) == 0 {
			return
		}
		ref, _ := json.Marshal(mediaRef{
			Type: typ, DirectPath: d.GetDirectPath(), MediaKey: d.GetMediaKey(),
			FileSHA256: d.GetFileSHA256(), FileEncSHA256: d.GetFileEncSHA256(),
			Length: d.GetFileLength(), MIME: d.GetMimetype(),
		}) // cannot fail: plain fields
		out = append(out, channels.Media{Kind: kind, FileID: string(ref), MIME: d.GetMimetype(),
			Name: name, Size: int64(d.GetFileLength())})
	}
	if im := m.GetImageMessage(); im != nil {
		add("photo", "image", "", im)
	}
	if v := m.GetVideoMessage(); v != nil {
		add("video", "video", "", v)
	}
	if au := m.GetAudioMessage(); au != nil {
		kind := "audio"
		if au.GetPTT() {
			kind = "voice"
		}
		add(kind, "audio", "", au)
	}
	if d := m.GetDocumentMessage(); d != nil {
		add("document", "document", d.GetFileName(), d)
	}
	if st := m.GetStickerMessage(); st != nil {
		add("sticker", "sticker", "", st)
	}
	return out
}

// quotable is a short text of a message to show in a reply's quote.
func quotable(m *waE2E.Message) string {
	t := textOf(m)
	if r := []rune(t); len(r) > 200 {
		t = string(r[:200]) + "…"
	}
	return strings.TrimSpace(t)
}

// recentSize is how many inbound messages are remembered for replies and
// reactions.
const recentSize = 4096

// recentMessages remembers who sent recent messages: a quote or a
// reaction in a group must name the author of the message it is about.
type recentMessages struct {
	mu    sync.Mutex
	byKey map[string]recentMessage
	order []string // ring of keys, oldest first once full
	next  int
}

type recentMessage struct {
	sender types.JID
	text   string
	fromMe bool
}

func newRecentMessages(n int) *recentMessages {
	return &recentMessages{byKey: make(map[string]recentMessage, n), order: make([]string, n)}
}

func (r *recentMessages) add(chat, id string, sender types.JID, text string) {
	r.put(chat, id, recentMessage{sender: sender, text: text})
}

func (r *recentMessages) addOwn(chat, id string) {
	r.put(chat, id, recentMessage{fromMe: true})
}

func (r *recentMessages) put(chat, id string, m recentMessage) {
	if id == "" {
		return
	}
	key := chat + "\x00" + id
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byKey[key]; !ok {
		if old := r.order[r.next]; old != "" {
			delete(r.byKey, old)
		}
		r.order[r.next] = key
		r.next = (r.next + 1) % len(r.order)
	}
	r.byKey[key] = m
}

func (r *recentMessages) get(chat, id string) (recentMessage, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.byKey[chat+"\x00"+id]
	return m, ok
}
