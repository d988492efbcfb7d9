package speech

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Errors a speech call wraps. The caller tells a person; retrying does not
// help until the account or the key is fixed.
var (
	// ErrQuota: the provider account is out of quota or credit (HTTP 402,
	// OpenAI's insufficient_quota, ElevenLabs' quota_exceeded).
	ErrQuota = errors.New("out of quota or credit")
	// ErrRateLimited: too many requests just now (HTTP 429 without a
	// quota code); a later call may work.
	ErrRateLimited = errors.New("rate limited")
	// ErrAuth: the provider refused the API key (HTTP 401, 403).
	ErrAuth = errors.New("API key refused")
	// ErrNoKey: no API key is configured or in the environment.
	ErrNoKey = errors.New("no API key")
	// ErrTooLarge: the input or the answer is over its cap.
	ErrTooLarge = errors.New("too large")
	// ErrBadChoice: a caller named a provider, model or voice that cannot
	// be used here (tts.convert's provider, modelId, voiceId).
	ErrBadChoice = errors.New("not a usable provider, model or voice")
)

// maxErrorBody caps how much of an error answer is read.
const maxErrorBody = 16 << 10

// providerError turns a non-2xx answer into an error that says what
// happened in plain words, with the provider's own message (the key
// scrubbed out of it) for detail.
func providerError(provider string, status int, body []byte, key string) error {
	code, msg := errorDetail(body)
	msg = scrub(msg, key)
	detail := fmt.Sprintf("HTTP %d", status)
	if code != "" {
		detail += " " + code
	}
	if msg != "" {
		detail += ": " + msg
	}
	var kind error
	switch {
	case status == http.StatusPaymentRequired || code == "insufficient_quota" || code == "quota_exceeded" || code == "billing_hard_limit_reached":
		kind = ErrQuota
	case status == http.StatusTooManyRequests:
		kind = ErrRateLimited
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		kind = ErrAuth
	default:
		return fmt.Errorf("%s: %s", provider, detail)
	}
	return fmt.Errorf("%s: %w (%s)", provider, kind, detail)
}

// errorDetail reads the code and message of OpenAI's {"error": {code,
// type, message}} and ElevenLabs' {"detail": {status, message}} (or a
// plain "detail" string).
func errorDetail(body []byte) (code, msg string) {
	var e struct {
		Error *struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		} `json:"error"`
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &e) != nil {
		return "", oneLine(string(body))
	}
	if e.Error != nil {
		code, _ = e.Error.Code.(string)
		if code == "" {
			code = e.Error.Type
		}
		return code, oneLine(e.Error.Message)
	}
	var d struct {
		Status  string `json:"status"`
		Message string `json:"message"`
	}
	if json.Unmarshal(e.Detail, &d) == nil && (d.Status != "" || d.Message != "") {
		return d.Status, oneLine(d.Message)
	}
	var s string
	if json.Unmarshal(e.Detail, &s) == nil {
		return "", oneLine(s)
	}
	return "", ""
}

// scrub takes key out of s, in case a provider or a transport echoes it.
func scrub(s, key string) string {
	if len(key) >= 4 {
		s = strings.ReplaceAll(s, key, "[redacted]")
	}
	return s
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return s
}
