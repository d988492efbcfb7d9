package gateway

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store"
)

// loadConfig reads the config, writing a fresh one with a random token on
// first run.
func (s *System) loadConfig() (*config.Snapshot, error) {
	if err := os.MkdirAll(s.opts.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("create state dir %s: %w", s.opts.StateDir, err)
	}
	os.Chmod(s.opts.StateDir, 0o700)
	s.hintMigrate()
	if _, err := os.Stat(s.opts.ConfigPath); errors.Is(err, os.ErrNotExist) {
		token := randomToken()
		if err := os.MkdirAll(filepath.Dir(s.opts.ConfigPath), 0o700); err != nil {
			return nil, fmt.Errorf("create config dir: %w", err)
		}
		content := config.DefaultFile(token)
		if s.opts.Dev {
			// The dev profile lives on its own port so it can run beside
			// the main gateway; the CLI's --dev reads it from this file.
			if c, err := config.Set(content, "gateway.port", DevPort); err == nil {
				content = c
			}
		}
		if err := os.WriteFile(s.opts.ConfigPath, content, 0o600); err != nil {
			return nil, fmt.Errorf("write first config %s: %w", s.opts.ConfigPath, err)
		}
		fmt.Fprintf(s.opts.Stderr, "openclaw: wrote a new config to %s with a random gateway token (gateway.auth.token)\n", s.opts.ConfigPath)
	}
	snap, err := config.Load(s.opts.ConfigPath, s.loadOptions())
	if err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	s.applyEnvVars(snap)
	s.resolveSecrets(context.Background(), snap)
	if err := s.checkStartable(snap); err != nil {
		return nil, err
	}
	s.warnHookTokenReuse(snap)
	return snap, nil
}

// warnHookTokenReuse says, as OpenClaw does at start, when hooks.token is
// also a secret of the gateway's own auth: whoever holds the token a
// webhook sender is given (often a third-party service) could then also
// drive the gateway as an operator. It is a warning, not a refusal, so a
// config carried over from OpenClaw still starts. Neither value is shown.
func (s *System) warnHookTokenReuse(snap *config.Snapshot) {
	h := snap.Config.Hooks
	if !h.Enabled || h.Token == "" || s.opts.Stderr == nil {
		return
	}
	auth := snap.Config.Gateway.Auth
	token := cmp.Or(s.opts.Token, auth.Token.Value)
	var reused string
	switch h.Token {
	case token:
		reused = "gateway.auth.token"
	case auth.Password.Value:
		reused = "gateway.auth.password"
	default:
		return
	}
	fmt.Fprintf(s.opts.Stderr, "openclaw: warning: hooks.token is the same secret as %s, so a webhook sender could also act as an operator; give hooks.token its own random value\n", reused)
}

// hintMigrate says how to bring over an OpenClaw install's state when our
// state has no database yet and OpenClaw's default install
// (~/.openclaw/state/openclaw.sqlite) exists.
func (s *System) hintMigrate() {
	if _, err := os.Stat(filepath.Join(s.opts.StateDir, store.FileName)); !errors.Is(err, os.ErrNotExist) {
		return
	}
	home := s.opts.Getenv("OPENCLAW_HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	install := filepath.Join(home, ".openclaw")
	if st, err := os.Stat(filepath.Join(install, "state", "openclaw.sqlite")); home == "" || err != nil || !st.Mode().IsRegular() {
		return
	}
	fmt.Fprintf(s.opts.Stderr, "openclaw: found an OpenClaw install at %s; to keep its paired devices, nodes, exec approvals and workspaces, stop it and run `openclaw migrate --from %s` (--dry-run shows what it imports)\n", install, install)
}

func (s *System) loadOptions() config.LoadOptions {
	return config.LoadOptions{Getenv: s.opts.Getenv, IncludeRoots: s.opts.IncludeRoots}
}

// checkStartable refuses configs the gateway cannot start with.
func (s *System) checkStartable(snap *config.Snapshot) error {
	g := snap.Config.Gateway
	if g.Mode == "remote" {
		return fmt.Errorf("%s: gateway.mode is \"remote\": this machine's CLI talks to a gateway elsewhere; set gateway.mode to \"local\" to run one here", snap.Path)
	}
	if err := s.checkSecrets(snap); err != nil {
		return err
	}
	host, err := s.bindHost(snap)
	if err != nil {
		return err
	}
	// The --auth flag counts as much as the file: `--bind lan --auth none`
	// would otherwise open the bus to the whole network.
	mode, from := g.Auth.Mode, snap.Path+": gateway.auth.mode"
	if s.opts.AuthMode != "" {
		mode, from = s.opts.AuthMode, "--auth"
	}
	if mode == "none" && !loopbackHost(host) {
		return fmt.Errorf("%s \"none\" is refused on a non-loopback bind (%s); use token auth", from, host)
	}
	if g.Auth.Mode == "trusted-proxy" && s.opts.AuthMode == "" {
		// Without both, any client could name its own user: the header
		// is only worth what the address it came from is.
		switch {
		case len(g.TrustedProxies) == 0:
			return fmt.Errorf("%s: gateway.auth.mode \"trusted-proxy\" needs gateway.trustedProxies: the addresses of the proxies whose identity header is believed", snap.Path)
		case strings.TrimSpace(g.Auth.TrustedProxy.UserHeader) == "":
			return fmt.Errorf("%s: gateway.auth.mode \"trusted-proxy\" needs gateway.auth.trustedProxy.userHeader: the header the proxy puts the user in", snap.Path)
		}
	}
	return nil
}

// checkSecrets refuses a config with a secret whose environment variable
// is not set: started anyway, the gateway would run with no token, or a
// channel would log in with nothing. The secrets of gateway.remote are
// the CLI's, and a --token on the command line replaces
// gateway.auth.token, so those do not count.
func (s *System) checkSecrets(snap *config.Snapshot) error {
	var msgs []string
	for _, is := range snap.UnresolvedSecrets {
		switch {
		case strings.HasPrefix(is.Path, "gateway.remote."):
		case strings.HasPrefix(is.Path, "skills.entries."):
			// A skill without its key is only that skill unavailable.
		case is.Path == "gateway.auth.token" && s.opts.Token != "":
		default:
			msgs = append(msgs, is.String())
		}
	}
	switch len(msgs) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%s (set it, or write the value in the config)", msgs[0])
	}
	return fmt.Errorf("%d secrets are unavailable (set the variables, or write the values in the config):\n  %s", len(msgs), strings.Join(msgs, "\n  "))
}

func randomToken() string {
	b := make([]byte, 24)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// port resolves --port > OPENCLAW_GATEWAY_PORT > gateway.port > default.
func (s *System) port(snap *config.Snapshot) int {
	if s.opts.Port < 0 {
		return 0 // any free port (tests)
	}
	if s.opts.Port != 0 {
		return s.opts.Port
	}
	if v := s.opts.Getenv("OPENCLAW_GATEWAY_PORT"); v != "" {
		if p, err := strconv.Atoi(v); err == nil && p > 0 && p < 65536 {
			return p
		}
	}
	if _, set := config.Lookup(snap.Tree, "gateway", "port"); set && snap.Config.Gateway.Port != 0 {
		return snap.Config.Gateway.Port
	}
	if s.opts.Dev {
		return DevPort
	}
	return DefaultPort
}

func (s *System) bindHost(snap *config.Snapshot) (string, error) {
	mode := snap.Config.Gateway.Bind
	if s.opts.Bind != "" {
		mode = s.opts.Bind
	}
	switch mode {
	case "", "loopback", "tailnet":
		// Without Tailscale on this machine, tailnet falls back to loopback.
		return "127.0.0.1", nil
	case "lan", "auto":
		return "0.0.0.0", nil
	case "custom":
		h := snap.Config.Gateway.CustomBindHost
		if _, err := netip.ParseAddr(h); err != nil {
			return "", fmt.Errorf("%s: gateway.customBindHost %q is not an IP address", snap.Path, h)
		}
		return h, nil
	default:
		return "", fmt.Errorf("bind %q is not one of loopback, lan, tailnet, auto, custom", mode)
	}
}

func (s *System) listenHost() string {
	if a, ok := s.addr.(*net.TCPAddr); ok {
		return a.IP.String()
	}
	return ""
}

// loopbackHost reports whether a bind host reaches only this machine. An
// empty host or a name other than localhost listens further.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
