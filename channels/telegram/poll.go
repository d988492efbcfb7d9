package telegram

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/openclaw-go/openclaw/channels"
)

// run is the adapter's one goroutine: connect, then register the webhook
// or poll until ctx ends.
func (a *Adapter) run(ctx context.Context) {
	if !a.connect(ctx) {
		return
	}
	if a.opts.WebhookURL != "" {
		a.retry(ctx, "setWebhook", func() error {
			return a.callInto(ctx, "setWebhook", tgbotapi.Params{
				"url":             a.opts.WebhookURL,
				"secret_token":    a.opts.WebhookSecret,
				"allowed_updates": allowedUpdates,
			}, nil)
		})
		return
	}
	a.poll(ctx)
}

// connect learns who the bot is (getMe, through the library's
// constructor) and, for long polling, removes any webhook. It reports
// connected, backing-off or logged-out and returns false when it gave up.
func (a *Adapter) connect(ctx context.Context) bool {
	return a.retry(ctx, "getMe", func() error {
		callCtx, cancel := context.WithTimeout(ctx, a.opts.CallTimeout)
		defer cancel()
		d := &doer{ctx: callCtx, c: a.client}
		bot, err := tgbotapi.NewBotAPIWithClient(a.opts.Token, a.endpoint, d)
		if err != nil {
			if d.status == http.StatusNotFound {
				// Telegram answers 404 to a token of the wrong shape.
				return &APIError{Method: "getMe", Code: http.StatusUnauthorized, Description: "token refused (404 Not Found)"}
			}
			return a.classify(callCtx, "getMe", d.status, err)
		}
		a.self.Store(&botIdentity{ID: bot.Self.ID, Username: bot.Self.UserName})
		if a.opts.WebhookURL == "" {
			if err := a.callInto(ctx, "deleteWebhook", tgbotapi.Params{"drop_pending_updates": "false"}, nil); err != nil {
				return err
			}
		}
		return nil
	})
}

// retry runs step until it succeeds (reporting connected), the token is
// refused (reporting logged-out) or ctx ends, backing off in between.
func (a *Adapter) retry(ctx context.Context, what string, step func() error) bool {
	for attempt := 0; ; attempt++ {
		err := step()
		if err == nil {
			a.life.Report(channels.Status{State: channels.StateConnected})
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		if isUnauthorized(err) {
			a.loggedOut(err)
			return false
		}
		a.log.Warn("telegram connect failed", "step", what, "attempt", attempt+1, "err", err)
		a.life.Report(channels.Status{State: channels.StateBackingOff, Attempts: attempt + 1,
			Detail: what + " failed", LastError: err.Error()})
		if !channels.Sleep(ctx, a.backoff(attempt, err)) {
			return false
		}
	}
}

func (a *Adapter) loggedOut(err error) {
	a.log.Error("telegram refused the bot token; polling stopped until the token is fixed", "err", err)
	a.life.Report(channels.Status{State: channels.StateLoggedOut, Detail: "bot token refused (401 Unauthorized)", LastError: err.Error()})
}

// poll is the long-poll loop. Each update is handed to the sink and only
// after Receive returned nil does the offset move past it, so an update
// is confirmed to Telegram (by the next getUpdates) only once it is
// stored. A failing Receive is retried with backoff, never skipped.
func (a *Adapter) poll(ctx context.Context) {
	sink := a.life.Sink()
	me := *a.self.Load()
	var offset int64
	// The cursor kept from the last run (or carried over by openclaw
	// migrate): the first getUpdates confirms everything up to it.
	if last, ok, err := a.opts.Offsets.Last(ctx, a.opts.AccountID, me.ID); err != nil {
		a.log.Warn("telegram update offset not read; polling from what Telegram still holds", "err", err)
	} else if ok {
		offset = last + 1
	}
	saved := offset
	failures := 0
	for ctx.Err() == nil {
		params := tgbotapi.Params{
			"timeout":         strconv.Itoa(int(a.opts.PollTimeout / time.Second)),
			"limit":           "100",
			"allowed_updates": allowedUpdates,
		}
		if offset != 0 {
			params["offset"] = strconv.FormatInt(offset, 10)
		}
		var raws []json.RawMessage
		err := a.callInto(ctx, "getUpdates", params, &raws)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if isUnauthorized(err) {
				a.loggedOut(err)
				return
			}
			failures++
			a.log.Warn("telegram getUpdates failed", "attempt", failures, "err", err)
			a.life.Report(channels.Status{State: channels.StateBackingOff, Attempts: failures,
				Detail: "getUpdates failed", LastError: err.Error()})
			if !channels.Sleep(ctx, a.backoff(failures-1, err)) {
				return
			}
			continue
		}
		if failures > 0 {
			failures = 0
			a.life.Report(channels.Status{State: channels.StateConnected})
		}
		for _, raw := range raws {
			next, ok := a.deliver(ctx, sink, me, raw)
			if !ok {
				return
			}
			if next > offset {
				offset = next
			}
		}
		if offset > saved {
			if err := a.opts.Offsets.Save(ctx, a.opts.AccountID, me.ID, offset-1); err != nil {
				a.log.Warn("telegram update offset not saved", "err", err)
			} else {
				saved = offset
			}
		}
	}
}

// deliver normalises one update and hands it to sink until Receive
// accepts it. It returns the offset that confirms the update, and false
// when ctx ended first.
func (a *Adapter) deliver(ctx context.Context, sink channels.Sink, me botIdentity, raw json.RawMessage) (int64, bool) {
	u, err := parseUpdate(raw)
	if err != nil {
		// Not an update we can read, and Telegram will never send it
		// differently: confirm it so it does not block the queue.
		var id struct {
			UpdateID int64 `json:"update_id"`
		}
		_ = json.Unmarshal(raw, &id)
		a.log.Warn("telegram update undecodable, skipped", "update_id", id.UpdateID, "err", err)
		return id.UpdateID + 1, true
	}
	in, ok := normalise(u, me, a.opts.AccountID)
	if !ok {
		return u.UpdateID + 1, true
	}
	stored := channels.ReceiveUntilStored(ctx, sink, in, a.backoff, func(attempt int, err error) {
		a.log.Warn("telegram update not stored; retrying", "update_id", u.UpdateID, "attempt", attempt+1, "err", err)
	})
	if !stored {
		return 0, false
	}
	return u.UpdateID + 1, true
}

// backoff is the wait before attempt n+1 (see channels.Backoff).
func (a *Adapter) backoff(n int, err error) time.Duration {
	return channels.Backoff(a.opts.BackoffMin, a.opts.BackoffMax, n, err)
}
