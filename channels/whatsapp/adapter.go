package whatsapp

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"sync"
	"time"

	wastore "go.mau.fi/whatsmeow/store"
	"go.mau.fi/whatsmeow/store/sqlstore"

	"github.com/openclaw-go/openclaw/channels"
)

// Channel is the network id Inbound events carry.
const Channel = "whatsapp"

// Defaults of Options.
const (
	DefaultTextLimit  = 4000
	DefaultMediaMaxMb = 50
	DefaultBackoffMin = 2 * time.Second
	DefaultBackoffMax = 5 * time.Minute

	// maxTextLimit is far below WhatsApp's own limit (65,536 characters);
	// longer messages are cut off or refused by some clients.
	maxTextLimit = 16000
)

// LinkHint is the Detail of an account that is not linked.
const LinkHint = "not linked: run `openclaw channels login --channel whatsapp`"

// Options configure one WhatsApp account. The zero value of every
// optional field means its default.
type Options struct {
	// AccountID names the account in Inbound events, logs and the
	// whatsapp_accounts table.
	AccountID string
	// DB is the gateway's database (opened with foreign keys on); the
	// device's keys are stored in it. Required.
	DB *sql.DB
	// NewClient builds the client for a device; default
	// NewWhatsmeowClient. Tests pass one returning a whatsapptest.Fake.
	NewClient func(device *wastore.Device) Client
	// TextLimit is the longest message in UTF-16 units; default 4000.
	TextLimit int
	// ChunkMode is "length" (default) or "newline".
	ChunkMode string
	// MediaMaxMb caps attachments sent and media fetched; default 50.
	MediaMaxMb int
	// SendReadReceipts marks each stored inbound message as read (blue
	// ticks); default off.
	SendReadReceipts bool
	// BackoffMin and BackoffMax bound the exponential reconnect backoff
	// (with jitter); defaults 2s and 5m.
	BackoffMin, BackoffMax time.Duration
	// PairDisplayName is how the linked device is named on the phone when
	// linking with a pairing code; default "Chrome (Linux)" (WhatsApp
	// accepts only browser-like names).
	PairDisplayName string
	// Log receives the adapter's logs; default discard.
	Log *slog.Logger
}

// Adapter is one WhatsApp account linked as a companion device. It
// implements channels.Adapter and the capabilities WhatsApp has; see the
// compile-time guards below.
type Adapter struct {
	opts Options
	log  *slog.Logger

	recent *recentMessages

	storeOnce sync.Once
	container *sqlstore.Container
	storeErr  error

	mu       sync.Mutex
	client   Client        // the connected (or connecting) client, nil when none
	linked   chan struct{} // signalled by a successful Login
	unlinked chan struct{} // signalled by Logout
	login    bool          // a Login is under way
	ended    string        // why the session is over (LinkHint when not linked), "" while it is not

	life channels.Runner
}

var (
	_ channels.Adapter      = (*Adapter)(nil)
	_ channels.Limits       = (*Adapter)(nil)
	_ channels.Typer        = (*Adapter)(nil)
	_ channels.Reactor      = (*Adapter)(nil)
	_ channels.Deleter      = (*Adapter)(nil)
	_ channels.Editor       = (*Adapter)(nil)
	_ channels.MediaFetcher = (*Adapter)(nil)
	_ channels.LoginFlow    = (*Adapter)(nil)
)

// New returns an adapter for opts with defaults filled in. It does no
// I/O: Start and Login open the device store.
func New(opts Options) *Adapter {
	if opts.TextLimit <= 0 {
		opts.TextLimit = DefaultTextLimit
	}
	opts.TextLimit = min(opts.TextLimit, maxTextLimit)
	if opts.ChunkMode != channels.ChunkNewline {
		opts.ChunkMode = channels.ChunkLength
	}
	if opts.MediaMaxMb <= 0 {
		opts.MediaMaxMb = DefaultMediaMaxMb
	}
	if opts.BackoffMin <= 0 {
		opts.BackoffMin = DefaultBackoffMin
	}
	if opts.BackoffMax < opts.BackoffMin {
		opts.BackoffMax = max(DefaultBackoffMax, opts.BackoffMin)
	}
	if opts.PairDisplayName == "" {
		opts.PairDisplayName = "Chrome (Linux)"
	}
	log := channels.AdapterLog(opts.Log, Channel, opts.AccountID)
	if opts.NewClient == nil {
		waLog := log.With("component", "whatsmeow")
		opts.NewClient = func(d *wastore.Device) Client { return NewWhatsmeowClient(d, waLog) }
	}
	a := &Adapter{
		opts:     opts,
		log:      log,
		recent:   newRecentMessages(recentSize),
		linked:   make(chan struct{}, 1),
		unlinked: make(chan struct{}, 1),
	}
	a.life = channels.Runner{Channel: Channel, Bot: a.botName}
	return a
}

// deviceStore opens (once) whatsmeow's store in the database.
func (a *Adapter) deviceStore(ctx context.Context) (*sqlstore.Container, error) {
	a.storeOnce.Do(func() {
		a.container, a.storeErr = OpenDeviceStore(ctx, a.opts.DB, a.log)
	})
	return a.container, a.storeErr
}

// newClient loads the account's device and builds its client.
func (a *Adapter) newClient(ctx context.Context) (Client, error) {
	c, err := a.deviceStore(ctx)
	if err != nil {
		return nil, err
	}
	dev, err := loadDevice(ctx, c, a.opts.DB, a.opts.AccountID)
	if err != nil {
		return nil, err
	}
	return a.opts.NewClient(dev), nil
}

// Start opens the device store and starts connecting in the background.
// An account that is not linked reports logged-out with LinkHint and
// waits for Login; connection trouble is reported through sink.Status.
func (a *Adapter) Start(ctx context.Context, sink channels.Sink) error {
	if a.opts.DB == nil {
		return errors.New("whatsapp: Options.DB is required")
	}
	if sink == nil { // checked again by life.Start, but here before the store is opened
		return errors.New("whatsapp: Start needs a sink")
	}
	if _, err := a.deviceStore(ctx); err != nil {
		return err
	}
	return a.life.Start(ctx, sink, a.run)
}

// Stop disconnects and waits for the run goroutine, or until ctx is
// done. Messages not yet acknowledged are redelivered by WhatsApp on the
// next connection. Stop on an adapter that never started does nothing.
// An Adapter runs once: build a new one to start again.
func (a *Adapter) Stop(ctx context.Context) error {
	return a.life.Stop(ctx)
}

// botName is the account's phone number once a client has one.
func (a *Adapter) botName() string {
	if c := a.currentClient(); c != nil {
		return botName(c)
	}
	return ""
}

func (a *Adapter) currentClient() Client {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.client
}

// setEnded records why the session is over ("" once connected).
func (a *Adapter) setEnded(detail string) {
	a.mu.Lock()
	a.ended = detail
	a.mu.Unlock()
}

func (a *Adapter) setClient(c Client) {
	a.mu.Lock()
	a.client = c
	a.mu.Unlock()
}

// botName is who we are: the account's phone number in E.164.
func botName(c Client) string {
	id := c.OwnID()
	if id.IsEmpty() {
		return ""
	}
	return userID(id.ToNonAD())
}

// TextLimit is the longest message in UTF-16 units.
func (a *Adapter) TextLimit() int { return a.opts.TextLimit }

// ChunkMode is "length" or "newline".
func (a *Adapter) ChunkMode() string { return a.opts.ChunkMode }
