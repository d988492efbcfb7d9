package slack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	slackapi "github.com/slack-go/slack"

	"github.com/openclaw-go/openclaw/channels"
)

// APIError is an error answer of the Slack Web API: Code is Slack's error
// string (channel_not_found, not_in_channel, invalid_auth, …) or, for a
// non-200 answer without one, "http_<status>". Rate limits and server
// errors come wrapped in *channels.RetryableError; the rest are final.
type APIError struct {
	Method string
	Code   string
	Status int // HTTP status when Slack answered other than 200
}

func (e *APIError) Error() string {
	return fmt.Sprintf("slack %s: %s", e.Method, e.Code)
}

var (
	// ErrMalformedResponse means the API answered something that is not a
	// Web API JSON answer. Not retried: the request may have taken effect.
	ErrMalformedResponse = errors.New("malformed Slack API response")
	// ErrTooLarge is returned for an attachment over MediaMaxMb (the
	// message is not sent) and for a download over its cap.
	ErrTooLarge = errors.New("file too large")
)

// authErrors are the answers that mean the token itself is refused:
// retrying cannot help until someone fixes the configuration.
var authErrors = []string{"invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive", "no_permission"}

// retryableCodes are error strings Slack uses for trouble on its side.
var retryableCodes = []string{"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"}

// isAuthError reports whether err says a token was refused.
func isAuthError(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) {
		return slices.Contains(authErrors, ae.Code)
	}
	var se slackapi.SlackErrorResponse
	if errors.As(err, &se) {
		return slices.Contains(authErrors, se.Err)
	}
	return false
}

// callCtx bounds one Web API call.
func (a *Adapter) callCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, a.opts.CallTimeout)
}

// classify turns a slack-go error into ours: *APIError for API answers,
// wrapped in *channels.RetryableError when worth retrying (429 with its
// Retry-After, 5xx, network trouble, a call that timed out). Every text is
// scrubbed of the tokens.
func (a *Adapter) classify(ctx context.Context, method string, err error) error {
	if err == nil {
		return nil
	}
	var rl *slackapi.RateLimitedError
	if errors.As(err, &rl) {
		return &channels.RetryableError{After: rl.RetryAfter,
			Err: &APIError{Method: method, Code: "ratelimited", Status: http.StatusTooManyRequests}}
	}
	var sc slackapi.StatusCodeError
	if errors.As(err, &sc) {
		ae := &APIError{Method: method, Code: fmt.Sprintf("http_%d", sc.Code), Status: sc.Code}
		if sc.Code == http.StatusTooManyRequests || sc.Code >= 500 {
			return &channels.RetryableError{Err: ae}
		}
		return ae
	}
	var se slackapi.SlackErrorResponse
	if errors.As(err, &se) {
		ae := &APIError{Method: method, Code: a.scrub(se.Err)}
		if slices.Contains(retryableCodes, se.Err) {
			return &channels.RetryableError{Err: ae}
		}
		return ae
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return err
	}
	if cerr := ctx.Err(); cerr != nil {
		e := fmt.Errorf("slack %s: %w", method, cerr)
		if errors.Is(cerr, context.DeadlineExceeded) {
			return &channels.RetryableError{Err: e}
		}
		return e
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("slack %s: %w: %s", method, ErrMalformedResponse, a.scrub(err.Error()))
	}
	// Transport trouble: refused, reset, timed out, DNS.
	return &channels.RetryableError{Err: fmt.Errorf("slack %s: %s", method, a.scrub(err.Error()))}
}

// scrub removes every secret of the account from s.
func (a *Adapter) scrub(s string) string {
	for _, secret := range []string{a.opts.BotToken, a.opts.AppToken, a.opts.SigningSecret} {
		if len(secret) >= 4 {
			s = strings.ReplaceAll(s, secret, "<redacted>")
		}
	}
	return s
}
