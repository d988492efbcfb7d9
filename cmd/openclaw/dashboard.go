package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func init() { registerCommand("", newDashboardCmd) }

// runDashboard is the entry of the older command table; the cobra
// command registered above replaces it in the tree.
func runDashboard(ctx context.Context, a *app, args []string) error {
	c := newDashboardCmd(a)
	c.SetArgs(args)
	c.SetOut(a.stdout)
	c.SetErr(a.stderr)
	return c.ExecuteContext(ctx)
}

// dashboardInfo is `openclaw dashboard --json`, in OpenClaw's field
// names. The token is never in any of the URLs (tokenIncluded is always
// false): the Control UI asks for it and keeps it in the tab's session
// storage, so it stays out of the terminal, shell history, the browser's
// history and the argv of the browser launcher, which any local user can
// read in the process list.
type dashboardInfo struct {
	OK            bool   `json:"ok"`
	URL           string `json:"url"`
	BrowserURL    string `json:"browserUrl"`
	HTTPURL       string `json:"httpUrl"`
	WSURL         string `json:"wsUrl"`
	Port          int    `json:"port,omitempty"`
	TokenIncluded bool   `json:"tokenIncluded"`
}

func newDashboardCmd(a *app) *cobra.Command {
	var rawURL string
	var noOpen, asJSON, yes, legacyOpen bool
	c := &cobra.Command{
		Use:   "dashboard",
		Short: "Open the Control UI in a browser (the token is never put in the URL)",
		Long: "Prints the Control UI's address and opens it with xdg-open (open on macOS). The gateway\n" +
			"token is not part of the URL: paste it into the page, which keeps it for the tab only;\n" +
			"the first time, approve the browser with `openclaw devices approve`.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			a.ran = true
			addr, err := dashboardURL(rawURL, a.dev)
			if err != nil {
				return err
			}
			info, err := newDashboardInfo(addr)
			if err != nil {
				return err
			}
			if asJSON {
				// As OpenClaw: --json never opens a browser.
				return writeJSON(a.stdout, info)
			}
			// stdout is the URL alone, for scripts; the rest is for people.
			fmt.Fprintln(a.stdout, addr)
			fmt.Fprintln(a.stderr, "Log in with the gateway token (gateway.auth.token in openclaw.json, or "+envGatewayToken+"); the first time, approve the browser with the `openclaw devices approve` command the page shows.")
			if noOpen {
				return nil
			}
			if err := openBrowser(cmd.Context(), addr); err != nil {
				fmt.Fprintf(a.stderr, "Could not open a browser (%v); open %s yourself.\n", err, addr)
			} else {
				fmt.Fprintln(a.stderr, "Opened in your browser.")
			}
			return nil
		},
	}
	f := c.Flags()
	f.BoolVar(&noOpen, "no-open", false, "Print URL but do not launch a browser")
	f.BoolVar(&asJSON, "json", false, "Output dashboard connection details as JSON")
	f.BoolVar(&yes, "yes", false, "Start/install the gateway without prompting when needed (accepted; this build never starts one)")
	f.StringVar(&rawURL, "url", "", "gateway `url` (ws://, wss://, http:// or https://); default the local gateway")
	f.BoolVar(&legacyOpen, "open", false, "open the address (the default now)")
	_ = f.MarkHidden("open")
	return c
}

func newDashboardInfo(addr string) (dashboardInfo, error) {
	u, err := url.Parse(addr)
	if err != nil {
		return dashboardInfo{}, err
	}
	ws := *u
	ws.Scheme = "ws"
	if u.Scheme == "https" {
		ws.Scheme = "wss"
	}
	port, _ := strconv.Atoi(u.Port())
	if port == 0 {
		if _, p, err := net.SplitHostPort(u.Host); err == nil {
			port, _ = strconv.Atoi(p)
		}
	}
	return dashboardInfo{OK: true, URL: addr, BrowserURL: addr, HTTPURL: addr, WSURL: ws.String(), Port: port}, nil
}

// browserOpeners are the launchers tried, per platform.
func browserOpeners() [][]string {
	switch runtime.GOOS {
	case "darwin":
		return [][]string{{"open"}}
	case "windows":
		return [][]string{{"rundll32", "url.dll,FileProtocolHandler"}}
	}
	return [][]string{{"xdg-open"}, {"gio", "open"}}
}

// openBrowser hands addr to the first launcher on PATH and waits for it
// (xdg-open and open return once the browser has the URL). The launcher
// gets the URL only, and an environment without the gateway's secrets:
// a browser has no use for them and its helpers log their environment.
func openBrowser(ctx context.Context, addr string) error {
	if runtime.GOOS != "darwin" && runtime.GOOS != "windows" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		// Without a display xdg-open falls back to a terminal browser,
		// which would take over this terminal (or hang a script).
		return fmt.Errorf("no graphical display (DISPLAY and WAYLAND_DISPLAY are unset)")
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for _, o := range browserOpeners() {
		path, err := exec.LookPath(o[0])
		if err != nil {
			continue
		}
		cmd := exec.CommandContext(ctx, path, append(o[1:], addr)...)
		cmd.Env = browserEnv(os.Environ())
		if out, err := cmd.CombinedOutput(); err != nil {
			msg := strings.TrimSpace(string(out))
			if msg != "" {
				return fmt.Errorf("%s: %v: %s", o[0], err, msg)
			}
			return fmt.Errorf("%s: %w", o[0], err)
		}
		return nil
	}
	return fmt.Errorf("no browser launcher found (looked for %s)", openerNames())
}

func openerNames() string {
	var names []string
	for _, o := range browserOpeners() {
		names = append(names, o[0])
	}
	return strings.Join(names, ", ")
}

// browserEnv is env without the variables that carry gateway secrets.
func browserEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case envGatewayToken, envGatewayPassword, "OPENCLAW_GATEWAY_REMOTE_TOKEN":
			continue
		}
		out = append(out, kv)
	}
	return out
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
