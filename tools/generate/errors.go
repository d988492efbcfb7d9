package generate

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// ErrQuota is wrapped by a provider's refusal for money or rate: HTTP 429
// or 402, OpenAI's insufficient_quota, a billing limit, no credits left.
// The caller reports it as it is and does not retry at once: only waiting
// or the account's owner fixes it.
var ErrQuota = errors.New("the provider refused for quota, rate limit or billing")

// ErrAuth is wrapped when a provider rejects the API key.
var ErrAuth = errors.New("the provider rejected the API key")

// maxErrorText is the most of a provider's error message kept.
const maxErrorText = 300

// apiError turns a provider's failed response into an error that says
// plainly what went wrong. The message is the provider's own (capped, with
// the key scrubbed in case the provider echoes it), never the request.
func apiError(provider string, status int, body []byte, key string) error {
	msg := scrub(errorMessage(body), key)
	lower := strings.ToLower(msg + " " + string(body[:min(len(body), 2048)]))
	quota := status == http.StatusTooManyRequests || status == http.StatusPaymentRequired
	for _, w := range []string{"insufficient_quota", "billing", "quota", "credits", "insufficient balance", "payment required"} {
		quota = quota || strings.Contains(lower, w)
	}
	detail := ""
	if msg != "" {
		detail = ": " + msg
	}
	switch {
	case quota:
		return fmt.Errorf("%s: HTTP %d%s: %w; wait and try again later, or check the account's plan, credits and billing", provider, status, detail, ErrQuota)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fmt.Errorf("%s: HTTP %d%s: %w; check its API key", provider, status, detail, ErrAuth)
	}
	return fmt.Errorf("%s: HTTP %d%s", provider, status, detail)
}

// errorMessage finds the message in the error bodies the providers send:
// {"error":{"message"}} (OpenAI), {"error":"..."} (Runway),
// {"message":"..."} (Meshy), {"base_resp":{"status_msg"}} (MiniMax); else
// the body's first line.
func errorMessage(body []byte) string {
	var v struct {
		Error    json.RawMessage `json:"error"`
		Message  string          `json:"message"`
		BaseResp struct {
			StatusMsg string `json:"status_msg"`
		} `json:"base_resp"`
	}
	msg := ""
	if json.Unmarshal(body, &v) == nil {
		var s string
		var o struct {
			Message string `json:"message"`
			Code    any    `json:"code"`
		}
		switch {
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			msg = s
		case json.Unmarshal(v.Error, &o) == nil && o.Message != "":
			msg = o.Message
			if c, ok := o.Code.(string); ok && c != "" {
				msg += " (" + c + ")"
			}
		case v.Message != "":
			msg = v.Message
		case v.BaseResp.StatusMsg != "":
			msg = v.BaseResp.StatusMsg
		}
	} else {
		msg, _, _ = strings.Cut(strings.TrimSpace(string(body)), "\n")
	}
	return clip(msg, maxErrorText)
}

// scrub takes an API key (and any long run of it) out of text.
func scrub(text, key string) string {
	if key != "" && len(key) >= 4 {
		text = strings.ReplaceAll(text, key, "[redacted]")
	}
	return text
}

// clip cuts s to n bytes on a rune boundary and flattens newlines.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
