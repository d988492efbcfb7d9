// Package gateway is the composition root of the gateway process: System
// builds the parts in order (the wings under gateway/ and the services
// below them, each from small interfaces), serves the WebSocket bus and
// HTTP on one port, applies config reloads as one transaction across the
// parts, and stops them in reverse. Features live in the parts, never
// here; docs/ARCHITECTURE.md says where a new one goes. Only cmd/openclaw
// imports it.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
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
	"github.com/openclaw-go/openclaw/gateway/memtrim"
	"github.com/openclaw-go/openclaw/gateway/pluginhost"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/gateway/statelock"
	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/gateway/toolhost"
	"github.com/openclaw-go/openclaw/nodes"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/contentstudio"
	"github.com/openclaw-go/openclaw/tools/memory"
	"github.com/openclaw-go/openclaw/tools/wiki"
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
	// toolhost lets this package's tests point the tools at fakes of the
	// services they call.
	toolhost func(*toolhost.Options)
	// storeURL, when set, puts the state on this PostgreSQL database
	// whatever the config says: this package's tests run on either engine.
	storeURL string
}

// ErrRestart is returned by Run when a restart was asked for.
var ErrRestart = errors.New("gateway restart requested")

// DefaultPort is the gateway's port; DevPort is used with --dev.
const (
	DefaultPort = 18789
	DevPort     = 19001
)

// System is a running gateway.
type System struct {
	opts     Options
	log      *slog.Logger
	logLevel *slog.LevelVar // the log file's
	// consoleLevel is stderr's (logging.consoleLevel).
	consoleLevel *slog.LevelVar
	logFile      string
	version      string
	started      time.Time
	store        *store.Store
	storePath    string
	// lease is this gateway's claim on a shared PostgreSQL store (nil on
	// SQLite); role is roleActive or roleStandby (wire_store.go).
	lease *store.Lease
	role  atomic.Value
	srv   *rpc.Server
	// The parts, in the order serve builds them (wire_*.go); parts holds
	// the same as the part contract sees them.
	devices   *devices.Registry
	sessions  *sessions.Store
	agents    *agents.Service
	admin     *admin.Wing
	plugins   *pluginhost.Host
	channels  *channelhost.Host
	toolhost  *toolhost.Host
	nodes     *nodes.Registry
	automator *automation.Wing
	parts     []part
	addr      net.Addr
	state     atomic.Pointer[live]
	reloadMu  sync.Mutex // one reload at a time
	// envFromConfig are the variables env.vars set in the environment.
	envFromConfig map[string]bool
	restartCh     chan struct{} // config.apply asks for a restart here
	// bg lives as long as the gateway serves: work started by a request
	// that outlives it (a wake's heartbeat turn) runs under it.
	bg   context.Context
	bgWG sync.WaitGroup
	// bgMu guards bgClosed: once the gateway waits for its background
	// work, new work is refused (a background exec that ends during the
	// shutdown still wakes its agent), since a WaitGroup may not grow
	// while it is waited on.
	bgMu     sync.Mutex
	bgClosed bool
}

// closeBackground stops new background work and waits for what runs.
func (s *System) closeBackground() {
	s.bgMu.Lock()
	s.bgClosed = true
	s.bgMu.Unlock()
	s.bgWG.Wait()
}

// requestRestart asks Run to stop and return ErrRestart.
func (s *System) requestRestart() {
	select {
	case s.restartCh <- struct{}{}:
	default:
	}
}

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
	s := &System{opts: opts, version: opts.Version, started: time.Now(), logLevel: new(slog.LevelVar), consoleLevel: new(slog.LevelVar), restartCh: make(chan struct{}, 1)}
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

// Migrations are the schemas of every component that keeps state in the
// gateway's database.
func Migrations() []store.Migrations {
	return []store.Migrations{admin.Migrations(), devices.Migrations(), sessions.Migrations(), tools.Migrations(), memory.Migrations(),
		wiki.Migrations(), channels.Migrations(), nodes.Migrations(), cron.Migrations(), contentstudio.Migrations()}
}

// serve builds the parts in order, opens the port and runs until ctx ends
// or a restart is asked for; then it stops them in reverse.
func (s *System) serve(ctx context.Context, snap *config.Snapshot) error {
	first, err := s.liveFrom(snap)
	if err != nil {
		return err
	}
	s.state.Store(first)
	st, err := s.openStore(ctx, snap.Config)
	if err != nil {
		return err
	}
	s.store, s.storePath = st, st.Path
	defer st.Close()
	if err := s.takeLease(ctx, snap.Config); err != nil {
		return err
	}
	if s.lease != nil {
		// Before the store closes: a standby takes over at its next try.
		defer s.lease.Release(context.Background())
	}
	s.srv = rpc.NewServer(rpc.Options{
		Logger: s.log.With("component", "rpc"), Version: s.version,
		Auth:  func() rpc.AuthConfig { return s.current().auth },
		Hello: func(c *rpc.Conn) protocol.Snapshot { return s.admin.Hello(c) },
		Gate:  s.standbyGate,
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

	// The parts, in build order: each is built from what the ones before
	// it offer. Where a part needs one built after it (the tools announce
	// approvals through the channels, the channels resolve button presses
	// through the tools' approvals), it looks it up at call time. Whatever
	// was built closes on the way out, in reverse order, even when a
	// later build fails.
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
		defer cancel()
		if err := s.closeParts(cctx); err != nil {
			s.log.Error("parts did not close cleanly", "err", err)
		}
	}()
	s.buildDevices()
	s.buildAgents(snap)
	if err := s.buildAdmin(ctx); err != nil {
		return err
	}
	s.buildPlugins()
	s.buildChannels()
	if err := s.buildToolhost(ctx, st); err != nil {
		return err
	}
	s.buildOpenAIHTTP()
	s.buildNodes()
	bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	s.bg = bg
	defer func() { stopBG(); s.closeBackground() }()
	if err := s.buildAutomation(); err != nil {
		return err
	}
	s.inBackground(s.admin.SampleMemory)
	s.startPlugins()
	if s.active() {
		s.retentionLoop()
		// Turns a client was told were accepted and the last process did
		// not finish run now, before any client can ask about them.
		if n, err := s.agents.Resume(ctx); err != nil {
			s.log.Error("could not resume accepted turns", "err", err)
		} else if n > 0 {
			s.log.Info("resumed accepted turns", "count", n)
		}
		// hooks.internal boot-md: each agent's BOOT.md, once per start.
		s.inBackground(func(ctx context.Context) { s.agents.RunBoot(ctx) })
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
	// Channels start after the listener so a webhook can land at once.
	// The scheduler starts once channels can deliver (a job missed while
	// the gateway was down runs now).
	// A standby starts neither: they are the active gateway's to run.
	if s.active() {
		s.channels.Start(ctx)
		if err := s.automator.Start(ctx); err != nil {
			return err
		}
	}
	defer func() {
		// Ahead of the parts' reverse close: the scheduler and the wakes'
		// heartbeat turns end first, then the channels, so no new message
		// arrives while the rest stops.
		stopBG()
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.automator.Stop(cctx)
		s.closeBackground()
		s.channels.Close(cctx)
	}()
	s.log.Info("gateway listening", "url", "ws://"+s.addr.String(), "state", s.opts.StateDir, "config", snap.Path, "auth", s.current().auth.Mode, "store", s.storePath, "role", s.role.Load())
	leaseCtx, stopLease := context.WithCancel(ctx)
	defer stopLease()
	s.watchLease(leaseCtx)
	if s.opts.serving != nil {
		s.opts.serving(s)
	}
	if s.opts.Ready != nil {
		s.opts.Ready(s.addr.String())
	}
	if s.opts.ReadyUI != nil && snap.Config.Gateway.ControlUI.IsEnabled() {
		s.opts.ReadyUI("http://" + s.addr.String() + snap.Config.Gateway.ControlUI.Base() + "/")
	}
	// Start-up (config schema tables, migrations) leaves freed heap behind
	// and has touched much of the binary once; once the first clients and
	// channels have settled, give both back so an idle gateway stays small.
	go s.settle(ctx)

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

// startupSettle is how long after listening the gateway gives start-up's
// memory back: long enough for channels to connect and the first client
// to come, short enough that an idle gateway is small when one looks.
const startupSettle = 3 * time.Second

func (s *System) settle(ctx context.Context) {
	select {
	case <-ctx.Done():
		return
	case <-time.After(startupSettle):
	}
	debug.FreeOSMemory()
	if n, err := memtrim.ReleaseCode(); err != nil {
		s.log.Debug("gateway: release start-up pages", "err", err)
	} else {
		s.log.Debug("gateway: released start-up pages", "bytes", n)
	}
}
