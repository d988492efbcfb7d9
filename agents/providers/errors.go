package providers

import (
	"errors"
	"fmt"
	"time"
)

// ErrorKind classifies a provider failure; it decides retry and fallback.
type ErrorKind string

const (
	KindRateLimit     ErrorKind = "rate_limit"     // 429: retry after a pause, then fall back
	KindTimeout       ErrorKind = "timeout"        // no answer in time: retry, then fall back
	KindUnavailable   ErrorKind = "unavailable"    // 5xx or network: retry, then fall back
	KindAuth          ErrorKind = "auth"           // 401/403: fall back at once, never retry
	KindBadRequest    ErrorKind = "bad_request"    // 400: fall back at once
	KindContextLength ErrorKind = "context_length" // prompt too long: compact, do not retry
	KindRefusal       ErrorKind = "refusal"
	KindNotConfigured ErrorKind = "not_configured" // no provider or model to call
	KindCanceled      ErrorKind = "canceled"       // the caller's context was cancelled: stop
	KindUnknown       ErrorKind = "unknown"
)

// Error is a classified provider failure. Message never holds an API key.
type Error struct {
	Kind       ErrorKind
	Provider   string
	Model      string
	Status     int           // HTTP status, when there was one
	RetryAfter time.Duration // from Retry-After, when given
	Message    string
	Err        error
}

func (e *Error) Error() string {
	where := e.Provider
	if e.Model != "" {
		where += "/" + e.Model
	}
	if where == "" {
		return fmt.Sprintf("%s: %s", e.Kind, e.Message)
	}
	if e.Status != 0 {
		return fmt.Sprintf("%s: %s (HTTP %d): %s", where, e.Kind, e.Status, e.Message)
	}
	return fmt.Sprintf("%s: %s: %s", where, e.Kind, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether trying the same model again may succeed.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case KindRateLimit, KindTimeout, KindUnavailable:
		return true
	}
	return false
}

// KindOf returns the kind of err, KindUnknown for unclassified errors.
func KindOf(err error) ErrorKind {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Kind
	}
	return KindUnknown
}
