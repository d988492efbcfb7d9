package whatsapp

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/store"
	"go.mau.fi/whatsmeow/types"
	waLog "go.mau.fi/whatsmeow/util/log"
)

// Client is what the adapter uses of a *whatsmeow.Client, and nothing
// more. The real one is NewWhatsmeowClient; whatsapptest.Fake is an
// in-memory one for tests. The methods have whatsmeow's meaning.
type Client interface {
	// Connect opens the connection; *events.Connected follows once it is
	// authenticated, *events.Disconnected when it drops.
	Connect() error
	// Disconnect closes the connection without emitting any event.
	Disconnect()
	IsConnected() bool
	IsLoggedIn() bool
	// OwnID is this device's JID (the account's phone number with the
	// device part), or the empty JID when the device is not linked.
	// OwnLID is the account's hidden-user id (empty when unknown); groups
	// may mention and quote us by either.
	OwnID() types.JID
	OwnLID() types.JID
	// AddEventHandler registers h for every event. h returning false for
	// a *events.Message means "not stored": the message is not
	// acknowledged, so WhatsApp delivers it again later.
	AddEventHandler(h func(evt any) bool)
	// GetQRChannel must be called before Connect on an unlinked device.
	GetQRChannel(ctx context.Context) (<-chan whatsmeow.QRChannelItem, error)
	PairPhone(ctx context.Context, phone string, showPushNotification bool, clientType whatsmeow.PairClientType, clientDisplayName string) (string, error)
	// Logout unlinks the device and deletes its keys.
	Logout(ctx context.Context) error
	SendMessage(ctx context.Context, to types.JID, msg *waE2E.Message, extra ...whatsmeow.SendRequestExtra) (whatsmeow.SendResponse, error)
	SendChatPresence(ctx context.Context, jid types.JID, state types.ChatPresence, media types.ChatPresenceMedia) error
	MarkRead(ctx context.Context, ids []types.MessageID, timestamp time.Time, chat, sender types.JID, receiptTypeExtra ...types.ReceiptType) error
	Upload(ctx context.Context, plaintext []byte, mediaType whatsmeow.MediaType) (whatsmeow.UploadResponse, error)
	Download(ctx context.Context, msg whatsmeow.DownloadableMessage) ([]byte, error)
}

// whatsmeowClient is the real Client.
type whatsmeowClient struct {
	*whatsmeow.Client
}

var _ Client = whatsmeowClient{}

// NewWhatsmeowClient returns the real Client for device, logging to log.
// whatsmeow's own reconnect loop is off (the adapter reconnects with its
// backoff and stops for good on a logout or ban); acknowledgements wait
// for the event handlers (SynchronousAck) and decrypted messages are kept
// until handled (EnableDecryptedEventBuffer), so a message whose handler
// failed can be decrypted again when WhatsApp redelivers it.
func NewWhatsmeowClient(device *store.Device, log *slog.Logger) Client {
	c := whatsmeow.NewClient(device, newWALogger(log))
	c.EnableAutoReconnect = false
	c.SynchronousAck = true
	c.EnableDecryptedEventBuffer = true
	return whatsmeowClient{c}
}

func (c whatsmeowClient) OwnID() types.JID {
	if c.Store == nil || c.Store.ID == nil {
		return types.EmptyJID
	}
	return *c.Store.ID
}

func (c whatsmeowClient) OwnLID() types.JID {
	if c.Store == nil {
		return types.EmptyJID
	}
	return c.Store.LID.ToNonAD()
}

func (c whatsmeowClient) AddEventHandler(h func(evt any) bool) {
	c.Client.AddEventHandlerWithSuccessStatus(h)
}

// waLogger sends whatsmeow's printf-style logs to slog.
type waLogger struct{ l *slog.Logger }

func newWALogger(l *slog.Logger) waLog.Logger {
	if l == nil {
		return waLog.Noop
	}
	return waLogger{l}
}

func (w waLogger) Errorf(msg string, args ...any) { w.l.Error(fmt.Sprintf(msg, args...)) }
func (w waLogger) Warnf(msg string, args ...any)  { w.l.Warn(fmt.Sprintf(msg, args...)) }
func (w waLogger) Infof(msg string, args ...any)  { w.l.Info(fmt.Sprintf(msg, args...)) }
func (w waLogger) Debugf(msg string, args ...any) {
	if w.l.Enabled(context.Background(), slog.LevelDebug) {
		w.l.Debug(fmt.Sprintf(msg, args...))
	}
}
func (w waLogger) Sub(module string) waLog.Logger {
	return waLogger{w.l.With("module", module)}
}
