package toolhost

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/browser"
	"github.com/openclaw-go/openclaw/tools/netguard"
	"github.com/openclaw-go/openclaw/tools/sandbox"
)

// browserTool builds the agents' browser tool over a manager of
// gateway-managed Chromium profiles, configured from browser.*.
func (h *Host) browserTool(workspace func(tools.Who) (string, error)) tools.Tool {
	set := browserSettings(h.cfg().Browser)
	live := func() config.Browser { return h.cfg().Browser }
	h.browser = browser.NewManager(browser.Config{
		Workspace: workspace, StateDir: h.opts.StateDir, ExecPath: set.ExecPath,
		Policy:          func() netguard.Policy { return browserPolicy(live()) },
		Enabled:         func() bool { return live().IsEnabled() },
		EvaluateEnabled: func() bool { return live().EvaluateAllowed() },
		DefaultProfile:  set.DefaultProfile, Profiles: set.Profiles,
		Log:     h.log.With("component", "browser"),
		Sandbox: h.browserBox,
	})
	return h.browser.Tool()
}

// browserSettings are the browser keys a reload hands to the running
// manager: the Chromium binary, the default profile and the configured
// profiles.
func browserSettings(cfg config.Browser) browser.Settings {
	profiles := map[string]browser.Profile{}
	for name, p := range cfg.Profiles {
		profiles[name] = browser.Profile{Name: name, CDPPort: p.CDPPort, CDPURL: p.CDPURL}
	}
	return browser.Settings{ExecPath: cfg.ExecutablePath, DefaultProfile: cfg.DefaultProfile, Profiles: profiles}
}

// browserPolicy is the SSRF policy pages may load under, from
// browser.ssrfPolicy: public addresses only unless the config allows
// more.
func browserPolicy(b config.Browser) netguard.Policy {
	var p netguard.Policy
	if b.SSRFPolicy.DangerouslyAllowPrivateNetwork {
		p.Allow = []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}
	}
	p.AllowHosts = b.SSRFPolicy.AllowedHostnames
	return p
}

// hostBrowser hands xhs_publish the browser tool's Manager, so the note is
// filled in the same profiles (and cookies) the browser tool uses. The
// Manager is made after the content studio tools, so it is looked up at
// each call.
type hostBrowser struct{ h *Host }

func (b hostBrowser) Page(ctx context.Context, profile string) (context.Context, func(), error) {
	if b.h.browser == nil {
		return nil, nil, errors.New("the browser is not set up")
	}
	return b.h.browser.Page(ctx, profile)
}

func (b hostBrowser) ProfileDir(profile string) string {
	if b.h.browser == nil {
		return "the browser's profile"
	}
	return b.h.browser.ProfileDir(profile)
}

// browserBox puts a sandboxed caller's browser inside its sandbox, so
// that file: URLs and uploads see what its commands see, not the host.
// Only the local backend can hold a browser; the others refuse rather
// than fall back to the host's.
func (h *Host) browserBox(who tools.Who) (string, func([]string) ([]string, error), error) {
	b, err := h.box(who)
	switch {
	case err != nil:
		return "", nil, err
	case b == nil:
		return "", nil, nil
	case b.Backend != sandbox.BackendLocal:
		return "", nil, fmt.Errorf("this session's sandbox (backend %s) cannot hold a browser; only the local sandbox can", b.Backend)
	}
	return b.Key, func(argv []string) ([]string, error) { return h.sandboxes.BrowserCommand(b, argv) }, nil
}
