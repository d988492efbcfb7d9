package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/netguard"
)

// Config configures the browser tool (the browser.* keys).
type Config struct {
	// Workspace maps a caller to its workspace directory, where
	// screenshots, PDFs and downloads are saved and uploads are read.
	Workspace func(tools.Who) (string, error)
	// StateDir holds browser/profiles.json and each local profile's
	// user-data dir, browser/<profile>.
	StateDir string
	// ExecPath is the Chromium binary (browser.executablePath). Default:
	// chromium, chromium-browser, google-chrome or google-chrome-stable
	// from PATH.
	ExecPath string
	// Policy says which internal addresses pages may reach
	// (browser.ssrfPolicy). Default: none.
	Policy func() netguard.Policy
	// Resolver resolves the hosts pages ask for, for the guard's checks
	// and its proxy. Default: net.DefaultResolver.
	Resolver netguard.Resolver
	// Enabled turns the tool off when it returns false (browser.enabled).
	// Default: on.
	Enabled func() bool
	// EvaluateEnabled allows act kind=evaluate (browser.evaluateEnabled).
	// Default: allowed.
	EvaluateEnabled func() bool
	// DefaultProfile is used when a call names none
	// (browser.defaultProfile). Default: "openclaw".
	DefaultProfile string
	// Profiles are profiles from the operator's config
	// (browser.profiles.<name>); keys are names. They are listed beside the
	// saved ones and cannot be deleted by the tool.
	Profiles map[string]Profile
	// Log receives start, stop and guard events. Default: discarded.
	Log *slog.Logger
	// Sandbox says whether a caller's browser runs inside its sandbox:
	// the sandbox's key ("" for the host's browsers), and how to wrap
	// Chromium's command line in it. A sandboxed caller gets one browser
	// per key, with its profile inside the box, and cannot pick or manage
	// the host's profiles. An error refuses the call. Default: the host.
	Sandbox func(who tools.Who) (key string, wrap func(argv []string) ([]string, error), err error)
}

// DefaultProfileName is the profile used when none is configured.
const DefaultProfileName = "openclaw"

// Manager owns the running browsers, one per profile.
type Manager struct {
	cfg Config
	log *slog.Logger
	now func() time.Time
	// set holds the settings a config reload may change (Reconfigure);
	// cfg's copies of them are only the start values.
	set atomic.Pointer[Settings]

	mu       sync.Mutex
	browsers map[string]*instance
	closed   bool

	// The proxy local browsers send all their traffic through (see
	// proxyServer); started with the first of them.
	proxyMu   sync.Mutex
	proxyAddr string
	proxySrv  *http.Server
	proxy     *netguard.Proxy
}

// NewManager makes a Manager; no browser starts until a call needs one.
func NewManager(cfg Config) *Manager {
	if cfg.DefaultProfile == "" {
		cfg.DefaultProfile = DefaultProfileName
	}
	if cfg.Policy == nil {
		cfg.Policy = func() netguard.Policy { return netguard.Policy{} }
	}
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Manager{
		cfg:      cfg,
		log:      log.With("component", "browser"),
		now:      time.Now,
		browsers: map[string]*instance{},
	}
	m.Reconfigure(Settings{ExecPath: cfg.ExecPath, DefaultProfile: cfg.DefaultProfile, Profiles: cfg.Profiles})
	return m
}

// Settings are the parts of Config a config reload changes while the
// gateway runs. A browser already running keeps the profile it started
// with until it is stopped.
type Settings struct {
	ExecPath       string
	DefaultProfile string
	Profiles       map[string]Profile
}

// Reconfigure swaps in new settings for the calls that follow.
func (m *Manager) Reconfigure(s Settings) {
	if s.DefaultProfile == "" {
		s.DefaultProfile = DefaultProfileName
	}
	m.set.Store(&s)
}

func (m *Manager) settings() *Settings { return m.set.Load() }

// Close stops every browser. Calls after Close fail.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	list := m.browsers
	m.browsers = map[string]*instance{}
	m.mu.Unlock()
	var errs []error
	for _, b := range list {
		errs = append(errs, b.stop())
	}
	m.proxyMu.Lock()
	if m.proxySrv != nil {
		errs = append(errs, m.proxySrv.Close())
		m.proxy.Close()
		m.proxySrv, m.proxyAddr = nil, ""
	}
	m.proxyMu.Unlock()
	return errors.Join(errs...)
}

// proxyServer returns the address of the guarded proxy that local
// browsers use for every request, starting it on a loopback port the
// first time. Chromium resolves names again when it connects, after the
// request guard has checked them; through the proxy, the name is
// resolved and checked once and the checked address is the one dialled,
// so a rebinding answer cannot reach an internal address.
func (m *Manager) proxyServer() (string, error) {
	m.proxyMu.Lock()
	defer m.proxyMu.Unlock()
	if m.proxyAddr != "" {
		return m.proxyAddr, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("browser network guard proxy: %w", err)
	}
	m.proxy = netguard.NewProxy(netguard.ProxyOptions{Policy: m.cfg.Policy, Resolver: m.cfg.Resolver, Log: m.log})
	m.proxySrv = &http.Server{Handler: m.proxy, ReadHeaderTimeout: 10 * time.Second}
	go m.proxySrv.Serve(ln)
	m.proxyAddr = ln.Addr().String()
	return m.proxyAddr, nil
}

// running returns the profile's browser if it runs.
func (m *Manager) running(name string) *instance {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.browsers[name]
	if b != nil && b.dead() {
		delete(m.browsers, name)
		return nil
	}
	return b
}

// ensure returns the profile's browser, starting it (or attaching, for a
// remote profile) when it does not run.
func (m *Manager) ensure(ctx context.Context, name string) (*instance, error) {
	return m.ensureBox(ctx, name, nil)
}

// sandboxProfile is the profile of the browser of the sandbox key.
func sandboxProfile(key string) string { return "sandbox-" + key }

// boxedDataDir is a sandboxed browser's user-data dir, in the box's
// private /tmp: the host's profile folders are not in the box.
const boxedDataDir = "/tmp/openclaw-browser"

// ensureBox is ensure for name, or, with wrap, for a sandbox's browser
// named name, which no saved profile describes.
func (m *Manager) ensureBox(ctx context.Context, name string, wrap func([]string) ([]string, error)) (*instance, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errors.New("browser manager is closed")
	}
	if b := m.browsers[name]; b != nil {
		if !b.dead() {
			return b, nil
		}
		b.stop()
		delete(m.browsers, name)
	}
	var p Profile
	if wrap != nil {
		p = Profile{Name: name, wrap: wrap}
	} else {
		var err error
		if p, err = m.profile(name); err != nil {
			return nil, err
		}
	}
	var err error
	if p.Remote() || p.CDPPort != 0 {
		b, err := m.start(ctx, p)
		if errors.Is(err, errExitedAtStart) {
			m.log.Warn("chromium exited at start, starting it once more", "profile", name)
			b, err = m.start(ctx, p)
		}
		if err != nil {
			return nil, err
		}
		m.browsers[name] = b
		return b, nil
	}
	// The implicit default profile takes a free port at each start (the
	// ports of saved profiles stay theirs); another program may take it
	// between the check and Chromium's bind, so a taken port is skipped.
	list, _ := m.profiles()
	used := usedPorts(list)
	for _, b := range m.browsers {
		used[b.port] = true
	}
	crashed := false
	for taken := 0; taken < 3; {
		if p.CDPPort, err = freePort(used); err != nil {
			return nil, err
		}
		b, err := m.start(ctx, p)
		if errors.Is(err, errPortTaken) {
			m.log.Info("DevTools port taken, trying another", "port", p.CDPPort, "err", err)
			used[p.CDPPort] = true
			taken++
			continue
		}
		if errors.Is(err, errExitedAtStart) && !crashed {
			m.log.Warn("chromium exited at start, starting it once more", "profile", name)
			crashed = true
			continue
		}
		if err != nil {
			return nil, err
		}
		m.browsers[name] = b
		return b, nil
	}
	return nil, fmt.Errorf("start browser of profile %q: three DevTools ports in a row were taken by other programs", name)
}

// stopProfile stops the profile's browser if it runs; it reports whether
// one did.
func (m *Manager) stopProfile(name string) (bool, error) {
	m.mu.Lock()
	b := m.browsers[name]
	delete(m.browsers, name)
	m.mu.Unlock()
	if b == nil {
		return false, nil
	}
	return true, b.stop()
}

func (m *Manager) execPath() (string, error) {
	if p := m.settings().ExecPath; p != "" {
		return p, nil
	}
	return FindChromium()
}

// FindChromium looks for a Chromium or Chrome binary on PATH.
func FindChromium() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found on PATH (install chromium or set browser.executablePath)")
}

func (m *Manager) evaluateEnabled() bool {
	return m.cfg.EvaluateEnabled == nil || m.cfg.EvaluateEnabled()
}

func (m *Manager) enabled() bool {
	return m.cfg.Enabled == nil || m.cfg.Enabled()
}

// workspace returns the caller's workspace directory, created if need be.
func (m *Manager) workspace(who tools.Who) (string, error) {
	if m.cfg.Workspace == nil {
		return "", errors.New("no workspace configured for the browser tool")
	}
	dir, err := m.cfg.Workspace(who)
	if err != nil {
		return "", err
	}
	if dir == "" {
		return "", errors.New("no workspace directory for this agent")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("workspace: %w", err)
	}
	return dir, nil
}
