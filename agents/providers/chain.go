package providers

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/backoff"
)

const (
	defaultRetries = 2
	// maxRetryAfter is the longest Retry-After a Chain waits for; a server
	// asking for more is skipped for the next step at once.
	maxRetryAfter = time.Minute
)

// defaultBackoff is Chain.Backoff's default: 500ms·2ⁿ, at most 8s, not
// jittered (the model call is one user's, not a herd).
var defaultBackoff = backoff.Policy{Min: 500 * time.Millisecond, Max: 8 * time.Second}

// notConfiguredMessage tells a user with no model what to set.
const notConfiguredMessage = `no model configured: set agents.defaults.model ("provider/model") and models.providers.<name>`

// Step is one model to try: the primary, then each fallback.
type Step struct {
	Provider Provider
	Model    string // the model id at the provider
	// NoTools sends this model no tool definitions: it cannot call them
	// (models.providers.*.models[].compat.supportsTools false).
	NoTools bool
}

// Ref is the step's "provider/model".
func (s Step) Ref() string {
	name := "<nil>"
	if s.Provider != nil {
		name = s.Provider.Name()
	}
	return name + "/" + s.Model
}

// Attempt records one call a Chain made.
type Attempt struct {
	Ref      string // "provider/model"
	Err      error  // nil for the call that answered
	Duration time.Duration
}

// Chain tries its steps in order. A retryable failure (rate_limit,
// timeout, unavailable) is retried on the same step with backoff, up to
// Retries times, then the next step is tried; auth, bad_request and
// unclassified failures move to the next step at once; context_length is
// returned at once, for the caller to compact and call again; the end of
// ctx stops everything. A Chain is safe for concurrent use if its fields
// are not changed while in use.
type Chain struct {
	Steps []Step
	// Retries is how many times a step is retried after a retryable
	// failure. 0 means the default, 2; a negative value means none.
	Retries int
	// Backoff is the pause before retry attempt n (0 for the first retry).
	// Default: 500ms·2ⁿ, at most 8s. A longer Retry-After from the server
	// wins, up to one minute; past that the step is given up at once.
	Backoff func(attempt int) time.Duration
	// Sleep waits d or until ctx ends. Default: a timer. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Log gets one warning per failed attempt and per skipped model. Nil:
	// discard.
	Log *slog.Logger
	// Skipped are models of the list that cannot be called at all (no
	// API key): they are not tried, and the reason is reported once.
	Skipped []Skip
}

// Skip is a model left out of a Chain and why, in one line.
type Skip struct {
	Ref    string // "provider/model"
	Reason string // e.g. "no API key: OPENAI_API_KEY is not set"
}

// ChainError is returned when every step failed. Unwrap gives the last
// attempt's error, so KindOf says how the chain finally failed.
type ChainError struct {
	Attempts []Attempt
	// Skipped are the models that were not tried.
	Skipped []Skip
}

// Error lists each failure once as "ref: kind: message" (a step retried
// with the same failure says how many attempts it made), then each
// skipped model as "ref: skipped: reason", separated by "; ".
func (e *ChainError) Error() string {
	var parts []string
	count := map[string]int{}
	for _, a := range e.Attempts {
		if a.Err == nil {
			continue
		}
		msg := a.Err.Error()
		var pe *Error
		if errors.As(a.Err, &pe) {
			msg = pe.Message
		}
		line := a.Ref + ": " + string(KindOf(a.Err)) + ": " + msg
		if count[line]++; count[line] == 1 {
			parts = append(parts, line)
		}
	}
	for i, line := range parts {
		if n := count[line]; n > 1 {
			parts[i] = line + " (" + strconv.Itoa(n) + " attempts)"
		}
	}
	for _, sk := range e.Skipped {
		parts = append(parts, sk.Ref+": skipped: "+sk.Reason)
	}
	return strings.Join(parts, "; ")
}

// Unwrap returns the last attempt's error.
func (e *ChainError) Unwrap() error {
	for i := len(e.Attempts) - 1; i >= 0; i-- {
		if e.Attempts[i].Err != nil {
			return e.Attempts[i].Err
		}
	}
	return nil
}

// Complete runs req through the steps, with req.Model set to each step's
// model, and returns the first answer with every attempt made. The
// Response's Provider and Model name the step that answered. When an
// attempt had streamed text before it failed, hooks.OnRestart is called
// before the next attempt starts.
func (c *Chain) Complete(ctx context.Context, req Request, hooks Hooks) (*Response, []Attempt, error) {
	log := c.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	for _, sk := range c.Skipped {
		log.Warn("model skipped", "model", sk.Ref, "reason", sk.Reason)
	}
	if len(c.Steps) == 0 {
		if len(c.Skipped) > 0 {
			return nil, nil, &Error{Kind: KindNotConfigured, Message: "no model can be called: " + (&ChainError{Skipped: c.Skipped}).Error()}
		}
		return nil, nil, &Error{Kind: KindNotConfigured, Message: notConfiguredMessage}
	}

	streamed := false // the current attempt has passed text to OnDelta
	inner := hooks
	inner.OnDelta = func(s string) {
		streamed = true
		if hooks.OnDelta != nil {
			hooks.OnDelta(s)
		}
	}

	var attempts []Attempt
	var lastErr error
	for _, step := range c.Steps {
		ref := step.Ref()
		for try := 0; ; try++ {
			if err := ctx.Err(); err != nil {
				return nil, attempts, stopped(ctx, ref, err)
			}
			if streamed {
				streamed = false
				if hooks.OnRestart != nil {
					hooks.OnRestart(lastErr)
				}
			}
			r := req
			r.Model = step.Model
			if step.NoTools {
				r.Tools = nil
			}
			start := time.Now()
			resp, err := step.Provider.Complete(ctx, r, inner)
			attempts = append(attempts, Attempt{Ref: ref, Err: err, Duration: time.Since(start)})
			if err == nil {
				resp.Provider, resp.Model = step.Provider.Name(), step.Model
				return resp, attempts, nil
			}
			lastErr = err
			kind := KindOf(err)
			log.Warn("model call failed", "model", ref, "kind", string(kind), "attempt", try+1, "err", err)

			if ctxErr := ctx.Err(); ctxErr != nil || kind == KindCanceled {
				return nil, attempts, err
			}
			if kind == KindContextLength {
				return nil, attempts, err
			}
			wait, again := c.retryWait(try, err)
			if !again {
				break
			}
			if err := c.sleep(ctx, wait); err != nil {
				return nil, attempts, stopped(ctx, ref, err)
			}
		}
	}
	return nil, attempts, &ChainError{Attempts: attempts, Skipped: c.Skipped}
}

// retryWait says whether attempt try's failure is retried on the same
// step, and after how long.
func (c *Chain) retryWait(try int, err error) (time.Duration, bool) {
	var pe *Error
	if !errors.As(err, &pe) || !pe.Retryable() {
		return 0, false
	}
	retries := c.Retries
	if retries == 0 {
		retries = defaultRetries
	}
	if try >= retries {
		return 0, false
	}
	if pe.RetryAfter > maxRetryAfter {
		return 0, false
	}
	wait := c.backoff(try)
	if pe.RetryAfter > wait {
		wait = pe.RetryAfter
	}
	return wait, true
}

func (c *Chain) backoff(try int) time.Duration {
	if c.Backoff != nil {
		return c.Backoff(try)
	}
	return defaultBackoff.Delay(try)
}

func (c *Chain) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// stopped is the error for a chain ended by its context.
func stopped(ctx context.Context, ref string, err error) *Error {
	provider, model, _ := strings.Cut(ref, "/")
	e := &Error{Kind: KindCanceled, Provider: provider, Model: model, Message: "call cancelled", Err: err}
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		e.Kind, e.Message = KindTimeout, "deadline passed"
	}
	return e
}
