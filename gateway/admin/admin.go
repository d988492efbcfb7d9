// Package admin is the gateway's admin wing: what an operator asks of the
// gateway itself. It serves health, status, system-presence,
// gateway.identity.get, logs.tail, config.get, config.schema, config.set,
// config.apply, config.patch, diagnostics.stability and
// doctor.memory.status. It keeps the health snapshot (with the config
// watcher's state), the ring of memory samples and the gateway's device
// identity, and it is the one writer of the config file: WriteConfig and
// BootstrapOwner, which the root hands to the other parts that change the
// config.
//
// It is built from Options by the root and never reaches back into it:
// the running config, the reload transaction and everything owned by
// other parts come in as funcs and small interfaces.
package admin

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// Options are what the admin wing needs from the rest of the gateway.
// Every func is called at request time, so it sees the running state.
type Options struct {
	Log *slog.Logger
	// Config is the running config snapshot.
	Config func() *config.Snapshot
	// LoadOptions are how the config file is read (environment, include
	// roots), for config.get's fresh read and the checks of a write.
	LoadOptions config.LoadOptions
	// CheckStartable refuses a config the gateway could not start with.
	CheckStartable func(*config.Snapshot) error
	// Apply makes a config just written the running one (the root's
	// reload transaction); an error leaves the running config as it was.
	Apply func(*config.Snapshot) error
	// Restart asks the gateway to restart: config.apply calls it when a
	// changed field applies only after one.
	Restart func()
	// AuthMode is the running gateway.auth mode, for status.
	AuthMode func() string
	// ListenHost is the address the gateway listens on, for presence.
	ListenHost func() string
	// Sessions is the session store, for the figures health and status
	// report.
	Sessions SessionLister
	// ChannelStatus is the channel manager's status (channelOrder,
	// channelLabels, channelAccounts, channels); nil before the channels
	// are built. It may be nil.
	ChannelStatus func() map[string]any
	// StoreStatus describes the store and this gateway's role on it
	// (active or standby), for status; optional.
	StoreStatus func(ctx context.Context) map[string]any
	// DB is the gateway's database: the gateway identity's table (see
	// Migrations) and the memory index doctor.memory.status counts.
	DB *sql.DB
	// Heartbeat is how the heartbeat runner fills what an agent's config
	// leaves out, as health reports it.
	Heartbeat HeartbeatDefaults

	Version   string
	Started   time.Time
	StateDir  string
	StorePath string // the database file, named by health and status
	LogFile   string // the file logs.tail reads
}

// SessionLister is what health and status read of the session store.
type SessionLister interface {
	List(ctx context.Context, f sessions.ListFilter) ([]sessions.Session, int, error)
	// Changes counts the store's writes; the health cache compares it
	// to know its snapshot is fresh without a query per call.
	Changes() uint64
}

// HeartbeatDefaults are the heartbeat runner's defaults.
type HeartbeatDefaults struct {
	Prompt      string // sent when heartbeat.prompt is unset
	AckMaxChars int    // text allowed beside the ack token
}

// bus is what the wing reads of the RPC server once registered.
type bus interface {
	BootID() string
	Conns() []*rpc.Conn
}

// Wing is the admin wing.
type Wing struct {
	opts      Options
	log       *slog.Logger
	identity  Identity
	health    *healthCache
	reload    reloadState
	stability stabilityRing // diagnostics.stability's events
	configMu  sync.Mutex    // serialises config writes
	bus       bus           // set by Register, before any connection
}

// New builds the wing, loading the gateway's identity (creating it on
// first start).
func New(ctx context.Context, opts Options) (*Wing, error) {
	if opts.Config == nil || opts.Sessions == nil || opts.DB == nil || opts.CheckStartable == nil || opts.Apply == nil || opts.Restart == nil {
		return nil, errors.New("admin: Config, Sessions, DB, CheckStartable, Apply and Restart are required")
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.AuthMode == nil {
		opts.AuthMode = func() string { return "" }
	}
	w := &Wing{opts: opts, log: opts.Log}
	id, err := loadIdentity(ctx, opts.DB)
	if err != nil {
		return nil, fmt.Errorf("admin: %w", err)
	}
	w.identity = id
	w.health = &healthCache{build: w.buildHealth, ttl: healthTTL, state: w.sessionsState}
	return w, nil
}

// Name names the wing.
func (w *Wing) Name() string { return "admin" }

// Register adds the admin methods. health answers any authenticated
// connection, nodes included; the reads never block, so they run inline on
// the connection's reader.
func (w *Wing) Register(srv *rpc.Server, mux *http.ServeMux) {
	w.bus = srv
	srv.Handle("health", rpc.Route{Scope: protocol.ScopeNone, Inline: true, Handler: rpc.Typed(w.handleHealth)})
	read := func(method string, h rpc.Handler) {
		srv.Handle(method, rpc.Route{Scope: protocol.ScopeRead, Inline: true, Handler: h})
	}
	read("status", rpc.Typed(w.handleStatus))
	// These two ignore their params altogether, as they always have.
	read("system-presence", func(ctx context.Context, req *rpc.Request) (any, error) {
		return w.Presence(), nil
	})
	read("gateway.identity.get", func(ctx context.Context, req *rpc.Request) (any, error) {
		return w.identity, nil
	})
	read("diagnostics.stability", w.handleStability)
	srv.Handle("doctor.memory.status", rpc.Route{Scope: protocol.ScopeRead, Handler: rpc.Typed(w.handleDoctorMemoryStatus)})
	srv.HandleFunc("logs.tail", rpc.Typed(w.handleLogsTail))
	w.registerConfig(srv)
}

// Prepare has nothing to build: every answer reads the running config.
func (w *Wing) Prepare(*config.Snapshot) (func(), error) { return nil, nil }

// Close has nothing to stop: the memory sampler ends with its context.
func (w *Wing) Close(context.Context) error { return nil }
