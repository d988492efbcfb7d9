package browser

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/openclaw-go/openclaw/tools/netguard"
)

// checkNavigation refuses a URL the model asked to open unless it is
// http(s) and every address its host resolves to is allowed.
func (m *Manager) checkNavigation(ctx context.Context, raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("url %q: %w", raw, err)
	}
	if err := m.checkURL(ctx, u); err != nil {
		return nil, fmt.Errorf("navigation to %s refused: %w", u.Redacted(), err)
	}
	return u, nil
}

// checkURL applies the policy to u, resolving its host.
func (m *Manager) checkURL(ctx context.Context, u *url.URL) error {
	policy := m.cfg.Policy()
	if err := policy.CheckURL(u); err != nil {
		return err
	}
	host := u.Hostname()
	if _, err := netip.ParseAddr(host); err == nil {
		return nil // CheckURL judged the literal
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ips, err := m.cfg.Resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", host, err)
	}
	if len(ips) == 0 {
		return fmt.Errorf("resolve %s: no addresses", host)
	}
	for _, ip := range ips {
		if err := policy.CheckAddr(host, ip); err != nil {
			return err
		}
	}
	return nil
}

// guard pauses every request of every target of the browser (tabs,
// popups, frames, workers) with the Fetch domain at browser level, and
// lets each go on only when its destination is allowed. It runs from
// start until the browser's context ends.
func (b *instance) guard(ctx context.Context) error {
	work := make(chan *fetch.EventRequestPaused, 1024)
	err := chromedp.ListenBrowser(b.browserCtx, func(ev any) {
		if ev, ok := ev.(*fetch.EventRequestPaused); ok {
			select {
			case work <- ev:
			default:
				// The worker is stuck; the request stays paused, which
				// fails closed.
			}
		}
	})
	if err != nil {
		return fmt.Errorf("listen for requests: %w", err)
	}
	go func() {
		for {
			select {
			case <-b.browserCtx.Done():
				return
			case ev := <-work:
				// Resolving can take a while; one slow host must not hold
				// up the others.
				go b.guardRequest(ev)
			}
		}
	}()
	cctx, cancel := b.bound(ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.CallBrowser(cctx, fetch.Enable, fetch.EnableParams{
		Patterns: []*fetch.RequestPattern{{URLPattern: "*"}},
	}); err != nil {
		return fmt.Errorf("enable request guard: %w", err)
	}
	return nil
}

// guardRequest lets a paused request go on, or fails it when its
// destination is not allowed. Schemes that reach no network (data:,
// blob:, about:) pass; ws(s) is judged like http(s); anything else, such
// as file:, fails.
//
// Chromium does not resolve the host itself afterwards: local browsers
// send every request through the guard's proxy (Manager.proxyServer),
// which resolves, checks and dials the checked address, so a name whose
// answer flips between lookups cannot reach a blocked address.
func (b *instance) guardRequest(ev *fetch.EventRequestPaused) {
	ctx, cancel := context.WithTimeout(b.browserCtx, 10*time.Second)
	defer cancel()
	err := b.m.allowRequest(ctx, ev.Request.URL)
	if err != nil {
		b.log.Info("page request blocked", "url", redact(ev.Request.URL), "err", err)
		b.noteBlocked(string(ev.FrameID), fmt.Sprintf("request to %s blocked by the network guard: %v", redact(ev.Request.URL), err))
		_, err = chromedp.CallBrowser(ctx, fetch.FailRequest, fetch.FailRequestParams{
			RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient,
		})
	} else {
		_, err = chromedp.CallBrowser(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
	}
	if err != nil && ctx.Err() == nil {
		b.log.Debug("answer paused request", "err", err)
	}
}

// noteBlocked tells the model, through the console of the tab whose main
// frame made the request (or the active tab), that a request was refused.
func (b *instance) noteBlocked(frameID, text string) {
	b.mu.Lock()
	t := b.tabs[target.ID(frameID)] // a page's main frame has its target's id
	if t == nil {
		t = b.tabs[b.active]
	}
	b.mu.Unlock()
	if t != nil {
		t.addConsole("error", text)
	}
}

func (m *Manager) allowRequest(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("unparsable url: %w", netguard.ErrBlocked)
	}
	switch strings.ToLower(u.Scheme) {
	case "data", "blob", "about":
		return nil
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	}
	return m.checkURL(ctx, u)
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(bad url)"
	}
	u.RawQuery, u.Fragment = "", ""
	return u.Redacted()
}
