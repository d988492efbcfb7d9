package host

import (
	"errors"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// ErrAuthRefused is wrapped by the error Run returns when the gateway
// refused the node in a way retrying cannot fix: a wrong or missing shared
// secret, a revoked or rotated device token, an invalid device signature
// or a protocol mismatch. The caller stops and tells a person; restarting
// without changing the credentials fails the same way.
var ErrAuthRefused = errors.New("gateway refused the node")

// terminalDetails are the connect refusals that end Run.
var terminalDetails = map[string]bool{
	protocol.DetailAuthTokenMissing:           true,
	protocol.DetailAuthTokenMismatch:          true,
	protocol.DetailAuthPasswordMissing:        true,
	protocol.DetailAuthPasswordMismatch:       true,
	protocol.DetailAuthDeviceTokenMismatch:    true,
	protocol.DetailAuthScopeMismatch:          true,
	protocol.DetailAuthTokenNotConfigured:     true,
	protocol.DetailAuthPasswordNotConfigured:  true,
	protocol.DetailDeviceIdentityRequired:     true,
	protocol.DetailDeviceAuthIDMismatch:       true,
	protocol.DetailDeviceAuthNonceRequired:    true,
	protocol.DetailDeviceAuthSigInvalid:       true,
	protocol.DetailDeviceAuthKeyInvalid:       true,
	protocol.DetailDeviceAuthInvalid:          true,
	protocol.DetailProtocolMismatch:           true,
	protocol.DetailAuthBootstrapTokenInvalid:  true,
	protocol.DetailAuthIdentityHeaderRequired: true,
	protocol.DetailClientVersionMismatch:      true,
}

// detailCode returns error.details.code, or "".
func detailCode(e *protocol.Error) string {
	m, _ := e.Details.(map[string]any)
	s, _ := m["code"].(string)
	return s
}

// detailString returns error.details[key] when it is a string.
func detailString(e *protocol.Error, key string) string {
	m, _ := e.Details.(map[string]any)
	s, _ := m[key].(string)
	return s
}

// isUnknownMethod reports whether a gateway answered that it does not
// serve a method. There is no detail code for it; the real node host
// matches the message the same way.
func isUnknownMethod(err error) bool {
	var pe *protocol.Error
	return errors.As(err, &pe) && pe.Code == protocol.CodeInvalidRequest &&
		strings.HasPrefix(pe.Message, "unknown method")
}

// invalid is an INVALID_REQUEST invocation error; the message carries the
// code as a prefix, as the real node host's errors do.
func invalid(format string, args ...any) *protocol.Error {
	return protocol.Errorf(protocol.CodeInvalidRequest, "INVALID_REQUEST: "+format, args...)
}

// unavailable is an UNAVAILABLE invocation error.
func unavailable(format string, args ...any) *protocol.Error {
	return protocol.Errorf(protocol.CodeUnavailable, format, args...)
}

// denied is a SYSTEM_RUN_DENIED error with the reason.
func denied(reason, message string) *protocol.Error {
	return protocol.Errorf(protocol.CodeSystemRunDenied, "SYSTEM_RUN_DENIED: %s", message).
		WithDetails(map[string]any{"reason": reason})
}
