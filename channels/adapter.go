package channels

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Adapter is one account of one chat network. The contract is small on
// purpose: everything a network may or may not do is an optional
// capability below, discovered with a type assertion.
type Adapter interface {
	// Start connects and begins handing inbound events to sink. It returns
	// once the adapter is running; failures after that (network down,
	// token revoked) are reported through sink.Status and retried with
	// backoff by the adapter itself, never returned or panicked. An error
	// from Start means the settings cannot work (no token, bad URL).
	Start(ctx context.Context, sink Sink) error
	// Stop disconnects and waits for the adapter's goroutines. Events not
	// yet acknowledged upstream are redelivered by the network later.
	Stop(ctx context.Context) error
	// Send delivers one message. Text is the agent's Markdown, already cut
	// to the adapter's TextLimit; the adapter formats it for its network.
	// Errors that are worth retrying wrap *RetryableError.
	Send(ctx context.Context, msg Outbound) (Sent, error)
}

// Sink is where an adapter hands what it receives. The channels package
// implements it.
type Sink interface {
	// Receive stores the event durably (deduplicated on EventID) and
	// returns. Only after it returns nil may the adapter acknowledge the
	// event upstream (advance its poll offset, answer the webhook 200):
	// that is what makes an accepted message impossible to lose.
	Receive(ctx context.Context, in Inbound) error
	// Status reports the adapter's connection state whenever it changes.
	Status(st Status)
}

// ChatKind is the kind of conversation, as OpenClaw's bindings name it.
type ChatKind string

const (
	Direct  ChatKind = "direct"  // a one-to-one chat
	Group   ChatKind = "group"   // a group chat
	Channel ChatKind = "channel" // a broadcast channel or a server room
)

// EventKind says what happened.
type EventKind string

const (
	EventMessage  EventKind = "message"  // a new message
	EventEdit     EventKind = "edit"     // a message was edited
	EventReaction EventKind = "reaction" // someone reacted
	EventCallback EventKind = "callback" // someone pressed one of our buttons
	EventMember   EventKind = "member"   // someone joined or left
)

// Inbound is one event from a network, normalised.
type Inbound struct {
	Channel   string // network id, e.g. "telegram"
	AccountID string
	// EventID identifies the event on its network (Telegram: the update
	// id). Redeliveries carry the same id and are dropped.
	EventID   string
	Kind      EventKind
	MessageID string // the message the event is about
	Chat      Chat
	Sender    Sender
	Text      string
	// Mentioned is true when the network says the bot was mentioned
	// (an @mention entity, a reply to the bot).
	Mentioned bool
	// MentionsOthers is true when the message is addressed to someone
	// else: it mentions another user or role (not everyone), or replies
	// to another bot (Discord).
	MentionsOthers bool `json:",omitempty"`
	ReplyToID      string
	Media          []Media
	// CallbackID and CallbackData are set for EventCallback.
	CallbackID   string
	CallbackData string
	Reaction     string
	Time         time.Time
	// GuildID (a Discord server), TeamID (a Slack workspace) and the
	// sender's Roles feed bindings routing; empty where the network has
	// none.
	GuildID string
	TeamID  string
	Roles   []string
}

// Chat is where an event happened.
type Chat struct {
	ID       string
	Kind     ChatKind
	Title    string
	ThreadID string // forum topic or thread, "" for none
}

// Sender is who caused an event. ID is the network's stable id, never a
// changeable name: gates and allowlists compare only ids.
type Sender struct {
	ID       string
	Username string
	Name     string
	IsBot    bool
}

// Media is an attachment of an inbound message.
type Media struct {
	Kind   string // photo, document, audio, voice, video, sticker
	FileID string
	MIME   string
	Name   string
	Size   int64
}

// Target is where an outbound message goes.
type Target struct {
	ChatID   string
	ThreadID string
}

// Outbound is one message to send.
type Outbound struct {
	AccountID string
	To        Target
	Text      string // Markdown
	ReplyToID string
	Silent    bool
	// Attachments are files sent with the message (the text becomes the
	// caption when the network allows).
	Attachments []Attachment
	// Buttons are rows of inline buttons (Tool Guard approvals); networks
	// without buttons ignore them and the text must still make sense.
	Buttons [][]Button
	// IdempotencyKey is the same on every retry of one message.
	IdempotencyKey string
}

// Attachment is a file to send.
type Attachment struct {
	Path string // a local file
	Name string // the name shown; default the base of Path
	MIME string
	// Voice asks for a native voice message (Telegram sendVoice, a
	// WhatsApp push-to-talk note, a Discord voice message); the file is
	// Ogg/Opus. Networks without voice messages send it as a file.
	Voice bool `json:",omitempty"`
}

// Button is an inline button; Data comes back as Inbound.CallbackData.
type Button struct {
	Text string
	Data string
}

// Sent identifies a delivered message.
type Sent struct {
	MessageID string
}

// Status is an adapter's connection state.
type Status struct {
	State     State
	Detail    string // why, for people; never a secret
	Bot       string // the bot's own username once known
	Attempts  int    // reconnect attempts since the last success
	LastError string
	At        time.Time
}

// State is one of the states below.
type State string

const (
	StateStarting   State = "starting"
	StateConnected  State = "connected"
	StateBackingOff State = "backing-off"
	StateLoggedOut  State = "logged-out" // credentials refused; no retry until fixed
	StateStopped    State = "stopped"
)

// RetryableError marks a send failure worth retrying, after After when
// the network said so (HTTP 429 Retry-After).
type RetryableError struct {
	After time.Duration
	Err   error
}

func (e *RetryableError) Error() string {
	if e.After > 0 {
		return fmt.Sprintf("%v (retry after %s)", e.Err, e.After)
	}
	return e.Err.Error()
}

func (e *RetryableError) Unwrap() error { return e.Err }

// ErrUnsupported is returned (wrapped) for an action a network does not
// have.
var ErrUnsupported = errors.New("not supported by this channel")

// Optional capabilities. An adapter implements those its network has.
type (
	// Limits tells the pipeline how to cut replies.
	Limits interface {
		TextLimit() int    // longest message in UTF-16 units
		ChunkMode() string // "length" or "newline"
	}
	Editor interface {
		Edit(ctx context.Context, to Target, messageID, text string) error
	}
	Deleter interface {
		Delete(ctx context.Context, to Target, messageID string) error
	}
	Reactor interface {
		React(ctx context.Context, to Target, messageID, emoji string) error
	}
	// Typer shows "typing…" once; the pipeline repeats it while an agent
	// works.
	Typer interface {
		Typing(ctx context.Context, to Target) error
	}
	Poller interface {
		Poll(ctx context.Context, to Target, p Poll) (Sent, error)
	}
	Pinner interface {
		Pin(ctx context.Context, to Target, messageID string) error
		Unpin(ctx context.Context, to Target, messageID string) error
	}
	// CallbackAnswerer acknowledges a button press (stops the spinner).
	CallbackAnswerer interface {
		AnswerCallback(ctx context.Context, callbackID, text string) error
	}
	// CommandMenu publishes the native command menu.
	CommandMenu interface {
		SetCommands(ctx context.Context, cmds []Command) error
	}
	// Infoer describes chats and members.
	Infoer interface {
		ChatInfo(ctx context.Context, chatID string) (map[string]any, error)
		MemberInfo(ctx context.Context, chatID, userID string) (map[string]any, error)
	}
	// DirectOpener finds the direct-message chat with a user, on networks
	// where a user id is not a chat id (Discord, Slack); elsewhere the
	// user's id is their DM's.
	DirectOpener interface {
		OpenDirect(ctx context.Context, userID string) (chatID string, err error)
	}
	// ThreadVerifier confirms that a thread the caller named belongs to
	// the target chat, on networks where a thread id could name another
	// chat (a Discord thread id is a channel id). Manager.Action asks it
	// before any action on a target with a thread.
	ThreadVerifier interface {
		VerifyThread(ctx context.Context, to Target) error
	}
	// Reader reads a chat's recent messages, newest first (read).
	Reader interface {
		Read(ctx context.Context, to Target, q ReadQuery) (any, error)
	}
	// ReactionLister lists the reactions on a message (reactions); with
	// an emoji, who reacted with it, where the network says.
	ReactionLister interface {
		Reactions(ctx context.Context, to Target, messageID, emoji string, limit int) (any, error)
	}
	// PinLister lists a chat's pinned messages (list-pins).
	PinLister interface {
		ListPins(ctx context.Context, to Target) (any, error)
	}
	// Threader starts and lists threads (thread-create, thread-list).
	Threader interface {
		CreateThread(ctx context.Context, to Target, t ThreadSpec) (any, error)
		ListThreads(ctx context.Context, to Target, limit int) (any, error)
	}
	// ChannelLister lists the channels of the server or workspace the
	// chat belongs to (channel-list).
	ChannelLister interface {
		ListChannels(ctx context.Context, to Target) (any, error)
	}
	// Searcher searches messages (search).
	Searcher interface {
		Search(ctx context.Context, to Target, query string, limit int) (any, error)
	}
	// Roles reads and changes the roles of the chat's server (role-info,
	// role-add, role-remove).
	Roles interface {
		RoleInfo(ctx context.Context, to Target) (any, error)
		AddRole(ctx context.Context, to Target, userID, roleID string) error
		RemoveRole(ctx context.Context, to Target, userID, roleID string) error
	}
	// Moderator removes or silences members of the chat (or its server):
	// timeout (a zero until lifts it), kick and ban.
	Moderator interface {
		Timeout(ctx context.Context, to Target, userID string, until time.Time, reason string) error
		Kick(ctx context.Context, to Target, userID, reason string) error
		Ban(ctx context.Context, to Target, userID, reason string, deleteDays int) error
	}
	// PermissionsReader tells what a member (the bot when userID is "")
	// may do in the chat (permissions).
	PermissionsReader interface {
		Permissions(ctx context.Context, to Target, userID string) (any, error)
	}
	// EmojiLister lists the custom emoji of the chat's server or
	// workspace (emoji-list).
	EmojiLister interface {
		ListEmojis(ctx context.Context, to Target, limit int) (any, error)
	}
	// EmojiUploader adds a custom emoji to the chat's server from an
	// image file (emoji-upload).
	EmojiUploader interface {
		UploadEmoji(ctx context.Context, to Target, name, imagePath string) (any, error)
	}
	// StickerUploader adds a sticker to the chat's server from an image
	// file (sticker-upload).
	StickerUploader interface {
		UploadSticker(ctx context.Context, to Target, s StickerSpec, imagePath string) (any, error)
	}
	// StickerSender sends stickers, with an optional text (sticker).
	StickerSender interface {
		SendSticker(ctx context.Context, to Target, stickerIDs []string, text string) (Sent, error)
	}
	// VoiceStatuser tells which voice channel a member is in
	// (voice-status).
	VoiceStatuser interface {
		VoiceStatus(ctx context.Context, to Target, userID string) (any, error)
	}
	// Eventer lists and schedules the server's events (event-list,
	// event-create).
	Eventer interface {
		ListEvents(ctx context.Context, to Target) (any, error)
		CreateEvent(ctx context.Context, to Target, e EventSpec) (any, error)
	}
	// MediaFetcher downloads an inbound attachment (Inbound.Media) so the
	// agent can read it. It must refuse more than maxBytes.
	MediaFetcher interface {
		FetchMedia(ctx context.Context, m Media, maxBytes int64) (io.ReadCloser, error)
	}
	// LoginFlow is implemented by networks that link a device
	// interactively (WhatsApp's QR code). Login reports each code to show
	// through show (a QR payload or a pairing code) until the link
	// succeeds, fails or ctx ends; Logout unlinks the device.
	LoginFlow interface {
		Login(ctx context.Context, show func(LoginStep)) error
		Logout(ctx context.Context) error
	}
	// PhoneLogin links a device by a code typed on the phone instead of a
	// QR code (WhatsApp's "link with phone number").
	PhoneLogin interface {
		LoginWithPhone(ctx context.Context, phone string, show func(LoginStep)) error
	}
	// Webhook is implemented by adapters that receive over HTTP on the
	// gateway's port; the gateway mounts Handler at Path while running.
	Webhook interface {
		WebhookPath() string
		http.Handler
	}
)

// SecretThrottle limits wrong secrets on a webhook, so that Telegram's
// secret token or Slack's signing secret cannot be guessed at wire speed.
// The gateway implements it with its failed-auth limiter
// (gateway.auth.rateLimit), keyed by the webhook's path and the client's
// address. A webhook calls Admit before it looks at the secret (or reads
// the body it signs) and Failed when the secret was wrong or missing.
// Implementations must be safe for concurrent use.
type SecretThrottle interface {
	// Admit reports whether r's secret may be checked. When it may not,
	// Admit has answered r (429 with Retry-After while the client is
	// locked out), and the handler returns without checking anything.
	Admit(w http.ResponseWriter, r *http.Request) bool
	// Failed records a wrong or missing secret from r's client.
	Failed(r *http.Request)
}

// Poll is a question with options.
type Poll struct {
	Question     string
	Options      []string
	MultiSelect  bool
	Anonymous    bool
	DurationSecs int
}

// ReadQuery bounds a read: at most Limit messages (0: the network's
// default), older than Before or newer than After (message ids).
type ReadQuery struct {
	Limit  int
	Before string
	After  string
}

// ThreadSpec is a thread to start: named Name, on message MessageID
// when set (else a thread of its own), with Text as its first message.
type ThreadSpec struct {
	Name               string
	MessageID          string
	Text               string
	AutoArchiveMinutes int
}

// StickerSpec names a sticker to upload: Tags is the related emoji
// (Discord's autocomplete).
type StickerSpec struct {
	Name        string
	Description string
	Tags        string
}

// EventSpec is a scheduled event to create. Start is required; a voice
// or stage event names its ChannelID, an external one a Location and End.
type EventSpec struct {
	Name        string
	Description string
	Start       time.Time
	End         time.Time
	ChannelID   string
	Location    string
	Type        string // "voice", "stage" or "external"
}

// LoginStep is one thing to show a person linking a device.
type LoginStep struct {
	QR          string // payload to render as a QR code
	PairingCode string // code to type on the phone instead
	Done        bool
	Detail      string
}

// Command is one entry of a native command menu.
type Command struct {
	Name        string
	Description string
}
