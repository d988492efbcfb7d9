package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/openclaw-go/openclaw/channels"
)

// run is the adapter's one goroutine: load the device, wait for a link
// when there is none, connect and reconnect until ctx ends or WhatsApp
// ends the session for good.
func (a *Adapter) run(ctx context.Context) {
	failures := 0
	for ctx.Err() == nil {
		c, err := a.newClient(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			failures++
			a.log.Warn("whatsapp device store unavailable", "attempt", failures, "err", err)
			a.life.Report(channels.Status{State: channels.StateBackingOff, Attempts: failures,
				Detail: "device store unavailable", LastError: err.Error()})
			if !channels.Sleep(ctx, a.backoff(failures-1)) {
				return
			}
			continue
		}
		failures = 0
		if c.OwnID().IsEmpty() {
			a.log.Info("whatsapp account not linked; waiting for a login")
			a.setEnded(LinkHint)
			a.life.Report(channels.Status{State: channels.StateLoggedOut, Detail: LinkHint})
			if !a.waitLinked(ctx) {
				return
			}
			continue
		}
		a.connectLoop(ctx, c)
		if ctx.Err() != nil {
			return
		}
		// WhatsApp ended the session (logout, ban, replaced): no retry
		// until someone links the account again.
		if !a.waitLinked(ctx) {
			return
		}
	}
}

// waitLinked waits for a successful Login or the end of ctx.
func (a *Adapter) waitLinked(ctx context.Context) bool {
	select {
	case <-a.linked:
		return true
	case <-ctx.Done():
		return false
	}
}

// connectLoop connects c and keeps it connected: transient drops are
// retried with capped exponential backoff and jitter; a logout, a
// temporary ban or a replaced stream ends the loop (logged-out). It
// returns when ctx ends or after such an end.
func (a *Adapter) connectLoop(ctx context.Context, c Client) {
	loopCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	select { // a Logout from before this client was linked
	case <-a.unlinked:
	default:
	}
	conn := make(chan any, 16)
	c.AddEventHandler(func(evt any) bool { return a.handle(loopCtx, c, conn, evt) })
	a.setClient(c)
	defer func() {
		c.Disconnect()
		a.setClient(nil)
	}()

	attempt := 0
	reconnect := true
	for {
		if reconnect {
			if err := c.Connect(); err != nil && !errors.Is(err, whatsmeow.ErrAlreadyConnected) {
				attempt++
				a.log.Warn("whatsapp connect failed", "attempt", attempt, "err", err)
				a.life.Report(channels.Status{State: channels.StateBackingOff, Attempts: attempt,
					Detail: "connect failed", LastError: err.Error()})
				if !channels.Sleep(ctx, a.backoff(attempt-1)) {
					return
				}
				continue
			}
			reconnect = false
		}
		var evt any
		select {
		case <-ctx.Done():
			return
		case <-a.unlinked:
			a.setEnded(LinkHint)
			a.life.Report(channels.Status{State: channels.StateLoggedOut, Detail: "logged out; " + LinkHint})
			return
		case evt = <-conn:
		}
		switch e := evt.(type) {
		case *events.Connected:
			attempt = 0
			a.setEnded("")
			a.log.Info("whatsapp connected", "as", botName(c))
			a.life.Report(channels.Status{State: channels.StateConnected})
		case *events.Disconnected:
			attempt++
			a.log.Warn("whatsapp connection lost; reconnecting", "attempt", attempt)
			a.life.Report(channels.Status{State: channels.StateBackingOff, Attempts: attempt, Detail: "connection lost"})
			if !channels.Sleep(ctx, a.backoff(attempt-1)) {
				return
			}
			reconnect = true
		case *events.LoggedOut:
			// whatsmeow has deleted the device's keys already.
			if err := forgetDevice(context.WithoutCancel(ctx), a.opts.DB, a.opts.AccountID); err != nil {
				a.log.Error("whatsapp: forget device", "err", err)
			}
			detail := "logged out from the phone (" + e.Reason.String() + "); " + LinkHint
			a.log.Error("whatsapp session ended", "detail", detail)
			a.setEnded(LinkHint)
			a.life.Report(channels.Status{State: channels.StateLoggedOut, Detail: detail, LastError: e.PermanentDisconnectDescription()})
			return
		case *events.TemporaryBan:
			until := time.Now().Add(e.Expire).UTC().Format(time.RFC3339)
			detail := fmt.Sprintf("banned by WhatsApp until %s (%s); not reconnecting until restarted", until, e.Code)
			a.log.Error("whatsapp session ended", "detail", detail)
			a.setEnded(detail)
			a.life.Report(channels.Status{State: channels.StateLoggedOut, Detail: detail, LastError: e.String()})
			return
		case *events.StreamReplaced:
			detail := "another client connected with this device's keys (stream replaced); not reconnecting so the two do not take turns"
			a.log.Error("whatsapp session ended", "detail", detail)
			a.setEnded(detail)
			a.life.Report(channels.Status{State: channels.StateLoggedOut, Detail: detail})
			return
		case events.PermanentDisconnect:
			detail := e.PermanentDisconnectDescription()
			a.log.Error("whatsapp session ended", "detail", detail)
			a.setEnded(detail)
			a.life.Report(channels.Status{State: channels.StateLoggedOut, Detail: detail + "; not reconnecting until restarted"})
			return
		}
	}
}

// handle is the event handler registered on a client. Connection events
// go to connectLoop; messages are stored right here, inside whatsmeow's
// call, so that the acknowledgement waits for the store.
func (a *Adapter) handle(ctx context.Context, c Client, conn chan<- any, evt any) bool {
	switch e := evt.(type) {
	case *events.Message:
		return a.onMessage(ctx, c, e)
	case *events.Connected, *events.Disconnected, events.PermanentDisconnect:
		select {
		case conn <- evt:
		case <-ctx.Done():
		}
	}
	return true
}

// backoff is the wait before attempt n+1 (see channels.Backoff).
func (a *Adapter) backoff(n int) time.Duration {
	return channels.Backoff(a.opts.BackoffMin, a.opts.BackoffMax, n, nil)
}
