package rpc

import (
	"context"
	"net/netip"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// Pairing decides what a connection with a verified device identity may
// do. The rpc server verifies the device's signature first; Pairing only
// sees proven identities. Implementations must be safe for concurrent use.
type Pairing interface {
	// AuthorizeDevice returns the grant for a device that proved its key,
	// or a *protocol.Error (NOT_PAIRED with PAIRING_REQUIRED details) when
	// an operator must approve it first. It may block on the store.
	AuthorizeDevice(ctx context.Context, d DeviceConnect) (DeviceGrant, error)
	// VerifyDeviceToken checks a device token presented instead of the
	// shared secret and returns the scopes it carries, or a
	// *protocol.Error with AUTH_DEVICE_TOKEN_MISMATCH.
	VerifyDeviceToken(ctx context.Context, deviceID, role, token string) ([]string, error)
}

// DeviceConnect is a device identity asking to connect.
type DeviceConnect struct {
	DeviceID  string
	PublicKey string
	Role      protocol.Role
	// Scopes are the scopes asked for (normalised).
	Scopes   []string
	Client   protocol.ClientInfo
	RemoteIP netip.Addr
	// Local is a direct loopback connection with no browser origin.
	Local bool
	// SharedSecret is true when the connect carried a valid shared
	// secret, or the gateway runs with auth mode none.
	SharedSecret bool
	// DeviceTokenScopes is non-nil when the device authenticated with its
	// own device token; the grant must stay within these scopes.
	DeviceTokenScopes []string
	// ProxyUser is the user a trusted proxy authenticated, or "".
	ProxyUser string
	// ProxyAutoApprove, when non-nil, lets a new browser device of
	// ProxyUser pair without asking, with at most these scopes
	// (gateway.auth.trustedProxy.deviceAutoApprove).
	ProxyAutoApprove []string
	// ProxyScopeCap narrows what that device is paired with, when
	// ProxyHasCap (the proxy's x-openclaw-scopes header).
	ProxyScopeCap []string
	ProxyHasCap   bool
}

// DeviceGrant is what an approved device gets.
type DeviceGrant struct {
	Scopes []string
	// DeviceToken, when set, is returned in hello-ok for later reconnects.
	DeviceToken string
	IssuedAtMs  int64
}
