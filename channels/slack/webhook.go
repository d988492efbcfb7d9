package slack

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

const (
	// maxWebhookBody caps one Events API request.
	maxWebhookBody = 1 << 20
	// maxSkew is how old (or how far in the future) a signed request may
	// be: Slack's replay window.
	maxSkew = 5 * time.Minute

	signatureHeader = "X-Slack-Signature"
	timestampHeader = "X-Slack-Request-Timestamp"
)

var (
	errNoSignature  = errors.New("missing signature or timestamp")
	errBadTimestamp = errors.New("timestamp is not a number")
	errStale        = errors.New("timestamp outside the 5 minute window")
	errBadSignature = errors.New("signature mismatch")
)

// verifySignature checks Slack's v0 request signature: sig must be
// "v0=" + hex(HMAC-SHA256(secret, "v0:" + ts + ":" + body)) and ts a Unix
// time within five minutes of now. The comparison is constant time.
func verifySignature(secret, ts, sig string, body []byte, now time.Time) error {
	if secret == "" || ts == "" || sig == "" {
		return errNoSignature
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errBadTimestamp
	}
	if d := now.Sub(time.Unix(sec, 0)); d > maxSkew || d < -maxSkew {
		return errStale
	}
	got, ok := strings.CutPrefix(sig, "v0=")
	if !ok {
		return errBadSignature
	}
	gotMAC, err := hex.DecodeString(got)
	if err != nil {
		return errBadSignature
	}
	if !hmac.Equal(gotMAC, sign(secret, ts, body)) {
		return errBadSignature
	}
	return nil
}

// sign is the v0 HMAC of one request.
func sign(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("v0:" + ts + ":"))
	m.Write(body)
	return m.Sum(nil)
}

// ServeHTTP receives Slack's HTTP requests in HTTP mode: Events API
// callbacks (JSON), slash commands and interactive payloads (forms), all
// at WebhookPath. The body is read (capped) and its signature verified
// before anything in it is parsed; a bad or stale signature is answered
// 401 and counted by Options.Throttle, and a client it locked out is
// answered 429 before its body is read. url_verification is answered with its challenge. Events are
// answered 200 only after the sink stored them, 500 otherwise so that
// Slack retries.
func (a *Adapter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if a.opts.Mode != ModeHTTP || a.opts.SigningSecret == "" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if t := a.opts.Throttle; t != nil && !t.Admit(w, r) {
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxWebhookBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "request too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "read error", http.StatusBadRequest)
		return
	}
	if err := verifySignature(a.opts.SigningSecret, r.Header.Get(timestampHeader), r.Header.Get(signatureHeader), body, time.Now()); err != nil {
		a.log.Warn("slack request refused", "reason", err.Error(), "remote", r.RemoteAddr)
		if t := a.opts.Throttle; t != nil {
			t.Failed(r)
		}
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	kind, payload, err := webhookPayload(r.Header.Get("Content-Type"), body)
	if err != nil {
		http.Error(w, "not a Slack request", http.StatusBadRequest)
		return
	}
	if kind == kindEvents {
		var env slEnvelope
		if err := json.Unmarshal(payload, &env); err != nil {
			http.Error(w, "not a Slack event", http.StatusBadRequest)
			return
		}
		if env.Type == "url_verification" {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, env.Challenge)
			return
		}
	}
	if a.self.Load() == nil || a.life.Sink() == nil {
		// Not started, or auth.test has not succeeded yet: without the
		// bot's id mentions and our own messages cannot be told. Slack
		// retries.
		http.Error(w, "not ready", http.StatusServiceUnavailable)
		return
	}
	if !a.deliverOnce(r, kind, payload) {
		http.Error(w, "not stored", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// deliverOnce hands one request's event to the sink once (Slack retries
// the request itself). It reports whether the request may be answered 200.
func (a *Adapter) deliverOnce(r *http.Request, kind string, payload []byte) bool {
	in, ok, err := normalise(kind, payload, *a.self.Load(), a.opts.AccountID, a.opts.SlashCommand, !a.opts.NoReplyToBotMention)
	if err != nil {
		a.log.Warn("slack request undecodable, skipped", "err", err)
		return true
	}
	if !ok {
		return true
	}
	if in.Time.IsZero() {
		in.Time = time.Now().UTC()
	}
	sink := a.life.Sink()
	if sink == nil {
		return false
	}
	if err := sink.Receive(r.Context(), in); err != nil {
		a.log.Warn("slack event not stored; Slack will retry", "event_id", in.EventID, "err", err)
		return false
	}
	return true
}

// webhookPayload tells the three kinds of request apart: JSON is an
// Events API callback, a form with payload= an interaction, a form with
// command= a slash command (re-encoded as the JSON Socket Mode sends).
func webhookPayload(contentType string, body []byte) (string, []byte, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt != "application/x-www-form-urlencoded" {
		return kindEvents, body, nil
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return "", nil, err
	}
	if p := form.Get("payload"); p != "" {
		return kindInteractive, []byte(p), nil
	}
	if form.Get("command") == "" {
		return "", nil, errors.New("form without payload or command")
	}
	flat := make(map[string]string, len(form))
	for k := range form {
		flat[k] = form.Get(k)
	}
	b, err := json.Marshal(flat)
	return kindSlash, b, err
}
