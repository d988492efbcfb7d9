package telegram

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/openclaw-go/openclaw/channels"
)

// Channel is the network id Inbound events carry.
const Channel = "telegram"

// Defaults of Options.
const (
	DefaultAPIRoot     = "https://api.telegram.org"
	DefaultTextLimit   = 4000
	DefaultMediaMaxMb  = 50
	DefaultWebhookPath = "/telegram-webhook"
	DefaultPollTimeout = 30 * time.Second
	DefaultCallTimeout = 60 * time.Second
	DefaultBackoffMin  = time.Second
	DefaultBackoffMax  = time.Minute

	// maxTextLimit is Telegram's hard limit for one message.
	maxTextLimit = 4096
)

// Options configure one Telegram bot account. The zero value of every
// optional field means its default.
type Options struct {
	// AccountID names the account in Inbound events and logs.
	AccountID string
	// Token is the bot token from @BotFather. Required. It never appears
	// in logs or errors.
	Token string
	// APIRoot is the Bot API server; default https://api.telegram.org.
	APIRoot string
	// Proxy is an optional http(s) or socks5 proxy URL; used only when
	// HTTPClient is nil.
	Proxy string
	// HTTPClient replaces the default client (no overall timeout; each
	// call gets CallTimeout, long polls PollTimeout plus a margin). A
	// client Timeout shorter than PollTimeout breaks long polling.
	HTTPClient *http.Client
	// WebhookURL switches to webhook mode: Start registers it with
	// setWebhook and updates arrive at ServeHTTP. Empty means long polling.
	WebhookURL string
	// WebhookSecret is required in webhook mode: Telegram sends it in
	// X-Telegram-Bot-Api-Secret-Token (1-256 of A-Z a-z 0-9 _ -).
	WebhookSecret string
	// WebhookPath is where the gateway mounts ServeHTTP; default
	// /telegram-webhook.
	WebhookPath string
	// Throttle limits wrong webhook secrets per client; nil means none.
	Throttle channels.SecretThrottle
	// TextLimit is the longest message in UTF-16 units; default 4000,
	// at most 4096.
	TextLimit int
	// ChunkMode is "length" (default) or "newline".
	ChunkMode string
	// MediaMaxMb caps outbound attachments; default 50 (the Bot API's
	// upload limit).
	MediaMaxMb int
	// NoLinkPreview sends and edits text without link previews
	// (channels.telegram.linkPreview false).
	NoLinkPreview bool
	// Commands are menu entries published after the built-in ones
	// (channels.telegram.customCommands).
	Commands []channels.Command
	// PollTimeout is the long-poll timeout of getUpdates; default 30s.
	PollTimeout time.Duration
	// CallTimeout bounds every other API call; default 60s.
	CallTimeout time.Duration
	// BackoffMin and BackoffMax bound the exponential reconnect backoff
	// (with jitter); defaults 1s and 1m.
	BackoffMin, BackoffMax time.Duration
	// Log receives the adapter's logs; default discard.
	Log *slog.Logger
	// Offsets keeps the long-poll cursor across restarts; the zero value
	// keeps none (the first poll then takes whatever Telegram still holds).
	Offsets Offsets
}

// Adapter is one Telegram bot. It implements channels.Adapter and every
// capability Telegram has; see the compile-time guards below.
type Adapter struct {
	opts      Options
	log       *slog.Logger
	client    *http.Client
	endpoint  string // apiRoot + "/bot%s/%s"
	clientErr error

	self atomic.Pointer[botIdentity] // set once getMe succeeded

	life channels.Runner
}

// botIdentity is who the bot is, for mentions and command suffixes.
type botIdentity struct {
	ID       int64
	Username string
}

var (
	_ channels.Adapter          = (*Adapter)(nil)
	_ channels.Limits           = (*Adapter)(nil)
	_ channels.Editor           = (*Adapter)(nil)
	_ channels.Deleter          = (*Adapter)(nil)
	_ channels.Reactor          = (*Adapter)(nil)
	_ channels.Typer            = (*Adapter)(nil)
	_ channels.Poller           = (*Adapter)(nil)
	_ channels.Pinner           = (*Adapter)(nil)
	_ channels.CallbackAnswerer = (*Adapter)(nil)
	_ channels.CommandMenu      = (*Adapter)(nil)
	_ channels.Infoer           = (*Adapter)(nil)
	_ channels.Webhook          = (*Adapter)(nil)
)

// New returns an adapter for opts with defaults filled in. It does no
// I/O; Start validates the settings and connects. Send and the other
// actions work without Start.
func New(opts Options) *Adapter {
	if opts.APIRoot == "" {
		opts.APIRoot = DefaultAPIRoot
	}
	opts.APIRoot = strings.TrimRight(opts.APIRoot, "/")
	if opts.WebhookPath == "" {
		opts.WebhookPath = DefaultWebhookPath
	}
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
	if opts.PollTimeout <= 0 {
		opts.PollTimeout = DefaultPollTimeout
	}
	opts.PollTimeout = max(opts.PollTimeout, time.Second) // 0 would be a busy loop
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.BackoffMin <= 0 {
		opts.BackoffMin = DefaultBackoffMin
	}
	if opts.BackoffMax < opts.BackoffMin {
		opts.BackoffMax = max(DefaultBackoffMax, opts.BackoffMin)
	}
	a := &Adapter{
		opts:     opts,
		log:      channels.AdapterLog(opts.Log, Channel, opts.AccountID),
		endpoint: opts.APIRoot + "/bot%s/%s",
	}
	// ForgetSink: the webhook answers 503 once stopped.
	a.life = channels.Runner{Channel: Channel, Bot: a.botName, ForgetSink: true}
	a.client, a.clientErr = newHTTPClient(opts)
	return a
}

// botName is the bot's username once getMe told it.
func (a *Adapter) botName() string {
	if me := a.self.Load(); me != nil {
		return me.Username
	}
	return ""
}

func newHTTPClient(opts Options) (*http.Client, error) {
	if opts.HTTPClient != nil {
		return opts.HTTPClient, nil
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if opts.Proxy != "" {
		u, err := url.Parse(opts.Proxy)
		if err != nil || u.Host == "" {
			return &http.Client{Transport: tr}, fmt.Errorf("telegram: proxy %q is not a URL", redactURL(opts.Proxy))
		}
		tr.Proxy = http.ProxyURL(u)
	}
	return &http.Client{Transport: tr}, nil
}

// redactURL drops the user info of a proxy URL for error messages.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		if i := strings.LastIndex(s, "@"); i >= 0 {
			return "…" + s[i:]
		}
		return s
	}
	u.User = url.User("xxxxx")
	return u.String()
}

// validate says why the settings cannot work.
func (a *Adapter) validate() error {
	o := a.opts
	if o.Token == "" {
		return errors.New("telegram: botToken is required")
	}
	if strings.ContainsAny(o.Token, "/?#% \t\r\n") {
		return errors.New("telegram: botToken has characters a token cannot have")
	}
	if a.clientErr != nil {
		return a.clientErr
	}
	u, err := url.Parse(o.APIRoot)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		strings.Contains(o.APIRoot, "%") { // the endpoint is a format string
		return fmt.Errorf("telegram: apiRoot %q is not an http(s) URL", o.APIRoot)
	}
	if o.WebhookURL != "" {
		w, err := url.Parse(o.WebhookURL)
		if err != nil || (w.Scheme != "https" && w.Scheme != "http") || w.Host == "" {
			return fmt.Errorf("telegram: webhookUrl %q is not an http(s) URL", o.WebhookURL)
		}
		if !validSecret(o.WebhookSecret) {
			return errors.New("telegram: webhookSecret is required in webhook mode (1-256 of A-Z, a-z, 0-9, _ and -)")
		}
		if !strings.HasPrefix(o.WebhookPath, "/") {
			return fmt.Errorf("telegram: webhookPath %q must start with /", o.WebhookPath)
		}
	}
	return nil
}

func validSecret(s string) bool {
	if len(s) == 0 || len(s) > 256 {
		return false
	}
	for _, c := range s {
		ok := c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// Start validates the settings and starts connecting in the background:
// getMe, then setWebhook (webhook mode) or deleteWebhook and the
// long-poll loop. Connection trouble is reported through sink.Status.
func (a *Adapter) Start(ctx context.Context, sink channels.Sink) error {
	if err := a.validate(); err != nil {
		return err
	}
	return a.life.Start(ctx, sink, a.run)
}

// Stop ends polling and waits for the loop, or until ctx is done. Updates
// not yet confirmed are redelivered by Telegram to the next run (a
// webhook stays registered, so Telegram keeps them queued). Stop on an
// adapter that never started does nothing. An Adapter runs once: build a
// new one to start again.
func (a *Adapter) Stop(ctx context.Context) error {
	return a.life.Stop(ctx)
}

// TextLimit is the longest message in UTF-16 units.
func (a *Adapter) TextLimit() int { return a.opts.TextLimit }

// ChunkMode is "length" or "newline".
func (a *Adapter) ChunkMode() string { return a.opts.ChunkMode }

// WebhookPath is where the gateway mounts ServeHTTP, or "" in long-polling
// mode (nothing to mount).
func (a *Adapter) WebhookPath() string {
	if a.opts.WebhookURL == "" {
		return ""
	}
	return a.opts.WebhookPath
}
