package telegram

import (
	"crypto/subtle"
	"errors"
	"io"
	"net/http"
)

// maxWebhookBody caps one webhook update.
const maxWebhookBody = 1 << 20

// secretHeader carries the webhook secret Telegram was given.
const secretHeader = "X-Telegram-Bot-Api-Secret-Token"

// ServeHTTP receives one update in webhook mode. The secret header is
// checked (in constant time) before the body is read; a wrong or missing
// one is answered 401 and counted by Options.Throttle, and a client it
// locked out is answered 429 without the secret being looked at. The
// answer is 200 only after the sink stored the update; any other answer
// makes Telegram deliver it again later.
func (a *Adapter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secret := a.opts.WebhookSecret
	if a.opts.WebhookURL == "" || secret == "" {
		http.NotFound(w, r)
		return
	}
	if t := a.opts.Throttle; t != nil && !t.Admit(w, r) {
		return
	}
	got := r.Header.Get(secretHeader)
	if subtle.ConstantTimeCompare([]byte(got), []byte(secret)) != 1 {
		if t := a.opts.Throttle; t != nil {
			t.Failed(r)
		}
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	sink, me := a.life.Sink(), a.self.Load()
	if sink == nil || me == nil {
		// Not started, or getMe has not succeeded yet: without the bot's
		// name mentions cannot be judged. Telegram retries.
		http.Error(w, "not ready", http.StatusServiceUnavailable)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxWebhookBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "update too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "read error", http.StatusBadRequest)
		return
	}
	u, err := parseUpdate(body)
	if err != nil {
		http.Error(w, "not a Telegram update", http.StatusBadRequest)
		return
	}
	in, ok := normalise(u, *me, a.opts.AccountID)
	if ok {
		if err := sink.Receive(r.Context(), in); err != nil {
			a.log.Warn("telegram webhook update not stored; Telegram will retry", "update_id", u.UpdateID, "err", err)
			http.Error(w, "not stored", http.StatusInternalServerError)
			return
		}
	}
	w.WriteHeader(http.StatusOK)
}
