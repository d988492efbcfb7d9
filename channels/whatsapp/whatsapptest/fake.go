// Package whatsapptest is an in-memory WhatsApp for tests: Fake implements
// whatsapp.Client, delivers the events a test injects to the adapter's
// handler, records what the adapter sends, and fails on request.
package whatsapptest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
)

// Fake is one linked (or unlinked) device. The zero value is not usable;
// call New. All methods are safe for concurrent use.
type Fake struct {
	mu        sync.Mutex
	own, lid  types.JID
	connected bool
	handlers  []func(any) bool

	connects    int
	connectErrs []error
	sendErrs    []error
	noConnected bool // Connect does not emit *events.Connected

	sent      []Sent
	presences []Presence
	reads     []Read
	files     map[string][]byte // direct path → plaintext
	uploads   int
	acked     []string
	unacked   []string
	logouts   int

	// login script
	qr        chan whatsmeow.QRChannelItem
	qrCodes   []string
	linkAs    types.JID
	qrFail    *whatsmeow.QRChannelItem
	pairPhone string
	nextID    int
}

// Sent is a message the adapter sent.
type Sent struct {
	To      types.JID
	ID      types.MessageID
	Message *waE2E.Message
}

// Text is the message's text or caption.
func (s Sent) Text() string {
	m := s.Message
	switch {
	case m.GetConversation() != "":
		return m.GetConversation()
	case m.GetExtendedTextMessage() != nil:
		return m.GetExtendedTextMessage().GetText()
	case m.GetImageMessage() != nil:
		return m.GetImageMessage().GetCaption()
	case m.GetDocumentMessage() != nil:
		return m.GetDocumentMessage().GetCaption()
	case m.GetVideoMessage() != nil:
		return m.GetVideoMessage().GetCaption()
	}
	return ""
}

// Presence is a chat presence the adapter sent.
type Presence struct {
	Chat  types.JID
	State types.ChatPresence
}

// Read is a read receipt the adapter sent.
type Read struct {
	IDs          []types.MessageID
	Chat, Sender types.JID
}

// New returns a fake device linked as own (a phone JID with a device
// part, e.g. types.NewADJID("4915100000001", 0, 7)); an empty own is an
// unlinked device.
func New(own types.JID) *Fake {
	return &Fake{own: own, files: map[string][]byte{}}
}

// Fresh drops the event handlers of earlier clients and returns f: a
// test's NewClient returns fake.Fresh(), as each whatsmeow.Client starts
// with no handlers.
func (f *Fake) Fresh() *Fake {
	f.mu.Lock()
	f.handlers = nil
	f.mu.Unlock()
	return f
}

// SetLID sets the account's hidden-user id.
func (f *Fake) SetLID(lid types.JID) {
	f.mu.Lock()
	f.lid = lid
	f.mu.Unlock()
}

// FailConnect makes the next len(errs) Connect calls fail with errs.
func (f *Fake) FailConnect(errs ...error) {
	f.mu.Lock()
	f.connectErrs = append(f.connectErrs, errs...)
	f.mu.Unlock()
}

// FailSend makes the next len(errs) SendMessage calls fail with errs.
func (f *Fake) FailSend(errs ...error) {
	f.mu.Lock()
	f.sendErrs = append(f.sendErrs, errs...)
	f.mu.Unlock()
}

// HoldConnected makes Connect succeed without *events.Connected, as when
// the server never finishes the handshake.
func (f *Fake) HoldConnected(hold bool) {
	f.mu.Lock()
	f.noConnected = hold
	f.mu.Unlock()
}

// ScriptLogin prepares the next login: Connect on the unlinked device
// hands out codes through the QR channel, then success as linkAs (or, when
// linkAs is empty, the timeout).
func (f *Fake) ScriptLogin(linkAs types.JID, codes ...string) {
	f.mu.Lock()
	f.qrCodes, f.linkAs = codes, linkAs
	f.mu.Unlock()
}

// AddFile makes directPath downloadable with data.
func (f *Fake) AddFile(directPath string, data []byte) {
	f.mu.Lock()
	f.files[directPath] = slices.Clone(data)
	f.mu.Unlock()
}

// Emit delivers evt to the handlers as whatsmeow would and reports
// whether they all succeeded; for a *events.Message that is whether it
// would be acknowledged (see Acked, Unacked).
func (f *Fake) Emit(evt any) bool {
	f.mu.Lock()
	hs := slices.Clone(f.handlers)
	f.mu.Unlock()
	ok := true
	for _, h := range hs {
		if !h(evt) {
			ok = false
			break
		}
	}
	if m, isMsg := evt.(*events.Message); isMsg {
		f.mu.Lock()
		if ok {
			f.acked = append(f.acked, m.Info.ID)
		} else {
			f.unacked = append(f.unacked, m.Info.ID)
		}
		f.mu.Unlock()
	}
	return ok
}

// Drop closes the connection as a network failure would: Disconnected.
func (f *Fake) Drop() {
	f.mu.Lock()
	f.connected = false
	f.mu.Unlock()
	f.Emit(&events.Disconnected{})
}

// Connect implements whatsapp.Client.
func (f *Fake) Connect() error {
	f.mu.Lock()
	f.connects++
	if len(f.connectErrs) > 0 {
		err := f.connectErrs[0]
		f.connectErrs = f.connectErrs[1:]
		f.mu.Unlock()
		return err
	}
	if f.connected {
		f.mu.Unlock()
		return whatsmeow.ErrAlreadyConnected
	}
	f.connected = true
	linked, hold, qr := !f.own.IsEmpty(), f.noConnected, f.qr
	f.mu.Unlock()
	switch {
	case linked && !hold:
		f.Emit(&events.Connected{})
	case !linked && qr != nil:
		go f.runLogin(qr)
	}
	return nil
}

func (f *Fake) runLogin(qr chan whatsmeow.QRChannelItem) {
	f.mu.Lock()
	codes, linkAs := f.qrCodes, f.linkAs
	f.mu.Unlock()
	defer close(qr)
	for _, c := range codes {
		qr <- whatsmeow.QRChannelItem{Event: whatsmeow.QRChannelEventCode, Code: c, Timeout: time.Second}
	}
	if linkAs.IsEmpty() {
		qr <- whatsmeow.QRChannelTimeout
		return
	}
	f.mu.Lock()
	f.own = linkAs
	f.mu.Unlock()
	qr <- whatsmeow.QRChannelSuccess
}

// Disconnect implements whatsapp.Client; like whatsmeow it emits nothing.
func (f *Fake) Disconnect() {
	f.mu.Lock()
	f.connected = false
	f.mu.Unlock()
}

// IsConnected implements whatsapp.Client.
func (f *Fake) IsConnected() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.connected
}

// IsLoggedIn implements whatsapp.Client: connected, linked, and (unless
// HoldConnected keeps the handshake from finishing) logged in.
func (f *Fake) IsLoggedIn() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.connected && !f.own.IsEmpty() && !f.noConnected
}

// OwnID implements whatsapp.Client.
func (f *Fake) OwnID() types.JID {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.own
}

// OwnLID implements whatsapp.Client.
func (f *Fake) OwnLID() types.JID {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lid
}

// AddEventHandler implements whatsapp.Client; Emit calls the handlers.
func (f *Fake) AddEventHandler(h func(evt any) bool) {
	f.mu.Lock()
	f.handlers = append(f.handlers, h)
	f.mu.Unlock()
}

// GetQRChannel implements whatsapp.Client; see ScriptLogin.
func (f *Fake) GetQRChannel(ctx context.Context) (<-chan whatsmeow.QRChannelItem, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.own.IsEmpty() {
		return nil, whatsmeow.ErrQRStoreContainsID
	}
	if f.connected {
		return nil, whatsmeow.ErrQRAlreadyConnected
	}
	f.qr = make(chan whatsmeow.QRChannelItem, len(f.qrCodes)+2)
	return f.qr, nil
}

// PairPhone implements whatsapp.Client; the code is always ABCD-EFGH.
func (f *Fake) PairPhone(ctx context.Context, phone string, _ bool, _ whatsmeow.PairClientType, _ string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.connected {
		return "", whatsmeow.ErrNotConnected
	}
	f.pairPhone = phone
	return "ABCD-EFGH", nil
}

// PairedPhone is the number PairPhone was called with.
func (f *Fake) PairedPhone() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pairPhone
}

// Logout implements whatsapp.Client: the device becomes unlinked.
func (f *Fake) Logout(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.own.IsEmpty() {
		return whatsmeow.ErrNotLoggedIn
	}
	if !f.connected {
		return whatsmeow.ErrNotConnected
	}
	f.own, f.connected = types.EmptyJID, false
	f.logouts++
	return nil
}

// SendMessage implements whatsapp.Client: it records the message
// (see Sent) under the requested id, or FAKE000001, FAKE000002, ….
func (f *Fake) SendMessage(ctx context.Context, to types.JID, msg *waE2E.Message, extra ...whatsmeow.SendRequestExtra) (whatsmeow.SendResponse, error) {
	if err := ctx.Err(); err != nil {
		return whatsmeow.SendResponse{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.sendErrs) > 0 {
		err := f.sendErrs[0]
		f.sendErrs = f.sendErrs[1:]
		return whatsmeow.SendResponse{}, err
	}
	if f.own.IsEmpty() {
		return whatsmeow.SendResponse{}, whatsmeow.ErrNotLoggedIn
	}
	if !f.connected {
		return whatsmeow.SendResponse{}, whatsmeow.ErrNotConnected
	}
	var id types.MessageID
	if len(extra) > 0 {
		id = extra[0].ID
	}
	if id == "" {
		f.nextID++
		id = fmt.Sprintf("FAKE%06d", f.nextID)
	}
	f.sent = append(f.sent, Sent{To: to, ID: id, Message: msg})
	return whatsmeow.SendResponse{ID: id, Timestamp: time.Now()}, nil
}

// SendChatPresence implements whatsapp.Client (see Presences).
func (f *Fake) SendChatPresence(ctx context.Context, jid types.JID, state types.ChatPresence, media types.ChatPresenceMedia) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.connected {
		return whatsmeow.ErrNotConnected
	}
	f.presences = append(f.presences, Presence{Chat: jid, State: state})
	return nil
}

// MarkRead implements whatsapp.Client (see Reads).
func (f *Fake) MarkRead(ctx context.Context, ids []types.MessageID, _ time.Time, chat, sender types.JID, _ ...types.ReceiptType) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, Read{IDs: slices.Clone(ids), Chat: chat, Sender: sender})
	return nil
}

// Upload implements whatsapp.Client: the data becomes downloadable.
func (f *Fake) Upload(ctx context.Context, data []byte, mt whatsmeow.MediaType) (whatsmeow.UploadResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.connected {
		return whatsmeow.UploadResponse{}, whatsmeow.ErrNotConnected
	}
	f.uploads++
	path := fmt.Sprintf("/v/t62/fake-%d", f.uploads)
	f.files[path] = slices.Clone(data)
	return whatsmeow.UploadResponse{
		URL: "https://mmg.whatsapp.net" + path, DirectPath: path,
		MediaKey: []byte("0123456789abcdef0123456789abcdef"), FileLength: uint64(len(data)),
		FileSHA256: []byte("sha"), FileEncSHA256: []byte("enc"),
	}, nil
}

// Download implements whatsapp.Client for uploaded and added files.
func (f *Fake) Download(ctx context.Context, msg whatsmeow.DownloadableMessage) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	data, ok := f.files[msg.GetDirectPath()]
	if !ok {
		return nil, whatsmeow.ErrMediaDownloadFailedWith404
	}
	return slices.Clone(data), nil
}

// Connects is how many times Connect was called.
func (f *Fake) Connects() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.connects
}

// Logouts is how many times Logout unlinked the device.
func (f *Fake) Logouts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.logouts
}

// Sent returns the messages sent, in order.
func (f *Fake) Sent() []Sent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sent)
}

// Presences returns the chat presences sent.
func (f *Fake) Presences() []Presence {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.presences)
}

// Reads returns the read receipts sent.
func (f *Fake) Reads() []Read {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reads)
}

// Acked and Unacked are the ids of the messages whose handlers succeeded
// (whatsmeow would acknowledge them) and failed (it would not).
func (f *Fake) Acked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.acked)
}

// Unacked returns the ids of the messages left unacknowledged; see Acked.
func (f *Fake) Unacked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.unacked)
}

// ErrNetwork is a transient network failure to inject (a net.Error).
var ErrNetwork error = &net.OpError{Op: "write", Net: "tcp", Err: errors.New("connection reset by peer")}
