package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
)

// runDashboard serves `openclaw dashboard [--url URL] [--open]`: it prints
// the Control UI's address (the local gateway's port, or --url turned into
// http(s)) and with --open hands it to xdg-open. The token is never put in
// the URL: the page asks for it and keeps it in the tab's session storage.
func runDashboard(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw dashboard [--url URL] [--open]")
	rawURL := fs.String("url", "", "gateway `url` (ws://, wss://, http:// or https://); default the local gateway")
	open := fs.Bool("open", false, "open the address with xdg-open")
	dev := fs.Bool("dev", a.dev, "use the dev profile (~/.openclaw-dev, port 19001)")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	addr, err := dashboardURL(*rawURL, *dev)
	if err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, addr)
	fmt.Fprintln(a.stderr, "Log in with the gateway token (gateway.auth.token in openclaw.json); the first time, approve the browser with the `openclaw devices approve` command the page shows.")
	if *open {
		if err := exec.CommandContext(ctx, "xdg-open", addr).Start(); err != nil {
			fmt.Fprintf(a.stderr, "could not open a browser (%v); open %s yourself\n", err, addr)
		}
	}
	return nil
}

// dashboardURL is the Control UI's address: raw (default: the gateway the
// CLI would reach) turned into http(s), without query or credentials.
func dashboardURL(raw string, dev bool) (string, error) {
	base := ""
	if raw == "" {
		// Where the CLI would connect: OPENCLAW_GATEWAY_URL, a remote
		// gateway.remote.url, or the local port (OPENCLAW_GATEWAY_PORT,
		// gateway.port, the default). Credentials are not used.
		t, err := resolveTarget(&gatewayFlags{dev: dev})
		if err != nil {
			return "", err
		}
		raw = t.url
		// The local gateway's UI may live under a base path.
		if local, err := localCredentials(dev); err == nil && !local.Remote && os.Getenv(envGatewayURL) == "" {
			base = local.BasePath
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", usageErrorf("--url %q is not a gateway URL", raw)
	}
	switch strings.ToLower(u.Scheme) {
	case "ws", "http":
		u.Scheme = "http"
	case "wss", "https":
		u.Scheme = "https"
	default:
		return "", usageErrorf("--url %q: scheme must be ws, wss, http or https", raw)
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	if base != "" {
		u.Path = base
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u.String(), nil
}
