package discord

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/openclaw-go/openclaw/channels"
)

// maxResponse caps how much of a REST answer is read.
const maxResponse = 32 << 20

// APIError is an error answer of the REST API. 429 and 5xx answers come
// wrapped in *channels.RetryableError; other 4xx are final (fix the
// request, or the bot lacks a permission); 401 means the token was refused.
type APIError struct {
	Op      string // what was being done, e.g. "send message"
	Status  int    // HTTP status
	Code    int    // Discord's JSON error code, 0 when none
	Message string // Discord's message
}

func (e *APIError) Error() string {
	if e.Code != 0 {
		return fmt.Sprintf("discord %s: HTTP %d: %s (code %d)", e.Op, e.Status, e.Message, e.Code)
	}
	return fmt.Sprintf("discord %s: HTTP %d: %s", e.Op, e.Status, e.Message)
}

var (
	// ErrMalformedResponse means the API answered something that is not
	// Discord's JSON. Not retried: the request may have taken effect.
	ErrMalformedResponse = errors.New("malformed Discord API response")
	// ErrTooLarge is returned for an attachment over MediaMaxMb (or media
	// over FetchMedia's cap); nothing is sent.
	ErrTooLarge = errors.New("attachment too large")
)

// Discord's JSON error codes the adapter acts on.
const (
	codeAlreadyAcknowledged = 40060
	codeUnknownMessage      = 10008
)

func isUnauthorized(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == http.StatusUnauthorized
}

// callInfo is what the recording transport saw of the last response of
// one call: discordgo drops the status and Retry-After of some answers.
type callInfo struct {
	status     int
	retryAfter string
}

type callInfoKey struct{}

// recorder is the REST client's transport: it notes status and
// Retry-After in the call's callInfo and caps the body.
type recorder struct{ next http.RoundTripper }

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if resp != nil {
		if ci, ok := req.Context().Value(callInfoKey{}).(*callInfo); ok {
			ci.status = resp.StatusCode
			ci.retryAfter = resp.Header.Get("Retry-After")
		}
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.LimitReader(resp.Body, maxResponse), resp.Body}
	}
	return resp, err
}

// call runs one discordgo REST method with a deadline and classifies its
// error. f gets the request options to pass on.
func (a *Adapter) call(ctx context.Context, op string, f func(opts ...discordgo.RequestOption) error) error {
	ctx, cancel := context.WithTimeout(ctx, a.opts.CallTimeout)
	defer cancel()
	ci := &callInfo{}
	ctx = context.WithValue(ctx, callInfoKey{}, ci)
	err := f(discordgo.WithContext(ctx))
	if err == nil {
		return nil
	}
	return a.classify(ctx, op, ci, err)
}

// classify turns a discordgo error into ours: *APIError for API answers,
// wrapped in *channels.RetryableError when worth retrying.
func (a *Adapter) classify(ctx context.Context, op string, ci *callInfo, err error) error {
	var rl *discordgo.RateLimitError
	if errors.As(err, &rl) && rl.RateLimit != nil && rl.TooManyRequests != nil {
		after := rl.RetryAfter
		if h := parseRetryAfter(ci.retryAfter); h > after {
			after = h
		}
		return &channels.RetryableError{After: after, Err: &APIError{Op: op, Status: http.StatusTooManyRequests,
			Message: a.scrub(cmp.Or(rl.Message, "rate limited"))}}
	}
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Response != nil {
		ae := &APIError{Op: op, Status: re.Response.StatusCode}
		if re.Message != nil {
			ae.Code, ae.Message = re.Message.Code, a.scrub(re.Message.Message)
		}
		if ae.Message == "" {
			ae.Message = a.scrub(strings.TrimSpace(http.StatusText(ae.Status)))
		}
		if ae.Status >= 500 || ae.Status == http.StatusTooManyRequests {
			return &channels.RetryableError{After: parseRetryAfter(re.Response.Header.Get("Retry-After")), Err: ae}
		}
		return ae
	}
	if cerr := ctx.Err(); cerr != nil {
		e := fmt.Errorf("discord %s: %w", op, cerr)
		if errors.Is(cerr, context.DeadlineExceeded) {
			return &channels.RetryableError{Err: e}
		}
		return e
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		// Transport trouble: refused, reset, timed out, DNS.
		return &channels.RetryableError{Err: fmt.Errorf("discord %s: %s", op, a.scrub(err.Error()))}
	}
	switch {
	case ci.status == http.StatusTooManyRequests:
		// A 429 whose body discordgo could not read.
		return &channels.RetryableError{After: parseRetryAfter(ci.retryAfter),
			Err: &APIError{Op: op, Status: ci.status, Message: "rate limited"}}
	case ci.status >= 500:
		// discordgo reports a 502 after its retries as a plain error.
		return &channels.RetryableError{Err: &APIError{Op: op, Status: ci.status, Message: a.scrub(firstLine(err.Error()))}}
	case ci.status != 0:
		return fmt.Errorf("discord %s: %w (HTTP %d): %s", op, ErrMalformedResponse, ci.status, a.scrub(firstLine(err.Error())))
	}
	return fmt.Errorf("discord %s: %s", op, a.scrub(err.Error()))
}

// parseRetryAfter reads a Retry-After header: seconds, possibly
// fractional as Discord sends them.
func parseRetryAfter(v string) time.Duration {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) || f > 86400 {
		return 0
	}
	return time.Duration(f * float64(time.Second))
}

// decode reads a JSON answer into out, as ErrMalformedResponse when it is
// not JSON.
func decode(op string, body []byte, out any) error {
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("discord %s: %w: %v", op, ErrMalformedResponse, err)
	}
	return nil
}

// scrub removes the token from s.
func (a *Adapter) scrub(s string) string {
	t := a.opts.Token
	if t == "" {
		return s
	}
	for _, v := range []string{t, url.PathEscape(t), url.QueryEscape(t)} {
		s = strings.ReplaceAll(s, v, "<redacted>")
	}
	return s
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
