package rpc

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// AuthConfig is the live shared-secret configuration. The server reads it
// through Options.Auth on every connect, so a reload takes effect for the
// next handshake without a restart.
type AuthConfig struct {
	Mode     string // none | token | password | trusted-proxy
	Token    string
	Password string
	// AllowedOrigins are browser origins allowed to open the socket, in
	// addition to none (native clients send no Origin).
	AllowedOrigins []string
	// TrustedProxies may forward a client address in X-Forwarded-For.
	TrustedProxies []netip.Prefix
	RateLimit      RateLimitConfig
	// TrustedProxy is read in mode trusted-proxy.
	TrustedProxy TrustedProxyAuth
}

// Options configure a Server. Zero values get the defaults noted.
type Options struct {
	Logger  *slog.Logger
	Version string
	// Auth returns the current auth settings; required.
	Auth func() AuthConfig
	// Pairing decides device-identity connects; nil refuses every device
	// that is not already trusted by a shared secret.
	Pairing Pairing
	// Hello fills the snapshot part of hello-ok for a new connection.
	Hello func(c *Conn) protocol.Snapshot
	// OnAuthFailure records a failed connect attempt (audit); optional.
	OnAuthFailure func(ctx context.Context, f AuthFailure)
	// Gate, when set, may refuse an authorized call before its handler
	// runs (a standby gateway refuses what would write); optional.
	Gate func(method string, rt Route) *protocol.Error
	// OnConnect and OnDisconnect observe authenticated connections.
	OnConnect, OnDisconnect func(c *Conn)
	// HandshakeTimeout bounds open-to-connect. Default 15 s.
	HandshakeTimeout time.Duration
	// MaxPreauth caps unauthenticated sockets at once; at the cap a new
	// socket evicts the oldest idle one (preauth.go). Default 512.
	MaxPreauth int
	// PreauthMinAge is how long an idle socket is safe from eviction;
	// while none is older, a socket past a cap is refused instead.
	// Default 1 s.
	PreauthMinAge time.Duration
	// MaxPreauthPerIP caps one remote address's (an IPv6 /64's)
	// unauthenticated sockets; past it a socket is refused with 503, as
	// OpenClaw does. Direct loopback is not capped by address. Default 32.
	MaxPreauthPerIP int
	// MaxPreauthPerOrigin caps one browser Origin's unauthenticated
	// sockets; past it a new one evicts that origin's oldest idle socket.
	// Default 32.
	MaxPreauthPerOrigin int
	// PreauthPressure is the number of unauthenticated sockets from which
	// their handshake deadline is cut to PreauthPressureTimeout. Default
	// MaxPreauth/4.
	PreauthPressure int
	// PreauthPressureTimeout is the handshake deadline under pressure,
	// counted from each socket's opening. Default 2 s.
	PreauthPressureTimeout time.Duration
	// MaxInFlight caps concurrent requests per connection. Default 64.
	MaxInFlight int
	// MaxBufferedBytes caps a connection's unsent frames. Default 50 MiB.
	MaxBufferedBytes int
	// TickInterval is the tick period. Default 30 s.
	TickInterval time.Duration
	// Now is the clock; tests replace it.
	Now func() time.Time
	// LocalAddrs lists this host's interface addresses, which a
	// trusted proxy may not connect from. Default: the host's.
	LocalAddrs func() ([]netip.Addr, error)
}

// AuthFailure describes a refused connect for the audit trail. It never
// holds the presented secret.
type AuthFailure struct {
	RemoteIP string
	Origin   string
	ClientID string
	Role     string
	DeviceID string
	Code     string
	Reason   string
	At       time.Time
}

// Server is the WebSocket RPC bus.
type Server struct {
	opts     Options
	log      *slog.Logger
	upgrader websocket.Upgrader
	bootID   string
	started  time.Time
	limiter  *rateLimiter
	idem     *idempotencyCache

	mu         sync.RWMutex
	routes     map[string]Route
	methodList []string
	conns      map[*Conn]struct{}
	closing    bool

	preauth *preauthBudget
	baseCtx context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// NewServer builds a server; call Start to begin ticking.
func NewServer(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.LocalAddrs == nil {
		opts.LocalAddrs = interfaceAddrs
	}
	if opts.HandshakeTimeout == 0 {
		opts.HandshakeTimeout = protocol.HandshakeTimeoutMs * time.Millisecond
	}
	if opts.MaxPreauth == 0 {
		opts.MaxPreauth = defaultMaxPreauth
	}
	if opts.MaxPreauthPerIP == 0 {
		opts.MaxPreauthPerIP = defaultMaxPreauthPerIP
	}
	if opts.MaxPreauthPerOrigin == 0 {
		opts.MaxPreauthPerOrigin = defaultMaxPreauthPerOrigin
	}
	if opts.PreauthPressure == 0 {
		opts.PreauthPressure = max(opts.MaxPreauth/4, 1)
	}
	if opts.PreauthPressureTimeout == 0 {
		opts.PreauthPressureTimeout = defaultPressureTimeout
	}
	if opts.PreauthMinAge == 0 {
		opts.PreauthMinAge = defaultPreauthMinAge
	}
	if opts.MaxInFlight == 0 {
		opts.MaxInFlight = 64
	}
	if opts.MaxBufferedBytes == 0 {
		opts.MaxBufferedBytes = protocol.MaxBufferedBytes
	}
	if opts.TickInterval == 0 {
		opts.TickInterval = protocol.TickIntervalMs * time.Millisecond
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		opts:    opts,
		log:     opts.Logger,
		bootID:  uuid.NewString(),
		started: opts.Now(),
		limiter: newRateLimiter(opts.Now),
		idem:    newIdempotencyCache(opts.Now),
		preauth: newPreauthBudget(opts, opts.Logger),
		routes:  map[string]Route{},
		conns:   map[*Conn]struct{}{},
		baseCtx: ctx,
		cancel:  cancel,
	}
	s.upgrader = websocket.Upgrader{
		ReadBufferSize:    4096,
		WriteBufferSize:   4096,
		EnableCompression: false, // frames are small and mostly loopback; deflate costs more than it saves
		// The Origin gate runs before Upgrade in ServeHTTP.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	return s
}

// BootID identifies this server process run.
func (s *Server) BootID() string { return s.bootID }

// Uptime is the time since NewServer.
func (s *Server) Uptime() time.Duration { return s.opts.Now().Sub(s.started) }

// Start runs the tick loop until Shutdown.
func (s *Server) Start() {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(s.opts.TickInterval)
		defer t.Stop()
		for {
			select {
			case <-s.baseCtx.Done():
				return
			case <-t.C:
				s.Broadcast(protocol.EventTick, protocol.TickPayload{Ts: s.opts.Now().UnixMilli()})
			}
		}
	}()
}

// Shutdown sends the shutdown event to every client, closes the sockets
// with 1001 (1012 when a restart is expected) and waits for connection
// goroutines, or until ctx ends.
func (s *Server) Shutdown(ctx context.Context, reason string, restartExpectedMs int64) {
	s.mu.Lock()
	s.closing = true
	conns := make([]*Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	s.preauth.close()
	payload := protocol.ShutdownPayload{Reason: reason, RestartExpectedMs: restartExpectedMs}
	code := protocol.CloseGoingAway
	if restartExpectedMs > 0 {
		code = protocol.CloseServiceRestart
	}
	for _, c := range conns {
		c.sendEvent(protocol.EventShutdown, payload, true)
		c.closeAfterFlush(code, reason)
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	s.cancel()
	select {
	case <-done:
	case <-ctx.Done():
		for _, c := range conns {
			c.abort()
		}
	}
}

// Conns returns the authenticated connections.
func (s *Server) Conns() []*Conn {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*Conn, 0, len(s.conns))
	for c := range s.conns {
		out = append(out, c)
	}
	return out
}

// Broadcast sends an event to every authenticated connection allowed to
// see it, each with its own seq. It never blocks on a slow client.
func (s *Server) Broadcast(event string, payload any) {
	frame, err := newEventFrame(event, payload)
	if err != nil {
		s.log.Error("encode broadcast", "event", event, "err", err)
		return
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for c := range s.conns {
		if protocol.EventVisible(event, c.role, c.scopes) {
			c.enqueueEvent(frame)
		}
	}
}

// DisconnectDevice closes every live connection of a device (for a role,
// or all roles when role is ""). Used when a device is removed or its
// token revoked or rotated.
func (s *Server) DisconnectDevice(deviceID, role, reason string) int {
	n := 0
	for _, c := range s.Conns() {
		if c.deviceID == deviceID && (role == "" || string(c.role) == role) {
			c.closeAfterFlush(protocol.ClosePolicy, reason)
			n++
		}
	}
	return n
}

// DeviceConnected reports whether a device has a live connection.
func (s *Server) DeviceConnected(deviceID string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for c := range s.conns {
		if c.deviceID == deviceID {
			return true
		}
	}
	return false
}

// DisconnectSharedSecret closes connections that authenticated with the
// shared secret or through the trusted proxy. Called when the token,
// password or trusted-proxy settings change on reload.
func (s *Server) DisconnectSharedSecret(reason string) int {
	n := 0
	for _, c := range s.Conns() {
		if c.authMethod == "token" || c.authMethod == "password" || c.authMethod == "trusted-proxy" {
			if c.deviceID == "" || c.deviceToken == "" {
				c.closeAfterFlush(protocol.ClosePolicy, reason)
				n++
			}
		}
	}
	return n
}

func (s *Server) add(c *Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) remove(c *Conn) {
	s.mu.Lock()
	_, ok := s.conns[c]
	delete(s.conns, c)
	s.mu.Unlock()
	if ok && s.opts.OnDisconnect != nil {
		s.opts.OnDisconnect(c)
	}
}

// SetPairing installs the device pairing authority and the auth-failure
// audit after construction, for parts that themselves need the server to
// broadcast. Call it before Start.
func (s *Server) SetPairing(p Pairing, onFailure func(context.Context, AuthFailure)) {
	s.opts.Pairing = p
	s.opts.OnAuthFailure = onFailure
}
