package protocol

import (
	"errors"
	"fmt"
)

// Top-level error codes (error.code). Clients branch on these and on the
// detail codes, never on message text.
const (
	CodeNotLinked           = "NOT_LINKED"
	CodeNotPaired           = "NOT_PAIRED"
	CodeAgentTimeout        = "AGENT_TIMEOUT"
	CodeAgentResultNotFound = "AGENT_RESULT_NOT_FOUND"
	CodeInvalidRequest      = "INVALID_REQUEST"
	CodeForbidden           = "FORBIDDEN"
	CodeApprovalNotFound    = "APPROVAL_NOT_FOUND"
	CodeUnavailable         = "UNAVAILABLE"

	// A node host's answers to an invocation (node.invoke.result's
	// error.code): the exec policy refused system.run, or the command ran
	// out of time.
	CodeSystemRunDenied = "SYSTEM_RUN_DENIED"
	CodeTimeout         = "TIMEOUT"
)

// Detail codes (error.details.code).
const (
	DetailMissingScope     = "MISSING_SCOPE"
	DetailProtocolMismatch = "PROTOCOL_MISMATCH"

	DetailAuthRequired              = "AUTH_REQUIRED"
	DetailAuthUnauthorized          = "AUTH_UNAUTHORIZED"
	DetailAuthTokenMissing          = "AUTH_TOKEN_MISSING"
	DetailAuthTokenMismatch         = "AUTH_TOKEN_MISMATCH"
	DetailAuthTokenNotConfigured    = "AUTH_TOKEN_NOT_CONFIGURED"
	DetailAuthPasswordMissing       = "AUTH_PASSWORD_MISSING"
	DetailAuthPasswordMismatch      = "AUTH_PASSWORD_MISMATCH"
	DetailAuthPasswordNotConfigured = "AUTH_PASSWORD_NOT_CONFIGURED"
	DetailAuthRateLimited           = "AUTH_RATE_LIMITED"
	DetailAuthDeviceTokenMismatch   = "AUTH_DEVICE_TOKEN_MISMATCH"
	DetailAuthScopeMismatch         = "AUTH_SCOPE_MISMATCH"

	DetailDeviceIdentityRequired    = "DEVICE_IDENTITY_REQUIRED"
	DetailPairingRequired           = "PAIRING_REQUIRED"
	DetailDeviceAuthIDMismatch      = "DEVICE_AUTH_DEVICE_ID_MISMATCH"
	DetailDeviceAuthExpired         = "DEVICE_AUTH_SIGNATURE_EXPIRED"
	DetailDeviceAuthNonceRequired   = "DEVICE_AUTH_NONCE_REQUIRED"
	DetailDeviceAuthNonceMismatch   = "DEVICE_AUTH_NONCE_MISMATCH"
	DetailDeviceAuthSigInvalid      = "DEVICE_AUTH_SIGNATURE_INVALID"
	DetailDeviceAuthKeyInvalid      = "DEVICE_AUTH_PUBLIC_KEY_INVALID"
	DetailDeviceAuthInvalid         = "DEVICE_AUTH_INVALID"
	DetailControlUIOriginNotAllowed = "CONTROL_UI_ORIGIN_NOT_ALLOWED"

	// Connect refusals this gateway never sends but a node host treats as
	// final when another gateway does.
	DetailAuthBootstrapTokenInvalid  = "AUTH_BOOTSTRAP_TOKEN_INVALID"
	DetailAuthIdentityHeaderRequired = "AUTH_IDENTITY_HEADER_REQUIRED"
	DetailClientVersionMismatch      = "CLIENT_VERSION_MISMATCH"

	// Node invocations. DetailNotConnected: the node is offline or went
	// away during the invoke; retry once it reconnects. DetailTimeout: the
	// node did not answer in time; the command may still have run.
	DetailNotConnected = "NOT_CONNECTED"
	DetailTimeout      = "TIMEOUT"
	// DetailCommandNotAllowed: the node did not declare the command or the
	// policy refuses it. Retrying does not help; change the config.
	DetailCommandNotAllowed = "COMMAND_NOT_ALLOWED"
	// DetailApprovalRequired: system.run goes through exec approvals, not
	// plain node.invoke.
	DetailApprovalRequired = "EXEC_APPROVAL_REQUIRED"
	// DetailUnknownNode: no node with that id has ever connected.
	DetailUnknownNode = "UNKNOWN_NODE"
	// DetailUnknownInvoke: a node.invoke.result for an id nobody waits on
	// (unknown, finished or timed out).
	DetailUnknownInvoke = "UNKNOWN_INVOKE"
	// DetailNodeError: the node answered ok:false; details.nodeError
	// holds its {code, message}.
	DetailNodeError = "NODE_ERROR"
	// DetailUnknownRequest: node.pair.approve/reject of a request id that
	// is unknown, expired or already resolved. List the pending requests
	// again; the node makes a new one when it reconnects.
	DetailUnknownRequest = "UNKNOWN_REQUEST"

	// DetailCronJobNotFound: cron.* named a job id the scheduler does not
	// hold (details.jobId).
	DetailCronJobNotFound = "CRON_JOB_NOT_FOUND"

	// Writes guarded by a base hash: config.* (CONFIG_BASE_HASH_MISMATCH)
	// and the exec approvals files (BASE_HASH_*).
	DetailConfigBaseHashMismatch = "CONFIG_BASE_HASH_MISMATCH"
	DetailInvalidConfig          = "INVALID_CONFIG"
	DetailBaseHashMismatch       = "BASE_HASH_MISMATCH"
	DetailBaseHashRequired       = "BASE_HASH_REQUIRED"
	// DetailToolError is tools.invoke's error.code when the tool failed.
	DetailToolError = "TOOL_ERROR"
)

// Close codes the server uses.
const (
	ClosePolicy           = 1008 // auth, pairing, handshake, slow consumer
	CloseProtocolMismatch = 1002
	CloseGoingAway        = 1001 // shutdown
	CloseServiceRestart   = 1012
	CloseTryAgainLater    = 1013
)

// Error is the wire error object. It is also a Go error so handlers can
// return it directly; any other error a handler returns is reported as
// UNAVAILABLE with its message.
type Error struct {
	Code         string `json:"code"`
	Message      string `json:"message"`
	Details      any    `json:"details,omitempty"`
	Retryable    *bool  `json:"retryable,omitempty"`
	RetryAfterMs *int64 `json:"retryAfterMs,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf makes an Error with a code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithDetails returns e with details attached.
func (e *Error) WithDetails(d any) *Error { e.Details = d; return e }

// InvalidParams is the error for params that fail to decode or validate.
func InvalidParams(method string, err error) *Error {
	return Errorf(CodeInvalidRequest, "invalid %s params: %v", method, err)
}

// UnknownMethod is the error for a method nobody serves.
func UnknownMethod(method string) *Error {
	return Errorf(CodeInvalidRequest, "unknown method: %s", method)
}

// MissingScope is the error for a call the connection's scopes don't cover.
func MissingScope(scope Scope) *Error {
	return Errorf(CodeForbidden, "missing scope: %s", scope).WithDetails(map[string]any{
		"code": DetailMissingScope, "missingScope": string(scope), "requiredScopes": []string{string(scope)},
	})
}

// AsError converts any handler error into a wire Error.
func AsError(err error) *Error {
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	return &Error{Code: CodeUnavailable, Message: err.Error()}
}
