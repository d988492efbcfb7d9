package discord

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/openclaw-go/openclaw/channels"
)

// Channel is the network id Inbound events carry.
const Channel = "discord"

// Defaults of Options.
const (
	DefaultAPIBase            = "https://discord.com/"
	DefaultTextLimit          = 2000
	DefaultMaxLinesPerMessage = 17
	DefaultMediaMaxMb         = 10 // Discord's upload limit for unboosted servers
	DefaultCallTimeout        = 60 * time.Second
	DefaultBackoffMin         = time.Second
	DefaultBackoffMax         = 2 * time.Minute

	// maxTextLimit is Discord's hard limit for one message's content.
	maxTextLimit = 2000
)

// Options configure one Discord bot account. The zero value of every
// optional field means its default.
type Options struct {
	// AccountID names the account in Inbound events and logs.
	AccountID string
	// Token is the bot token (without the "Bot " prefix, which is added;
	// one with it is accepted too). Required. It never appears in logs
	// or errors.
	Token string
	// APIBase is the REST base URL, default https://discord.com/ (the
	// API lives under api/v9/). Process-wide: see SetAPIBase.
	APIBase string
	// GatewayURL overrides the gateway WebSocket URL that would otherwise
	// come from GET gateway/bot; for tests.
	GatewayURL string
	// TextLimit is the longest message in UTF-16 units; default and
	// maximum 2000.
	TextLimit int
	// MaxLinesPerMessage splits a message with more lines into several;
	// default 17. Negative means no line limit.
	MaxLinesPerMessage int
	// ChunkMode is "length" (default) or "newline".
	ChunkMode string
	// AllowBots lets messages of other bots through (never our own).
	AllowBots bool
	// MediaMaxMb caps outbound attachments; default 10 (Discord's upload
	// limit without server boosts).
	MediaMaxMb int
	// MentionAliases maps a handle the agent writes as "@Handle" to the
	// Discord user id it mentions and pings (mentionAliases).
	MentionAliases map[string]string
	// SuppressEmbeds sends replies with Discord's SUPPRESS_EMBEDS flag,
	// so links show no preview (channels.discord.suppressEmbeds).
	SuppressEmbeds bool
	// Proxy is an http(s) proxy for REST and the Gateway; "" follows the
	// environment (HTTPS_PROXY). Its credentials never reach logs or
	// errors.
	Proxy string
	// Presence is sent with IDENTIFY (status, activity); nil for
	// Discord's default (online, no activity).
	Presence map[string]any
	// CallTimeout bounds every REST call; default 60s.
	CallTimeout time.Duration
	// BackoffMin and BackoffMax bound the exponential reconnect backoff
	// (with jitter); defaults 1s and 2m.
	BackoffMin, BackoffMax time.Duration
	// Log receives the adapter's logs; default discard.
	Log *slog.Logger
	// HTTPClient replaces the default REST client (no overall timeout;
	// each call gets CallTimeout).
	HTTPClient *http.Client
}

// Adapter is one Discord bot. It implements channels.Adapter and the
// capabilities Discord has; see the compile-time guards below.
type Adapter struct {
	opts   Options
	log    *slog.Logger
	client *http.Client // REST, with the status-recording transport
	rest   *discordgo.Session
	base   *url.URL

	self atomic.Pointer[botIdentity] // set from READY

	threads  sync.Map // channel id → threadInfo, learnt from events and lookups
	botRoles sync.Map // role id → true for the bot's managed roles (GUILD_CREATE)

	life channels.Runner
}

// botIdentity is who the bot is, for mentions and interaction follow-ups.
type botIdentity struct {
	ID       string
	Username string
	AppID    string
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
	_ channels.MediaFetcher     = (*Adapter)(nil)
)

// New returns an adapter for opts with defaults filled in. It does no I/O
// but points discordgo's endpoints at opts.APIBase (see SetAPIBase). Start
// validates the settings and connects; Send and the other actions work
// without Start.
func New(opts Options) *Adapter {
	if opts.APIBase == "" {
		opts.APIBase = DefaultAPIBase
	}
	if !strings.HasSuffix(opts.APIBase, "/") {
		opts.APIBase += "/"
	}
	opts.Token = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(opts.Token), "Bot "))
	if opts.TextLimit <= 0 {
		opts.TextLimit = DefaultTextLimit
	}
	opts.TextLimit = min(opts.TextLimit, maxTextLimit)
	if opts.MaxLinesPerMessage == 0 {
		opts.MaxLinesPerMessage = DefaultMaxLinesPerMessage
	}
	if opts.ChunkMode != channels.ChunkNewline {
		opts.ChunkMode = channels.ChunkLength
	}
	if opts.MediaMaxMb <= 0 {
		opts.MediaMaxMb = DefaultMediaMaxMb
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
	a := &Adapter{
		opts: opts,
		log:  channels.AdapterLog(opts.Log, Channel, opts.AccountID),
	}
	a.life = channels.Runner{Channel: Channel, Bot: a.botName}
	a.base, _ = url.Parse(opts.APIBase)
	SetAPIBase(opts.APIBase)

	var base http.RoundTripper = http.DefaultTransport
	if opts.HTTPClient != nil && opts.HTTPClient.Transport != nil {
		base = opts.HTTPClient.Transport
	} else if u := a.proxyURL(); u != nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.Proxy = http.ProxyURL(u)
		base = tr
	}
	a.client = &http.Client{Transport: &recorder{next: base}}
	if opts.HTTPClient != nil {
		a.client.Jar = opts.HTTPClient.Jar
		a.client.Timeout = opts.HTTPClient.Timeout
	}
	// discordgo.New does no I/O and cannot fail for a bot token.
	a.rest, _ = discordgo.New("Bot " + opts.Token)
	a.rest.Client = a.client
	a.rest.ShouldRetryOnRateLimit = false // a 429 becomes a RetryableError
	a.rest.MaxRestRetries = 0
	a.rest.LogLevel = -1 // discordgo logs through the std logger; we log ourselves
	a.rest.UserAgent = "DiscordBot (https://github.com/openclaw-go/openclaw, 1) openclaw-go"
	return a
}

// botName is the bot's username once READY told it.
func (a *Adapter) botName() string {
	if me := a.self.Load(); me != nil {
		return me.Username
	}
	return ""
}

var endpointsMu sync.Mutex

// SetAPIBase points discordgo's REST endpoints (package variables derived
// from EndpointDiscord) at base, e.g. "https://discord.com/" or a fake's
// URL. It is process-wide: every discordgo user in the process follows.
// It writes only when base changes, so adapters that agree never race.
func SetAPIBase(base string) {
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	endpointsMu.Lock()
	defer endpointsMu.Unlock()
	if discordgo.EndpointDiscord == base {
		return
	}
	api := base + "api/v" + discordgo.APIVersion + "/"
	discordgo.EndpointDiscord = base
	discordgo.EndpointAPI = api
	discordgo.EndpointGuilds = api + "guilds/"
	discordgo.EndpointChannels = api + "channels/"
	discordgo.EndpointUsers = api + "users/"
	discordgo.EndpointGateway = api + "gateway"
	discordgo.EndpointGatewayBot = discordgo.EndpointGateway + "/bot"
	discordgo.EndpointWebhooks = api + "webhooks/"
	discordgo.EndpointStickers = api + "stickers/"
	discordgo.EndpointStageInstances = api + "stage-instances"
	discordgo.EndpointSKUs = api + "skus"
	discordgo.EndpointVoice = api + "/voice/"
	discordgo.EndpointVoiceRegions = discordgo.EndpointVoice + "regions"
	discordgo.EndpointNitroStickersPacks = api + "/sticker-packs"
	discordgo.EndpointGuildCreate = api + "guilds"
	discordgo.EndpointApplications = api + "applications"
	discordgo.EndpointOAuth2 = api + "oauth2/"
	discordgo.EndpointOAuth2Applications = discordgo.EndpointOAuth2 + "applications"
	discordgo.EndpointOauth2 = discordgo.EndpointOAuth2
	discordgo.EndpointOauth2Applications = discordgo.EndpointOAuth2Applications
}

// validate says why the settings cannot work.
func (a *Adapter) validate() error {
	o := a.opts
	if o.Token == "" {
		return errors.New("discord: token is required")
	}
	if strings.ContainsAny(o.Token, " \t\r\n") {
		return errors.New("discord: token has characters a token cannot have")
	}
	if a.base == nil || (a.base.Scheme != "http" && a.base.Scheme != "https") || a.base.Host == "" {
		return fmt.Errorf("discord: apiBase %q is not an http(s) URL", o.APIBase)
	}
	if o.Proxy != "" && a.proxyURL() == nil {
		return fmt.Errorf("discord: proxy %q is not an http(s) URL", redactProxy(o.Proxy))
	}
	if o.GatewayURL != "" {
		u, err := url.Parse(o.GatewayURL)
		if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
			return fmt.Errorf("discord: gatewayUrl %q is not a ws(s) URL", o.GatewayURL)
		}
	}
	return nil
}

// Start validates the settings and connects in the background. Connection
// trouble is reported through sink.Status.
func (a *Adapter) Start(ctx context.Context, sink channels.Sink) error {
	if err := a.validate(); err != nil {
		return err
	}
	return a.life.Start(ctx, sink, a.run)
}

// Stop closes the gateway connection and waits for the reader, or until
// ctx is done. Stop on an adapter that never started does nothing. An
// Adapter runs once: build a new one to start again.
func (a *Adapter) Stop(ctx context.Context) error {
	return a.life.Stop(ctx)
}

// TextLimit is the longest message in UTF-16 units.
func (a *Adapter) TextLimit() int { return a.opts.TextLimit }

// ChunkMode is "length" or "newline".
func (a *Adapter) ChunkMode() string { return a.opts.ChunkMode }

// proxyURL is Options.Proxy parsed, nil when unset or not an http(s) URL.
func (a *Adapter) proxyURL() *url.URL {
	if a.opts.Proxy == "" {
		return nil
	}
	u, err := url.Parse(a.opts.Proxy)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil
	}
	return u
}

// redactProxy hides a proxy URL's credentials ("user:pass@").
func redactProxy(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		u.User = url.User("xxxxx")
		return u.String()
	}
	if i := strings.LastIndex(s, "@"); i >= 0 {
		return "…" + s[i:]
	}
	return s
}
