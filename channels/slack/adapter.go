package slack

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

	slackapi "github.com/slack-go/slack"

	"github.com/openclaw-go/openclaw/channels"
)

// Channel is the network id Inbound events carry.
const Channel = "slack"

// Receive modes of Options.Mode.
const (
	ModeSocket = "socket" // Socket Mode over a WebSocket (needs AppToken)
	ModeHTTP   = "http"   // HTTP Events API at WebhookPath (needs SigningSecret)
)

// Defaults of Options.
const (
	DefaultAPIURL       = "https://slack.com/api/"
	DefaultTextLimit    = 4000
	DefaultMediaMaxMb   = 20
	DefaultSlashCommand = "/openclaw"
	DefaultPingTimeout  = 30 * time.Second
	DefaultCallTimeout  = 30 * time.Second
	DefaultBackoffMin   = time.Second
	DefaultBackoffMax   = time.Minute

	// maxTextLimit is what one chat.postMessage text may carry before
	// Slack truncates it.
	maxTextLimit = 40000
)

// Options configure one Slack app installation (one workspace bot). The
// zero value of every optional field means its default. Tokens and the
// signing secret never appear in logs or errors.
type Options struct {
	// AccountID names the account in Inbound events, logs and the default
	// WebhookPath.
	AccountID string
	// BotToken is the bot user OAuth token (xoxb-…). Required.
	BotToken string
	// AppToken is the app-level token (xapp-…) with connections:write;
	// required in Socket Mode.
	AppToken string
	// SigningSecret verifies HTTP Events requests; required in HTTP mode.
	SigningSecret string
	// Throttle limits requests with a bad signature per client in HTTP
	// mode; nil means none.
	Throttle channels.SecretThrottle
	// Mode is "socket" or "http". Default: socket when AppToken is set,
	// http when only SigningSecret is.
	Mode string
	// APIURL is the Web API base (slack.OptionAPIURL); default
	// https://slack.com/api/. Tests point it at slacktest.
	APIURL string
	// WebhookPath is where the gateway mounts ServeHTTP in HTTP mode;
	// default /slack/events/<AccountID> (/slack/events without one).
	WebhookPath string
	// TextLimit is the longest message in UTF-16 units; default 4000.
	TextLimit int
	// ChunkMode is "length" (default) or "newline".
	ChunkMode string
	// MediaMaxMb caps outbound attachments and FetchMedia's default;
	// default 20.
	MediaMaxMb int
	// UnfurlLinks lets Slack expand links in replies (unfurl_links, off
	// unless set); NoMediaUnfurl stops it expanding media (unfurl_media).
	UnfurlLinks, NoMediaUnfurl bool
	// NoReplyToBotMention stops a reply in a thread the bot started from
	// counting as a mention (implicitMentions.replyToBot false).
	NoReplyToBotMention bool
	// SlashCommand is the slash command handed to the agent as a message;
	// default /openclaw. Other commands are acknowledged and dropped.
	SlashCommand string
	// PingTimeout is how long a socket may stay silent (no ping, no
	// message) before it is dropped and reopened; default 30s.
	PingTimeout time.Duration
	// CallTimeout bounds every Web API call; default 30s.
	CallTimeout time.Duration
	// BackoffMin and BackoffMax bound the backoff (exponential with
	// jitter) between auth.test attempts, Receive retries and restarts of
	// the Socket Mode client; defaults 1s and 1m. Reopening a lost socket
	// is paced by slack-go itself (from 100ms, doubling, at most 5m).
	BackoffMin, BackoffMax time.Duration
	// Log receives the adapter's logs; default discard.
	Log *slog.Logger
	// HTTPClient replaces the default client for Web API calls, uploads,
	// response_url posts and file downloads.
	HTTPClient *http.Client
}

// Adapter is one Slack bot. It implements channels.Adapter and the
// capabilities Slack has; see the compile-time guards below.
type Adapter struct {
	opts   Options
	log    *slog.Logger
	client *http.Client
	api    *slackapi.Client

	self atomic.Pointer[botIdentity] // set once auth.test succeeded

	life channels.Runner
}

// botIdentity is who the bot is, from auth.test.
type botIdentity struct {
	UserID string // U…, what <@…> mentions carry
	BotID  string // B…, what the bot's own messages carry
	Name   string
	TeamID string
}

var (
	_ channels.Adapter          = (*Adapter)(nil)
	_ channels.Limits           = (*Adapter)(nil)
	_ channels.Editor           = (*Adapter)(nil)
	_ channels.Deleter          = (*Adapter)(nil)
	_ channels.Reactor          = (*Adapter)(nil)
	_ channels.Typer            = (*Adapter)(nil)
	_ channels.Pinner           = (*Adapter)(nil)
	_ channels.CallbackAnswerer = (*Adapter)(nil)
	_ channels.Infoer           = (*Adapter)(nil)
	_ channels.MediaFetcher     = (*Adapter)(nil)
	_ channels.Webhook          = (*Adapter)(nil)
)

// New returns an adapter for opts with defaults filled in. It does no
// I/O; Start validates the settings and connects. Send and the other
// actions work without Start.
func New(opts Options) *Adapter {
	if opts.Mode == "" {
		opts.Mode = ModeSocket
		if opts.AppToken == "" && opts.SigningSecret != "" {
			opts.Mode = ModeHTTP
		}
	}
	if opts.APIURL == "" {
		opts.APIURL = DefaultAPIURL
	}
	if !strings.HasSuffix(opts.APIURL, "/") {
		opts.APIURL += "/"
	}
	if opts.WebhookPath == "" {
		opts.WebhookPath = "/slack/events"
		if opts.AccountID != "" {
			opts.WebhookPath += "/" + url.PathEscape(opts.AccountID)
		}
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
	if opts.SlashCommand == "" {
		opts.SlashCommand = DefaultSlashCommand
	}
	if !strings.HasPrefix(opts.SlashCommand, "/") {
		opts.SlashCommand = "/" + opts.SlashCommand
	}
	if opts.PingTimeout <= 0 {
		opts.PingTimeout = DefaultPingTimeout
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.BackoffMin <= 0 {
		opts.BackoffMin = DefaultBackoffMin
	}
	if opts.BackoffMax < opts.BackoffMin {
		opts.BackoffMax = max(DefaultBackoffMax, opts.BackoffMin)
	}
	client := opts.HTTPClient
	if client == nil {
		client = &http.Client{}
	}
	a := &Adapter{
		opts:   opts,
		log:    channels.AdapterLog(opts.Log, Channel, opts.AccountID),
		client: client,
	}
	a.api = slackapi.New(opts.BotToken,
		slackapi.OptionAPIURL(opts.APIURL),
		slackapi.OptionAppLevelToken(opts.AppToken),
		slackapi.OptionHTTPClient(client),
	)
	// ForgetSink: the webhook answers 503 once stopped.
	a.life = channels.Runner{Channel: Channel, Bot: a.botName, ForgetSink: true}
	return a
}

// botName is the bot's name once auth.test told it.
func (a *Adapter) botName() string {
	if me := a.self.Load(); me != nil {
		return me.Name
	}
	return ""
}

// validate says why the settings cannot work. It never quotes a secret.
func (a *Adapter) validate() error {
	o := a.opts
	if o.BotToken == "" {
		return errors.New("slack: botToken is required")
	}
	if strings.ContainsAny(o.BotToken, " \t\r\n") {
		return errors.New("slack: botToken has characters a token cannot have")
	}
	u, err := url.Parse(o.APIURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("slack: apiUrl %q is not an http(s) URL", o.APIURL)
	}
	switch o.Mode {
	case ModeSocket:
		if o.AppToken == "" {
			return errors.New("slack: appToken (xapp-…) is required in socket mode; set signingSecret for HTTP mode instead")
		}
		if !strings.HasPrefix(o.AppToken, "xapp-") {
			return errors.New("slack: appToken must be an app-level token (xapp-…)")
		}
	case ModeHTTP:
		if o.SigningSecret == "" {
			return errors.New("slack: signingSecret is required in http mode (the events Request URL cannot be verified without it)")
		}
		if !strings.HasPrefix(o.WebhookPath, "/") {
			return fmt.Errorf("slack: webhookPath %q must start with /", o.WebhookPath)
		}
	default:
		return fmt.Errorf("slack: mode %q is neither %q nor %q", o.Mode, ModeSocket, ModeHTTP)
	}
	return nil
}

// Start validates the settings and starts connecting in the background:
// auth.test, then the Socket Mode loop (socket mode) or nothing more
// (HTTP mode: events arrive at ServeHTTP). Connection trouble is reported
// through sink.Status.
func (a *Adapter) Start(ctx context.Context, sink channels.Sink) error {
	if err := a.validate(); err != nil {
		return err
	}
	return a.life.Start(ctx, sink, a.run)
}

// Stop closes the socket and waits for the loop, or until ctx is done.
// Envelopes not yet acknowledged are redelivered by Slack to the next
// run. Stop on an adapter that never started does nothing. An Adapter
// runs once: build a new one to start again.
func (a *Adapter) Stop(ctx context.Context) error {
	return a.life.Stop(ctx)
}

// TextLimit is the longest message in UTF-16 units.
func (a *Adapter) TextLimit() int { return a.opts.TextLimit }

// ChunkMode is "length" or "newline".
func (a *Adapter) ChunkMode() string { return a.opts.ChunkMode }

// WebhookPath is where the gateway mounts ServeHTTP in HTTP mode, or ""
// in socket mode (nothing to mount).
func (a *Adapter) WebhookPath() string {
	if a.opts.Mode != ModeHTTP {
		return ""
	}
	return a.opts.WebhookPath
}
