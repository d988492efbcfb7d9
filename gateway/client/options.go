package client

import (
	"log/slog"
	"net/http"
	"runtime"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// Defaults used when an Options field is left zero.
const (
	DefaultClientID         = "cli"
	DefaultClientMode       = "cli"
	DefaultVersion          = "dev"
	DefaultHandshakeTimeout = 15 * time.Second
	DefaultEventBuffer      = 256
	// DefaultWriteTimeout bounds one frame write when the caller's context
	// has no deadline.
	DefaultWriteTimeout = 10 * time.Second
)

// Options configure Dial. Only URL is required.
type Options struct {
	// URL is the gateway WebSocket address, e.g. ws://127.0.0.1:18789.
	URL string
	// TLSFingerprint pins a wss:// gateway's certificate: the hex SHA-256
	// of its DER encoding (colons allowed). When set, only that
	// certificate is accepted, signed by a known CA or not (a gateway's
	// own self-signed certificate).
	TLSFingerprint string

	// Shared-secret and device credentials sent in connect.params.auth.
	// Empty fields are left out.
	Token          string
	Password       string
	DeviceToken    string
	BootstrapToken string

	// Role is the connection role; default operator.
	Role protocol.Role
	// Scopes are the operator scopes asked for, sent as given.
	Scopes []string

	// ClientID is client.id (default "cli"); it must be one of
	// protocol.ClientIDs for a real gateway to accept it.
	ClientID string
	// ClientMode is client.mode (default "cli").
	ClientMode string
	// DisplayName is client.displayName, left out when empty.
	DisplayName string
	// Version is client.version (default "dev").
	Version string
	// Platform and DeviceFamily default from runtime.GOOS: linux gives
	// "linux"/"Linux", darwin "macos"/"Mac", windows "windows"/"Windows".
	Platform     string
	DeviceFamily string
	// InstanceID is client.instanceId; default a fresh random UUID.
	InstanceID string

	// Caps, Commands and PathEnv are sent as given (node hosts use them).
	Caps     []string
	Commands []string
	PathEnv  string

	// Identity, when set, signs the connect request: the v3 payload with
	// signedAt = the challenge ts and nonce = the challenge nonce.
	Identity *DeviceIdentity

	// Header is added to the WebSocket upgrade request (e.g. Origin).
	Header http.Header

	// Logger receives debug logs; default discards.
	Logger *slog.Logger

	// HandshakeTimeout bounds open-to-hello-ok (default 15 s). The
	// context given to Dial may end it sooner.
	HandshakeTimeout time.Duration

	// EventBuffer is the capacity of the Events channel (default 256).
	EventBuffer int
}

// withDefaults returns a copy of o with zero fields filled in.
func (o Options) withDefaults() Options {
	if o.Role == "" {
		o.Role = protocol.RoleOperator
	}
	if o.ClientID == "" {
		o.ClientID = DefaultClientID
	}
	if o.ClientMode == "" {
		o.ClientMode = DefaultClientMode
	}
	if o.Version == "" {
		o.Version = DefaultVersion
	}
	if o.Platform == "" || o.DeviceFamily == "" {
		p, f := Platform(runtime.GOOS)
		if o.Platform == "" {
			o.Platform = p
		}
		if o.DeviceFamily == "" {
			o.DeviceFamily = f
		}
	}
	if o.InstanceID == "" {
		o.InstanceID = uuid.NewString()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if o.EventBuffer <= 0 {
		o.EventBuffer = DefaultEventBuffer
	}
	return o
}

// Platform maps a Go GOOS to the client.platform and client.deviceFamily
// values the real clients send. Unknown systems get GOOS for both.
func Platform(goos string) (platform, deviceFamily string) {
	switch goos {
	case "linux":
		return "linux", "Linux"
	case "darwin":
		return "macos", "Mac"
	case "windows":
		return "windows", "Windows"
	default:
		return goos, goos
	}
}

// connectParams builds the connect request params from o (defaults
// applied). The device proof is added by the caller once the challenge is
// known.
func (o Options) connectParams() protocol.ConnectParams {
	p := protocol.ConnectParams{
		MinProtocol: protocol.Version,
		MaxProtocol: protocol.Version,
		Client: protocol.ClientInfo{
			ID:           o.ClientID,
			DisplayName:  o.DisplayName,
			Version:      o.Version,
			Platform:     o.Platform,
			DeviceFamily: o.DeviceFamily,
			Mode:         o.ClientMode,
			InstanceID:   o.InstanceID,
		},
		Caps:     o.Caps,
		Commands: o.Commands,
		PathEnv:  o.PathEnv,
		Role:     string(o.Role),
		Scopes:   o.Scopes,
	}
	auth := protocol.ConnectAuth{
		Token:          o.Token,
		Password:       o.Password,
		DeviceToken:    o.DeviceToken,
		BootstrapToken: o.BootstrapToken,
	}
	if auth != (protocol.ConnectAuth{}) {
		p.Auth = &auth
	}
	return p
}
