package slack

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/openclaw-go/openclaw/channels"
)

// run is the adapter's goroutine: learn who the bot is, then (socket
// mode) keep a Socket Mode connection until ctx ends or a token is
// refused. In HTTP mode it ends after auth.test: events come to ServeHTTP.
func (a *Adapter) run(ctx context.Context) {
	if !a.connect(ctx) {
		return
	}
	if a.opts.Mode == ModeSocket {
		a.socketLoop(ctx)
	}
}

// connect calls auth.test until it succeeds (reporting connected in HTTP
// mode; socket mode reports it once the socket is open), the token is
// refused (logged-out) or ctx ends.
func (a *Adapter) connect(ctx context.Context) bool {
	for attempt := 0; ; attempt++ {
		err := a.authTest(ctx)
		if err == nil {
			if a.opts.Mode == ModeHTTP {
				a.life.Report(channels.Status{State: channels.StateConnected})
			}
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		if isAuthError(err) {
			a.loggedOut(err)
			return false
		}
		a.log.Warn("slack auth.test failed", "attempt", attempt+1, "err", err)
		a.life.Report(channels.Status{State: channels.StateBackingOff, Attempts: attempt + 1,
			Detail: "auth.test failed", LastError: err.Error()})
		if !channels.Sleep(ctx, a.backoff(attempt, err)) {
			return false
		}
	}
}

func (a *Adapter) authTest(ctx context.Context) error {
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	res, err := a.api.AuthTestContext(cctx)
	if err != nil {
		return a.classify(cctx, "auth.test", err)
	}
	a.self.Store(&botIdentity{UserID: res.UserID, BotID: res.BotID, Name: res.User, TeamID: res.TeamID})
	return nil
}

func (a *Adapter) loggedOut(err error) {
	a.log.Error("slack refused a token; receiving stopped until the token is fixed", "err", err)
	a.life.Report(channels.Status{State: channels.StateLoggedOut, Detail: "token refused by Slack", LastError: err.Error()})
}

// socketLoop runs slack-go's Socket Mode client. The client reconnects by
// itself after a disconnect message, a dropped socket or a socket that
// stopped sending pings (PingTimeout); when it gives up for a reason other
// than a refused token, a fresh client is started after a backoff.
func (a *Adapter) socketLoop(ctx context.Context) {
	st := &socketState{}
	for ctx.Err() == nil {
		smc := socketmode.New(a.api,
			socketmode.OptionPingInterval(a.opts.PingTimeout),
			socketmode.OptionLog(discardLogger{}),
		)
		runCtx, cancel := context.WithCancel(ctx)
		errc := make(chan error, 1)
		go func() { errc <- smc.RunContext(runCtx) }()
		finished, err := a.consume(runCtx, smc, errc, st)
		cancel()
		if !finished {
			err = <-errc
		}
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			err = errors.New("socket mode client stopped")
		}
		err = a.classify(ctx, "apps.connections.open", err)
		if isAuthError(err) || st.invalidAuth {
			a.loggedOut(err)
			return
		}
		st.failures++
		a.log.Warn("slack socket mode stopped; restarting", "attempt", st.failures, "err", err)
		a.life.Report(channels.Status{State: channels.StateBackingOff, Attempts: st.failures,
			Detail: "socket mode stopped", LastError: err.Error()})
		if !channels.Sleep(ctx, a.backoff(st.failures-1, err)) {
			return
		}
	}
}

// socketState is what the consumer remembers across connections.
type socketState struct {
	failures    int    // connection failures since the last success
	lastErr     string // why the last connection ended
	invalidAuth bool   // slack-go saw a 404 from apps.connections.open
}

// consume handles smc's events until RunContext returns (finished, with
// its error) or ctx ends.
func (a *Adapter) consume(ctx context.Context, smc *socketmode.Client, errc <-chan error, st *socketState) (finished bool, err error) {
	for {
		select {
		case err = <-errc:
			return true, err
		case <-ctx.Done():
			return false, ctx.Err()
		case evt := <-smc.Events:
			a.handle(ctx, smc, evt, st)
		}
	}
}

func (a *Adapter) handle(ctx context.Context, smc *socketmode.Client, evt socketmode.Event, st *socketState) {
	switch evt.Type {
	case socketmode.EventTypeConnecting:
		if c, ok := evt.Data.(*slackapi.ConnectingEvent); ok && c.ConnectionCount > 0 && c.Attempt == 1 {
			st.failures++
			a.log.Info("slack socket lost; reconnecting", "reason", st.lastErr)
			a.life.Report(channels.Status{State: channels.StateBackingOff, Attempts: st.failures,
				Detail: "socket lost; reconnecting", LastError: st.lastErr})
		}
	case socketmode.EventTypeConnectionError:
		if c, ok := evt.Data.(*slackapi.ConnectionErrorEvent); ok {
			err := a.classify(ctx, "apps.connections.open", c.ErrorObj)
			st.failures++
			st.lastErr = err.Error()
			a.log.Warn("slack socket connect failed", "attempt", st.failures, "err", err)
			a.life.Report(channels.Status{State: channels.StateBackingOff, Attempts: st.failures,
				Detail: "connecting the socket failed", LastError: st.lastErr})
		}
	case socketmode.EventTypeInvalidAuth:
		st.invalidAuth = true
	case socketmode.EventTypeConnected:
		st.failures, st.lastErr = 0, "socket closed"
		a.life.Report(channels.Status{State: channels.StateConnected})
	case socketmode.EventTypeIncomingError:
		if e, ok := evt.Data.(*slackapi.IncomingEventError); ok {
			st.lastErr = a.scrub(e.Error())
		}
	case socketmode.EventTypeErrorBadMessage:
		// An envelope slack-go cannot parse will never parse: acknowledge
		// it so Slack stops redelivering it.
		if bad, ok := evt.Data.(*socketmode.ErrorBadMessage); ok {
			var env struct {
				EnvelopeID string `json:"envelope_id"`
			}
			_ = json.Unmarshal(bad.Message, &env)
			a.log.Warn("slack envelope undecodable, acknowledged and skipped", "envelope_id", env.EnvelopeID, "err", bad.Cause)
			if env.EnvelopeID != "" {
				_ = smc.AckCtx(ctx, env.EnvelopeID, nil)
			}
		}
	case socketmode.EventTypeEventsAPI, socketmode.EventTypeSlashCommand, socketmode.EventTypeInteractive:
		if evt.Request == nil {
			return
		}
		if a.deliver(ctx, evt.Request.Type, evt.Request.EnvelopeID, evt.Request.Payload) {
			if err := smc.AckCtx(ctx, evt.Request.EnvelopeID, nil); err != nil && ctx.Err() == nil {
				a.log.Warn("slack ack failed; Slack will redeliver", "envelope_id", evt.Request.EnvelopeID, "err", err)
			}
		}
	}
}

// deliver normalises one envelope's payload and hands it to the sink until
// Receive accepts it. It returns true when the envelope may be
// acknowledged (stored, or nothing to store) and false when ctx ended
// first.
func (a *Adapter) deliver(ctx context.Context, kind, envelopeID string, payload []byte) bool {
	me := a.self.Load()
	sink := a.life.Sink()
	if me == nil || sink == nil {
		return false
	}
	in, ok, err := normalise(kind, payload, *me, a.opts.AccountID, a.opts.SlashCommand, !a.opts.NoReplyToBotMention)
	if err != nil {
		a.log.Warn("slack event undecodable, skipped", "envelope_id", envelopeID, "err", err)
		return true
	}
	if !ok {
		return true
	}
	if in.Time.IsZero() {
		in.Time = time.Now().UTC()
	}
	return channels.ReceiveUntilStored(ctx, sink, in, a.backoff, func(attempt int, err error) {
		a.log.Warn("slack event not stored; retrying", "event_id", in.EventID, "attempt", attempt+1, "err", err)
	})
}

// backoff is the wait before attempt n+1 (see channels.Backoff).
func (a *Adapter) backoff(n int, err error) time.Duration {
	return channels.Backoff(a.opts.BackoffMin, a.opts.BackoffMax, n, err)
}

// discardLogger silences slack-go's own logger (it would write to stderr).
type discardLogger struct{}

func (discardLogger) Output(int, string) error { return nil }
