package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// maxErrorBody bounds how much of an error response is kept for its message.
const maxErrorBody = 64 << 10

// maxMessage bounds the length of Error.Message taken from a server.
const maxMessage = 500

// call names the completion being classified.
type call struct {
	provider string
	model    string
	apiKey   string        // removed from every message
	timeout  time.Duration // the per-call timeout, for the message
}

// classify turns whatever ended a call into an *Error. ctx is the call's own
// context (with the per-call timeout); err is what the call returned, a
// *statusError for a non-2xx answer; streamBody is the JSON of an error
// event received inside a 200 stream, when there was one.
func (c call) classify(ctx context.Context, err error, streamBody []byte) *Error {
	err = c.scrub(err)
	e := &Error{Provider: c.provider, Model: c.model, Err: err}
	switch ctxErr := ctx.Err(); {
	case errors.Is(ctxErr, context.DeadlineExceeded):
		e.Kind, e.Err = KindTimeout, errors.Join(ctxErr, err)
		e.Message = "no complete answer before the caller's deadline"
		if errors.Is(context.Cause(ctx), errCallTimeout) {
			e.Message = fmt.Sprintf("no complete answer within the %s timeout", c.timeout)
		}
		return e
	case ctxErr != nil:
		e.Kind, e.Message, e.Err = KindCanceled, "call cancelled", errors.Join(ctxErr, err)
		return e
	}

	if be := (*buildError)(nil); errors.As(err, &be) {
		e.Kind, e.Message = be.kind, c.clean(be.msg, "build request")
		return e
	}
	if se := (*statusError)(nil); errors.As(err, &se) {
		info := parseErrorBody(se.body)
		e.Status = se.status
		e.Kind = kindForStatus(se.status, info)
		e.RetryAfter = retryAfter(se.header, time.Now())
		e.Message = c.clean(info.message, http.StatusText(se.status))
		return e
	}
	if len(streamBody) > 0 {
		info := parseErrorBody(streamBody)
		e.Kind = kindForStreamError(info)
		e.Message = c.clean("error in stream: "+info.message, "error in stream")
		return e
	}
	if errors.Is(err, errCrossOriginRedirect) {
		e.Kind, e.Message = KindNotConfigured, "the server redirected to another origin; the request was not sent there"
		return e
	}
	if isTransportError(err) {
		e.Kind = KindUnavailable
		e.Message = c.clean(transportMessage(err), "connection failed")
		return e
	}
	e.Kind, e.Message = KindUnknown, "unknown failure"
	if err != nil {
		e.Message = c.clean(err.Error(), e.Message)
	}
	return e
}

// clean removes the API key from a server's message and bounds its length.
func (c call) clean(msg, fallback string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		msg = fallback
	}
	msg = redact(msg, c.apiKey)
	if len(msg) > maxMessage {
		cut := maxMessage
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}

// scrub wraps err so that its text never shows the API key: errors may
// quote a server's body, and servers quote bad keys.
func (c call) scrub(err error) error {
	if err == nil || c.apiKey == "" {
		return err
	}
	return scrubbed{err: err, key: c.apiKey}
}

type scrubbed struct {
	err error
	key string
}

func (s scrubbed) Error() string { return redact(s.err.Error(), s.key) }
func (s scrubbed) Unwrap() error { return s.err }

// redact replaces every occurrence of key in s.
func redact(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

// errorInfo is what an error body says, whatever its dialect.
type errorInfo struct {
	message string
	typ     string // "rate_limit_error", "invalid_request_error", "server_error"...
	code    string // "context_length_exceeded", "429"...
}

// parseErrorBody reads the error bodies of OpenAI ({"error":{...}}),
// Anthropic ({"type":"error","error":{...}}), vLLM ({"object":"error",
// "message":...}), Ollama and llama.cpp ({"error":"..."}) and FastAPI
// ({"detail":"..."}); any other body is taken as plain text.
func parseErrorBody(body []byte) errorInfo {
	var top map[string]any
	if err := json.Unmarshal(body, &top); err != nil {
		return errorInfo{message: string(bytes.TrimSpace(body))}
	}
	obj := top
	switch inner := top["error"].(type) {
	case map[string]any:
		obj = inner
	case string:
		return errorInfo{message: inner}
	}
	info := errorInfo{message: text(obj["message"]), typ: text(obj["type"]), code: text(obj["code"])}
	if info.message == "" {
		info.message = text(top["detail"])
	}
	return info
}

// text renders a JSON scalar as a string; objects and null give "".
func text(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

func kindForStatus(status int, info errorInfo) ErrorKind {
	switch {
	case status == http.StatusTooManyRequests:
		return KindRateLimit
	case status == http.StatusUnauthorized, status == http.StatusForbidden,
		status == http.StatusPaymentRequired: // no credit left: like bad credentials
		return KindAuth
	case status == http.StatusRequestTimeout:
		return KindTimeout
	case status == http.StatusRequestEntityTooLarge:
		return KindContextLength
	case status >= 500:
		return KindUnavailable // 500, 502, 503, 504, Anthropic's 529 overloaded
	case status >= 400:
		if looksLikeContextLength(info) {
			return KindContextLength
		}
		return KindBadRequest
	}
	return KindUnknown
}

// kindForStreamError classifies an error event sent inside a 200 stream.
// The server failed part-way, so unless it says otherwise a retry may help.
func kindForStreamError(info errorInfo) ErrorKind {
	switch t := info.typ + " " + info.code; {
	case looksLikeContextLength(info):
		return KindContextLength
	case strings.Contains(t, "rate_limit"):
		return KindRateLimit
	case strings.Contains(t, "authentication"), strings.Contains(t, "permission"):
		return KindAuth
	case strings.Contains(t, "timeout"):
		return KindTimeout
	case strings.Contains(t, "invalid_request"):
		return KindBadRequest
	}
	return KindUnavailable
}

// contextLengthHints are the words servers use for a prompt that does not
// fit: OpenAI, Anthropic, vLLM, llama.cpp, Ollama, OpenRouter.
var contextLengthHints = []string{
	"context_length_exceeded", "context length", "context window", "context size",
	"maximum context", "prompt is too long", "too many tokens", "input is too long",
	"exceeds the context", "model_context_window_exceeded", "request_too_large",
}

func looksLikeContextLength(info errorInfo) bool {
	s := strings.ToLower(info.message + " " + info.code + " " + info.typ)
	for _, hint := range contextLengthHints {
		if strings.Contains(s, hint) {
			return true
		}
	}
	return false
}

// retryAfter reads Retry-After-Ms (OpenAI) or Retry-After, which holds
// seconds or an HTTP date. It returns 0 when neither gives a wait.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms > 0 && ms < 1e9 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	return parseRetryAfter(h.Get("Retry-After"), now)
}

func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 || secs > 1e6 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if at, err := http.ParseTime(v); err == nil && at.After(now) {
		return at.Sub(now)
	}
	return 0
}

// isTransportError reports a failure to reach the server or to read its
// answer to the end: worth a retry.
func isTransportError(err error) bool {
	var netErr net.Error
	var urlErr *url.Error
	return errors.As(err, &netErr) || errors.As(err, &urlErr) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}

// transportMessage says what went wrong without the request URL, which
// some deployments put credentials in.
func transportMessage(err error) string {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return "connection failed: " + urlErr.Err.Error()
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "connection closed before the answer was complete"
	}
	return "connection failed: " + err.Error()
}
