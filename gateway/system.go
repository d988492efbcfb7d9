// Package gateway is the one wiring point of the gateway process: System
// builds every part from the config, serves the WebSocket bus and HTTP on
// one port, applies config reloads as transactions, and stops in order.
// Only cmd/openclaw imports it.
package gateway

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/admin"
	"github.com/openclaw-go/openclaw/gateway/automation"
	"github.com/openclaw-go/openclaw/gateway/channelhost"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/cron"
	"github.com/openclaw-go/openclaw/gateway/devices"
	"github.com/openclaw-go/openclaw/gateway/pluginhost"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/gateway/statelock"
	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/gateway/toolhost"
	"github.com/openclaw-go/openclaw/nodes"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/memory"
)

// Options are what the command line decides. Zero values mean "from the
// config file or the default".
type Options struct {
	StateDir     string
	ConfigPath   string
	IncludeRoots []string
	Port         int    // --port or OPENCLAW_GATEWAY_PORT
	Bind         string // --bind
	Token        string // --token or OPENCLAW_GATEWAY_TOKEN
	AuthMode     string // --auth
	Dev          bool
	Verbose      bool // log at debug level whatever logging.level says
	Version      string
	Getenv       func(string) string
	Stderr       io.Writer
	// StateLock is the caller's claim on StateDir, held across in-process
	// restarts; when nil, Run claims the state directory itself.
	StateLock *statelock.Lock
	// Restart, when it receives, makes Run stop and return ErrRestart.
	Restart <-chan struct{}
	// ShutdownTimeout bounds the graceful stop. Default 10 s.
	ShutdownTimeout time.Duration
	// Ready, if set, gets the listening address once serving.
	Ready func(addr string)
	// ReadyUI, if set, gets the Control UI's address once serving, when
	// gateway.controlUi is enabled.
	ReadyUI func(url string)

	// serving lets this package's tests see the running parts.
	serving func(*System)
}

// ErrRestart is returned by Run when a restart was asked for.
var ErrRestart = errors.New("gateway restart requested")

// DefaultPort is the gateway's port; DevPort is used with --dev.
const (
	DefaultPort = 18789
	DevPort     = 19001
)

// live is the part of the config that can change while running.
type live struct {
	snap         *config.Snapshot
	toolPolicy   policy.Config
	guard        *policy.Guard
	hooks        *tools.ConfigHooks
	auth         rpc.AuthConfig
	pairing      devices.Policy
	reloadStatus string
}

// System is a running gateway.
type System struct {
	opts      Options
	log       *slog.Logger
	logLevel  *slog.LevelVar
	logFile   string
	version   string
	started   time.Time
	store     *store.Store
	storePath string
	srv       *rpc.Server
	devices   *devices.Registry
	agents    *agents.Service
	sessions  *sessions.Store // read for the health and status figures
	toolhost  *toolhost.Host  // the tool wing (see wire_toolhost.go)
	// tools, policy, approvals and audit are the tool wing's, handed to
	// the parts that still live in the root.
	tools     *tools.Runner
	policy    tools.ToolSetPolicy
	approvals *tools.Approvals
	audit     *tools.SQLAudit
	channels  *channelhost.Host
	nodes     *nodes.Registry
	automator *automation.Wing
	plugins   *pluginhost.Host
	admin     *admin.Wing // health, status, presence, config.*, diagnostics
	addr      net.Addr
	parts     []part // built in order; see part.go
	state     atomic.Pointer[live]
	restartCh chan struct{} // config.apply asks for a restart here
	// bg lives as long as the gateway serves: work started by a request
	// that outlives it (a wake's heartbeat turn) runs under it.
	bg   context.Context
	bgWG sync.WaitGroup
}

// requestRestart asks Run to stop and return ErrRestart.
func (s *System) requestRestart() {
	select {
	case s.restartCh <- struct{}{}:
	default:
	}
}

func (s *System) current() *live { return s.state.Load() }

// Run starts the gateway and blocks until ctx ends (graceful stop, nil) or
// a restart is requested (ErrRestart).
func Run(ctx context.Context, opts Options) error {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.ShutdownTimeout == 0 {
		opts.ShutdownTimeout = 10 * time.Second
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.StateLock == nil {
		// Before the config is read: two first runs must not both write one.
		lock, err := statelock.Acquire(opts.StateDir, opts.ConfigPath)
		if err != nil {
			return err
		}
		defer lock.Release()
		opts.StateLock = lock
	}
	s := &System{opts: opts, version: opts.Version, started: time.Now(), logLevel: new(slog.LevelVar), restartCh: make(chan struct{}, 1)}
	snap, err := s.loadConfig()
	if err != nil {
		return err
	}
	closeLog, err := s.setupLogging(snap)
	if err != nil {
		return err
	}
	defer closeLog()
	for _, w := range snap.Warnings {
		s.log.Warn("config: " + w.String())
	}
	return s.serve(ctx, snap)
}

// loadConfig reads the config, writing a fresh one with a random token on
// first run.
func (s *System) loadConfig() (*config.Snapshot, error) {
	if err := os.MkdirAll(s.opts.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("create state dir %s: %w", s.opts.StateDir, err)
	}
	os.Chmod(s.opts.StateDir, 0o700)
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
	if err := s.checkStartable(snap); err != nil {
		return nil, err
	}
	return snap, nil
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
	if ip, err := netip.ParseAddr(host); err == nil && !ip.IsLoopback() && g.Auth.Mode == "none" {
		return fmt.Errorf("%s: gateway.auth.mode \"none\" is refused on a non-loopback bind (%s); use token auth", snap.Path, host)
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
	if _, set := lookup(snap.Tree, "gateway", "port"); set && snap.Config.Gateway.Port != 0 {
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

// liveFrom derives the hot settings from a snapshot. It fails for tool
// policy or guard rules the policy package refuses.
func (s *System) liveFrom(snap *config.Snapshot) (*live, error) {
	tp, err := toolhost.PolicyConfig(snap.Config)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", snap.Path, err)
	}
	guard, err := toolhost.NewGuard(snap.Config)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", snap.Path, err)
	}
	hooks, err := toolhost.NewHooks(snap.Config)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", snap.Path, err)
	}
	g := snap.Config.Gateway
	token := g.Auth.Token.Value
	if v := s.opts.Getenv("OPENCLAW_GATEWAY_TOKEN"); v != "" && token == "" {
		token = v
	}
	if s.opts.Token != "" {
		token = s.opts.Token
	}
	password := g.Auth.Password.Value
	if v := s.opts.Getenv("OPENCLAW_GATEWAY_PASSWORD"); v != "" && password == "" {
		password = v
	}
	rl := g.Auth.RateLimit
	a := rpc.AuthConfig{
		Mode: g.Auth.Mode, Token: token, Password: password, AllowedOrigins: g.ControlUI.AllowedOrigins,
		TrustedProxies: parsePrefixes(s.log, "gateway.trustedProxies", g.TrustedProxies),
		RateLimit: rpc.RateLimitConfig{
			MaxAttempts: rl.MaxAttempts, Window: time.Duration(rl.WindowMs) * time.Millisecond,
			Lockout: time.Duration(rl.LockoutMs) * time.Millisecond, ExemptLoopback: rl.ExemptLoopback == nil || *rl.ExemptLoopback,
		},
	}
	if s.opts.AuthMode != "" {
		a.Mode = s.opts.AuthMode
	}
	if a.Mode == "" {
		a.Mode = "token"
	}
	np := g.Nodes.Pairing
	status := "active"
	if g.Reload.Mode == "off" {
		status = "off"
	}
	return &live{
		snap: snap, auth: a, reloadStatus: status, toolPolicy: tp, guard: guard, hooks: hooks,
		pairing: devices.Policy{
			AutoApproveLocal: np.AutoApproveLocal == nil || *np.AutoApproveLocal,
			AutoApproveCIDRs: parsePrefixes(s.log, "gateway.nodes.pairing.autoApproveCidrs", np.AutoApproveCIDRs),
		},
	}, nil
}

func parsePrefixes(log *slog.Logger, key string, in []string) []netip.Prefix {
	var out []netip.Prefix
	for _, v := range in {
		if p, err := netip.ParsePrefix(v); err == nil {
			if p.Addr().Is4In6() && p.Bits() >= 96 {
				// Client addresses are unmapped before they are
				// compared, so ::ffff:10.0.0.0/104 must be 10.0.0.0/8.
				p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
			}
			out = append(out, p.Masked())
		} else if a, err := netip.ParseAddr(v); err == nil {
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
		} else if log != nil {
			log.Warn("ignoring bad address in config", "key", key, "value", v)
		}
	}
	return out
}

// serve runs the listener until ctx ends or a restart is asked for.
func (s *System) serve(ctx context.Context, snap *config.Snapshot) error {
	first, err := s.liveFrom(snap)
	if err != nil {
		return err
	}
	s.state.Store(first)
	st, err := store.Open(ctx, filepath.Join(s.opts.StateDir, store.FileName), admin.Migrations(), devices.Migrations(), sessions.Migrations(), tools.Migrations(), memory.Migrations(), channels.Migrations(), nodes.Migrations(), cron.Migrations())
	if err != nil {
		return err
	}
	s.store, s.storePath = st, st.Path
	defer st.Close()
	s.srv = rpc.NewServer(rpc.Options{
		Logger: s.log.With("component", "rpc"), Version: s.version,
		Auth:  func() rpc.AuthConfig { return s.current().auth },
		Hello: s.helloSnapshot,
		OnConnect: func(c *rpc.Conn) {
			s.log.Info("client connected", "conn", c.ID(), "client", c.Client().ID, "mode", c.Client().Mode, "role", c.Role(), "remote", c.RemoteIP())
			s.nodeConnected(c)
			s.srv.Broadcast(protocol.EventPresence, map[string]any{"presence": s.admin.Presence()})
		},
		OnDisconnect: func(c *rpc.Conn) {
			s.log.Debug("client disconnected", "conn", c.ID())
			s.nodeDisconnected(c)
			s.srv.Broadcast(protocol.EventPresence, map[string]any{"presence": s.admin.Presence()})
		},
	})
	s.devices = devices.New(st.DB, s.log.With("component", "devices"), func() devices.Policy { return s.current().pairing }, s.srv)
	s.srv.SetPairing(s.devices, s.devices.RecordAuthFailure)
	s.devices.Register(s.srv)
	s.sessions = sessions.New(st.DB, s.log)
	s.agents = agents.New(snap.Config, agents.Options{
		Store: s.sessions, Emit: s.srv, Log: s.log.With("component", "agents"), StateDir: s.opts.StateDir,
		PromptInjections: func() []string { return s.current().hooks.Injections() },
		SkillDirectory:   s.skillDirectory,
		AfterLLM: func() (func(string) string, bool) {
			h := s.current().hooks
			return h.AfterLLM, h.HasAfterLLM()
		},
	})
	defer s.agents.Close()
	s.agents.SeedWorkspaces()
	s.buildPlugins()
	s.buildChannels()
	if err := s.buildToolhost(ctx, st); err != nil {
		return err
	}
	// A start that fails before closeParts is deferred still stops the
	// tools' processes and browsers; after closeParts this is a no-op.
	defer s.toolhost.Close(context.Background())
	s.agents.Register(s.srv)
	if err := s.buildAdmin(ctx); err != nil {
		return err
	}
	s.wireNodes()
	bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	s.bg = bg
	defer func() { stopBG(); s.bgWG.Wait() }()
	s.sampleMemoryLoop()
	s.retentionLoop()
	if err := s.buildAutomation(); err != nil {
		return err
	}
	s.startPlugins()
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
		defer cancel()
		if err := s.closeParts(cctx); err != nil {
			s.log.Error("parts did not close cleanly", "err", err)
		}
	}()
	// Turns a client was told were accepted and the last process did not
	// finish run now, before any client can ask about them.
	if n, err := s.agents.Resume(ctx); err != nil {
		s.log.Error("could not resume accepted turns", "err", err)
	} else if n > 0 {
		s.log.Info("resumed accepted turns", "count", n)
	}

	host, err := s.bindHost(snap)
	if err != nil {
		return err
	}
	addr := net.JoinHostPort(host, strconv.Itoa(s.port(snap)))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (is another gateway running? pick another port with --port)", addr, err)
	}
	s.addr = ln.Addr()
	if err := s.opts.StateLock.SetPort(ln.Addr().(*net.TCPAddr).Port); err != nil {
		s.log.Warn("gateway lock does not name the port", "err", err)
	}
	mux := http.NewServeMux()
	s.registerParts(mux)
	httpSrv := &http.Server{
		Handler:           s.httpHandler(mux),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	s.srv.Start()
	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(ln) }()
	// Channels start after the listener so a webhook can land at once;
	// they stop first so no new message arrives during shutdown.
	s.channels.Start(ctx)
	// The scheduler starts once channels can deliver (a job missed while
	// the gateway was down runs now) and stops before them.
	if err := s.automator.Start(ctx); err != nil {
		return err
	}
	defer func() {
		stopBG() // wakes' heartbeat turns end before the channels close
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.automator.Stop(cctx)
		s.bgWG.Wait()
	}()
	s.log.Info("gateway listening", "url", "ws://"+s.addr.String(), "state", s.opts.StateDir, "config", snap.Path, "auth", s.current().auth.Mode)
	if s.opts.serving != nil {
		s.opts.serving(s)
	}
	if s.opts.Ready != nil {
		s.opts.Ready(s.addr.String())
	}
	if s.opts.ReadyUI != nil && snap.Config.Gateway.ControlUI.IsEnabled() {
		s.opts.ReadyUI("http://" + s.addr.String() + snap.Config.Gateway.ControlUI.Base() + "/")
	}
	// Start-up (config schema tables, migrations) leaves freed heap behind;
	// give it back so an idle gateway stays small.
	go debug.FreeOSMemory()

	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	if snap.Config.Gateway.Reload.Mode != "off" {
		w := &config.Watcher{Path: snap.Path, Options: s.loadOptions(), Logger: s.log, Apply: s.applyConfig, Current: snap, Outcome: s.admin.ReloadOutcome}
		s.admin.SetWatching(true)
		go func() {
			if err := w.Run(watchCtx); err != nil {
				s.admin.SetWatching(false)
				s.log.Error("config watcher could not start; edits apply after a restart", "err", err)
			}
		}()
	}

	var result error
	restartMs := int64(0)
	reason := "gateway stopping"
	select {
	case <-ctx.Done():
	case <-s.opts.Restart:
		result, restartMs, reason = ErrRestart, 2000, "gateway restarting"
	case <-s.restartCh:
		result, restartMs, reason = ErrRestart, 2000, "gateway restarting to apply config"
	case err := <-serveErr:
		result = fmt.Errorf("serve: %w", err)
	}
	stopWatch()
	s.log.Info("shutting down", "reason", reason)
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	defer cancel()
	httpSrv.Shutdown(sctx) // stops accepting; hijacked sockets are the bus's to close
	s.srv.Shutdown(sctx, reason, restartMs)
	s.log.Info("gateway stopped")
	return result
}

// helloSnapshot is the snapshot part of hello-ok.
func (s *System) helloSnapshot(c *rpc.Conn) protocol.Snapshot {
	l := s.current()
	cfg := l.snap.Config
	def := cfg.DefaultAgentID()
	mc := cfg.PrimaryModel(def) != ""
	mainKey := sessions.MainKey(def, cfg.Session.MainKey)
	_, mk, _ := strings.Cut(strings.TrimPrefix(mainKey, "agent:"), ":")
	scope := cfg.Session.Scope
	if scope == "" {
		scope = "per-sender"
	}
	if scope == "global" {
		mainKey = "global" // one session for everyone, as OpenClaw names it
	}
	return protocol.Snapshot{
		Presence:          s.admin.Presence(),
		Health:            s.admin.Health(false),
		StateVersion:      protocol.StateVersion{Presence: 1, Health: s.admin.HealthVersion()},
		UptimeMs:          time.Since(s.started).Milliseconds(),
		AppliedConfigHash: l.snap.Hash,
		ConfigPath:        l.snap.Path,
		StateDir:          s.opts.StateDir,
		AuthMode:          l.auth.Mode,
		SessionDefaults: &protocol.SessionDefaults{
			DefaultAgentID: def, MainKey: mk, MainSessionKey: mainKey, Scope: scope, ModelConfigured: &mc,
		},
		Suspension: &protocol.Suspension{Phase: "accepting"},
	}
}

// lookup finds a value in the config tree by key path.
func lookup(tree map[string]any, path ...string) (any, bool) {
	var v any = tree
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}
