package canvas

import (
	"context"
	"iter"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// guardTab pauses every request the tab makes and lets through only what
// navigate itself would allow: the canvas host, or http(s) that CheckURL
// accepts. Checking navigate's argument alone is not enough, because eval,
// links and redirects can load anything; redirects are paused again, so
// each hop is checked. WebSockets are not seen by the Fetch domain; the
// canvas page's CSP keeps its own connections to its origin.
func (r *Renderer) guardTab(tctx context.Context) error {
	target, err := chromedp.Run(tctx, func(_ context.Context, t *chromedp.Target) (*chromedp.Target, error) { return t, nil })
	if err != nil {
		return err
	}
	// Subscribe before enabling so no paused request is missed (a missed
	// one would hang its page).
	events := cdp.Events(tctx, target, fetch.RequestPaused)
	if _, err := cdp.Call(tctx, target, fetch.Enable, fetch.EnableParams{}); err != nil {
		return err
	}
	r.guards.Add(1)
	go func() {
		defer r.guards.Done()
		r.guard(tctx, target, events)
	}()
	return nil
}

func (r *Renderer) guard(ctx context.Context, s cdp.Session, events iter.Seq2[fetch.EventRequestPaused, error]) {
	for ev, err := range events {
		if err != nil {
			return // the tab or browser closed
		}
		if ev.Request != nil {
			if _, err := r.allowed(ev.Request.URL); err == nil {
				cdp.Call(ctx, s, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
				continue
			}
		}
		cdp.Call(ctx, s, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
	}
}
