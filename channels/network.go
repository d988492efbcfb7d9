package channels

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// Network describes one chat network to the manager: its names, what the
// core must know of it, and how its accounts are read from the config.
// Each adapter package declares its own from a Host (telegram.Network,
// ...); the gateway lists the networks it runs, so a new network is its
// package and one line there. The core never compares network names: what
// differs between networks is said here.
type Network struct {
	// Name is the channel id in config keys, session keys, targets and
	// bindings ("telegram").
	Name  string
	Label string // "Telegram"
	// Aliases are other names of the network in targets and in allowlist
	// entries ("tg" for Telegram).
	Aliases []string
	// TopicThreads says a chat's thread is a forum topic: session keys
	// name it as a topic rather than a thread (Telegram).
	TopicThreads bool
	// ReceiveMode is how a running account that serves no webhook hears
	// its network, as channels.status reports it: "polling" or, the
	// default, "socket".
	ReceiveMode string
	// DeviceLogin says accounts link a device (a QR or phone code) rather
	// than use a token from the config: web.login.start and wait without a
	// channel are for the first such network.
	DeviceLogin bool
	// AckWhenConfigured says the network acknowledges messages with a
	// reaction only when messages.ackReaction is set, never with the
	// agent's emoji by default (WhatsApp, as OpenClaw does).
	AckWhenConfigured bool
	// VoiceNotes says the network plays Ogg/Opus voice messages
	// natively (Telegram, WhatsApp, Discord): spoken replies are asked
	// for in Opus and sent as voice messages; elsewhere they go as an MP3
	// file.
	VoiceNotes bool
	// RoomEvents says the network's group chats can carry ambient room
	// events (messages.groupChat.unmentionedInbound "room_event"):
	// Discord guild channels, Slack channels, Telegram groups, as in
	// OpenClaw. Elsewhere unmentioned group messages stay user requests.
	RoomEvents bool
	// Accounts lists the configured accounts; nil when the channel's block
	// is absent.
	Accounts func(cfg *config.Config) []AccountSpec
}

// names reports whether name (any case) is the network's name or one of
// its aliases.
func (n Network) names(name string) bool {
	name = strings.ToLower(name)
	return name == n.Name || slices.Contains(n.Aliases, name)
}

// Host is what a network's config mapping takes from the gateway.
type Host struct {
	// Log is the channels' logger; a network adds its channel and each
	// account's id.
	Log *slog.Logger
	// Getenv reads the environment (tokens' fallbacks, test doubles' URLs).
	Getenv func(string) string
	// DB is the gateway's database, where a linked device is kept.
	DB *sql.DB
	// Throttle limits wrong secrets on the webhook served at path.
	Throttle func(path string) SecretThrottle
}

// AccountLog is the logger of one account of network.
func (h Host) AccountLog(network, accountID string) *slog.Logger {
	log := h.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return log.With("channel", network, "accountId", accountID)
}

// AccountSpec is one configured account.
type AccountSpec struct {
	AccountID string
	Name      string
	Default   bool
	Enabled   bool
	Policy    AccountPolicy
	// Fingerprint changes when a setting the adapter was built from
	// changes; the adapter is then restarted on reload.
	Fingerprint string
	New         func() (Adapter, error)
	// Commands is the network's channels.<name>.commands (its own native
	// and nativeSkills over commands.*).
	Commands config.ChannelCommandSettings
}

// Fingerprint identifies the settings an adapter is built from; a reload
// restarts the account only when it changes. Hashed, so no token is kept
// in the clear in one more place.
func Fingerprint(parts ...any) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprint(h, p, "\x00")
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CommonPolicy is the part of a channel account's policy every network
// shares; textLimit is the network's message size when the account sets
// none.
func CommonPolicy(cfg *config.Config, c config.ChannelCommon, streaming config.PreviewStreaming, textLimit int) AccountPolicy {
	p := AccountPolicy{
		DMPolicy: c.DMPolicy, AllowFrom: c.AllowFrom, GroupPolicy: c.GroupPolicy,
		MentionPatterns: c.MentionPatterns.Patterns, MentionScope: c.MentionPatterns.Scope, TextLimit: c.TextChunkLimit, ChunkMode: streaming.ChunkMode, StreamMode: streaming.Mode,
		ReplyToMode: c.ReplyToMode, ResponsePrefix: c.ResponsePrefix, HistoryLimit: c.HistoryLimit, Groups: map[string]GroupPolicy{},
		MediaMaxMb: c.MediaMaxMb,
	}
	if p.GroupPolicy == "" {
		p.GroupPolicy = cfg.Channels.Defaults.GroupPolicy
	}
	if p.TextLimit == 0 {
		p.TextLimit = textLimit
	}
	return p
}

// BoolOr is *p, or def when the config leaves it out.
func BoolOr(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

// network finds a running network by its name.
func (m *Manager) network(name string) (Network, bool) {
	for _, n := range m.opts.Networks {
		if n.Name == name {
			return n, true
		}
	}
	return Network{}, false
}

// loginChannel is the channel web.login.* link without one named: the
// first network that links devices ("" when none does).
func (m *Manager) loginChannel() string {
	for _, n := range m.opts.Networks {
		if n.DeviceLogin {
			return n.Name
		}
	}
	return ""
}
