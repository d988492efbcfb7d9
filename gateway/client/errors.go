package client

import (
	"errors"
	"fmt"

	"github.com/gorilla/websocket"
)

// Errors a Client returns besides *protocol.Error (which means the gateway
// answered with ok:false; branch on its Code and details code).
var (
	// ErrClosed is returned by calls on a client that Close has shut.
	// The caller gives up or dials again.
	ErrClosed = errors.New("gateway client closed")

	// ErrConnectionLost wraps the cause when the socket fails or the
	// gateway closes it. Calls in flight get it too; the caller may redial
	// (with backoff) and retry what is safe to repeat.
	ErrConnectionLost = errors.New("gateway connection lost")

	// ErrBadChallenge means the gateway's connect.challenge lacked a nonce
	// or carried a non-integer ts. Redialing the same gateway will not help.
	ErrBadChallenge = errors.New("invalid connect challenge")
)

// CloseError describes a close frame the gateway sent. It is wrapped in
// ErrConnectionLost, so errors.As finds it.
type CloseError struct {
	Code   int
	Reason string
}

func (e *CloseError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("gateway closed the connection (%d)", e.Code)
	}
	return fmt.Sprintf("gateway closed the connection (%d): %s", e.Code, e.Reason)
}

// lostError wraps a read or write failure in ErrConnectionLost, turning a
// WebSocket close frame into a *CloseError.
func lostError(err error) error {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		return fmt.Errorf("%w: %w", ErrConnectionLost, &CloseError{Code: ce.Code, Reason: ce.Text})
	}
	return fmt.Errorf("%w: %w", ErrConnectionLost, err)
}
