package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/openclaw-go/openclaw/channels"
)

// maxResponse caps how much of an API answer is read.
const maxResponse = 32 << 20

// APIError is an error answer of the Bot API. 429 and 5xx answers come
// wrapped in *channels.RetryableError; 400 and 403 are final (fix the
// request, or the bot was blocked); 401 means the token was refused.
type APIError struct {
	Method      string
	Code        int
	Description string
	RetryAfter  time.Duration
}

func (e *APIError) Error() string {
	return fmt.Sprintf("telegram %s: %d %s", e.Method, e.Code, e.Description)
}

var (
	// ErrMalformedResponse means the API answered something that is not a
	// Bot API JSON answer (a proxy's error page, a cut body). Not retried:
	// the request may have taken effect.
	ErrMalformedResponse = errors.New("malformed Bot API response")
	// ErrTooLarge is returned for an attachment over MediaMaxMb; the
	// message is not sent.
	ErrTooLarge = errors.New("attachment too large")
)

// isUnauthorized reports whether err says the token was refused.
func isUnauthorized(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == http.StatusUnauthorized
}

// isParseError reports Telegram's refusal of our HTML.
func isParseError(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == http.StatusBadRequest &&
		strings.Contains(strings.ToLower(ae.Description), "can't parse entities")
}

// isNotModified reports an edit that changed nothing.
func isNotModified(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == http.StatusBadRequest &&
		strings.Contains(strings.ToLower(ae.Description), "message is not modified")
}

// doer gives the library's requests a context and remembers the HTTP
// status, which the library drops for multipart calls.
type doer struct {
	ctx    context.Context
	c      *http.Client
	status int
}

func (d *doer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.c.Do(req.WithContext(d.ctx))
	if resp != nil {
		d.status = resp.StatusCode
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.LimitReader(resp.Body, maxResponse), resp.Body}
	}
	return resp, err
}

// call runs one Bot API method, with files as multipart when there are
// any, and returns its result. Every error is classified and scrubbed of
// the token.
func (a *Adapter) call(ctx context.Context, method string, params tgbotapi.Params, files []tgbotapi.RequestFile) (json.RawMessage, error) {
	timeout := a.opts.CallTimeout
	if method == "getUpdates" {
		timeout = a.opts.PollTimeout + 15*time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	d := &doer{ctx: ctx, c: a.client}
	bot := tgbotapi.BotAPI{Token: a.opts.Token, Client: d}
	bot.SetAPIEndpoint(a.endpoint)
	var (
		resp *tgbotapi.APIResponse
		err  error
	)
	if len(files) > 0 {
		resp, err = bot.UploadFiles(method, params, files)
	} else {
		resp, err = bot.MakeRequest(method, params)
	}
	if err != nil {
		return nil, a.classify(ctx, method, d.status, err)
	}
	return resp.Result, nil
}

// callInto runs method and decodes its result into out.
func (a *Adapter) callInto(ctx context.Context, method string, params tgbotapi.Params, out any) error {
	res, err := a.call(ctx, method, params, nil)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(res, out); err != nil {
		return fmt.Errorf("telegram %s: %w: result: %s", method, ErrMalformedResponse, a.scrub(err.Error()))
	}
	return nil
}

// classify turns a library error into ours: *APIError for API answers,
// wrapped in *channels.RetryableError when worth retrying.
func (a *Adapter) classify(ctx context.Context, method string, status int, err error) error {
	var te *tgbotapi.Error
	if errors.As(err, &te) {
		code := te.Code
		if code == 0 {
			code = status
		}
		ae := &APIError{Method: method, Code: code, Description: a.scrub(te.Message),
			RetryAfter: time.Duration(te.RetryAfter) * time.Second}
		if code == http.StatusTooManyRequests || te.RetryAfter > 0 || code >= 500 {
			return &channels.RetryableError{After: ae.RetryAfter, Err: ae}
		}
		return ae
	}
	if cerr := ctx.Err(); cerr != nil {
		e := fmt.Errorf("telegram %s: %w", method, cerr)
		if errors.Is(cerr, context.DeadlineExceeded) {
			return &channels.RetryableError{Err: e}
		}
		return e
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if status != 0 && (errors.As(err, &syn) || errors.As(err, &typ) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)) {
		e := fmt.Errorf("telegram %s: %w (HTTP %d): %s", method, ErrMalformedResponse, status, a.scrub(err.Error()))
		if status == http.StatusTooManyRequests || status >= 500 {
			return &channels.RetryableError{Err: e}
		}
		return e
	}
	// Transport trouble: refused, reset, timed out, DNS.
	return &channels.RetryableError{Err: fmt.Errorf("telegram %s: %s", method, a.scrub(err.Error()))}
}

// scrub removes the token from s (library and net/http errors carry the
// request URL, which contains it).
func (a *Adapter) scrub(s string) string {
	return scrubToken(s, a.opts.Token)
}

func scrubToken(s, token string) string {
	if token == "" {
		return s
	}
	for _, t := range []string{token, url.PathEscape(token), url.QueryEscape(token)} {
		s = strings.ReplaceAll(s, t, "<redacted>")
	}
	return s
}
