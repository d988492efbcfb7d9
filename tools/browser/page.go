package browser

import (
	"context"
	"errors"
	"fmt"
)

// Page opens a new tab in the profile's browser (the default profile when
// profile is empty), starting the browser if it does not run, for a tool
// that drives one known page itself, such as xhs_publish. The tab is
// under the same network guard as the browser tool's tabs, and it shares
// the profile's cookies, which is the point: a site the user logged in to
// in that profile stays logged in.
//
// The returned context is the tab's chromedp context; commands run on it
// should also end with the caller's own context. closeTab closes the tab.
func (m *Manager) Page(ctx context.Context, profile string) (tab context.Context, closeTab func(), err error) {
	if !m.enabled() {
		return nil, nil, errors.New("the browser is turned off (browser.enabled)")
	}
	if profile == "" {
		profile = m.settings().DefaultProfile
	}
	if err := validName(profile); err != nil {
		return nil, nil, err
	}
	b, err := m.ensure(ctx, profile)
	if err != nil {
		return nil, nil, err
	}
	t, err := b.openTab(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("browser profile %q: %w", profile, err)
	}
	return t.ctx, func() {
		if err := b.closeTab(context.WithoutCancel(ctx), t.id); err != nil {
			m.log.Debug("close tab", "profile", profile, "err", err)
		}
	}, nil
}

// ProfileDir says where the profile keeps its cookies: the user-data dir
// of a profile the gateway runs, or the DevTools URL of a remote one. A
// tool that needs the user logged in names it, so the user knows which
// browser to log in with.
func (m *Manager) ProfileDir(profile string) string {
	if profile == "" {
		profile = m.settings().DefaultProfile
	}
	m.mu.Lock()
	p, err := m.profile(profile)
	m.mu.Unlock()
	if err == nil && p.Remote() {
		return "the browser at " + redact(p.CDPURL)
	}
	return m.userDataDir(profile)
}
