package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw-go/openclaw/backoff"
	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/tools/execapprovals"
)

// Defaults for the zero fields of Config.
const (
	DefaultBackoffMin    = time.Second
	DefaultBackoffMax    = 30 * time.Second
	DefaultPairingRetry  = 5 * time.Second
	DefaultStatsInterval = 60 * time.Second
	// MaxConcurrentInvokes bounds the invocations that run at once; more
	// wait their turn.
	MaxConcurrentInvokes = 8
	// stableAfter is how long a connection must last for the next
	// reconnect to start again from the shortest backoff.
	stableAfter = 30 * time.Second
	eventBuffer = 1024
)

// Event names of the node protocol.
const (
	EventInvokeRequest = "node.invoke.request"
	EventHostStats     = "node.host.stats"
)

// Config sets up a Host. URL and StateDir are required.
type Config struct {
	// URL is the gateway's WebSocket address (ws:// or wss://).
	URL string
	// Token and Password are the gateway's shared secret, if any. Without
	// them the device token stored for URL is sent.
	Token    string
	Password string
	// StateDir holds the node's identity, state and exec approvals; it is
	// created with mode 0700.
	StateDir string
	// NodeID replaces the persisted node id (client.instanceId) when set.
	NodeID string
	// DisplayName is client.displayName; default the host name.
	DisplayName string
	// Commands restricts the declared commands to these (each must be
	// supported here); empty declares every supported command.
	Commands []string
	// Version is client.version.
	Version string
	// TLSFingerprint pins the gateway's certificate (see client.Options).
	TLSFingerprint string
	// Logger receives the host's logs; default discards.
	Logger *slog.Logger
	// Out receives the lines meant for the person running the node
	// (pairing requests, connects, why it stopped); default discards.
	Out io.Writer
	// BackoffMin and BackoffMax bound the reconnect delay (default 1 s
	// and 30 s); it doubles per failed attempt, with jitter.
	BackoffMin, BackoffMax time.Duration
	// PairingRetry caps the delay between connects while pairing waits
	// for approval (default 5 s).
	PairingRetry time.Duration
	// StatsInterval is the node.host.stats period (default 60 s).
	StatsInterval time.Duration
	// LookPath finds executables (default exec.LookPath); tests replace it.
	LookPath func(string) (string, error)
}

// Host is a node host. Create it with New, then call Run.
type Host struct {
	cfg       Config
	log       *slog.Logger
	out       io.Writer
	identity  *client.DeviceIdentity
	state     *stateStore
	approvals *execapprovals.Store
	plans     *plans
	lookPath  func(string) (string, error)
	now       func() time.Time
	procDir   string

	all      map[string]handler // what this host supports
	declared map[string]handler // what it declares and serves
	sem      chan struct{}

	mu        sync.Mutex
	connected bool
}

// New loads or creates the node's state and checks the configuration.
func New(cfg Config) (*Host, error) {
	if cfg.URL == "" {
		return nil, errors.New("node host: gateway url required")
	}
	if cfg.StateDir == "" {
		return nil, errors.New("node host: state dir required")
	}
	if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("node host: create state dir: %w", err)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	if cfg.BackoffMin <= 0 {
		cfg.BackoffMin = DefaultBackoffMin
	}
	if cfg.BackoffMax < cfg.BackoffMin {
		cfg.BackoffMax = max(DefaultBackoffMax, cfg.BackoffMin)
	}
	if cfg.PairingRetry <= 0 {
		cfg.PairingRetry = DefaultPairingRetry
	}
	if cfg.StatsInterval <= 0 {
		cfg.StatsInterval = DefaultStatsInterval
	}
	if cfg.LookPath == nil {
		cfg.LookPath = exec.LookPath
	}
	if cfg.DisplayName == "" {
		cfg.DisplayName, _ = os.Hostname()
	}
	id, err := client.LoadOrCreateDeviceIdentity(filepath.Join(cfg.StateDir, identityFile))
	if err != nil {
		return nil, fmt.Errorf("node host: %w", err)
	}
	st, err := openState(cfg.StateDir, cfg.NodeID)
	if err != nil {
		return nil, fmt.Errorf("node host: %w", err)
	}
	h := &Host{
		cfg: cfg, log: cfg.Logger.With("component", "node-host"), out: cfg.Out,
		identity: id, state: st, approvals: execapprovals.New(filepath.Join(cfg.StateDir, approvalsFile)),
		lookPath: cfg.LookPath, now: time.Now, procDir: "/proc",
		sem: make(chan struct{}, MaxConcurrentInvokes),
	}
	h.plans = newPlans(func() time.Time { return h.now() })
	h.all = h.handlers()
	if h.declared, err = h.validateCommands(cfg.Commands); err != nil {
		return nil, fmt.Errorf("node host: %w", err)
	}
	return h, nil
}

// DeviceID is the node's device id, the id gateways route it by.
func (h *Host) DeviceID() string { return h.identity.ID }

// NodeID is the persisted node id sent as client.instanceId.
func (h *Host) NodeID() string { return h.state.nodeID() }

// Commands lists the declared commands, sorted.
func (h *Host) Commands() []string {
	out := make([]string, 0, len(h.declared))
	for name := range h.declared {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// Connected reports whether the node is connected to the gateway now.
func (h *Host) Connected() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.connected
}

func (h *Host) setConnected(v bool) {
	h.mu.Lock()
	h.connected = v
	h.mu.Unlock()
}

// Run connects and serves until ctx ends (it then returns nil) or the
// gateway refuses the node for good (an error wrapping ErrAuthRefused).
func (h *Host) Run(ctx context.Context) error {
	attempt := 0
	lastRequest := ""
	for {
		c, sentToken, err := h.dial(ctx)
		if ctx.Err() != nil {
			if c != nil {
				c.Close()
			}
			return nil
		}
		if err != nil {
			delay := h.backoff(attempt)
			attempt++
			var pe *protocol.Error
			switch {
			case errors.As(err, &pe) && detailCode(pe) == protocol.DetailPairingRequired:
				if id := detailString(pe, "requestId"); id != lastRequest {
					lastRequest = id
					fmt.Fprintf(h.out, "pairing required: request %s for device %s; approve with `openclaw devices approve %s`\n",
						id, h.identity.ID, id)
					h.log.Info("waiting for pairing approval", "requestId", id, "reason", detailString(pe, "reason"))
				} else {
					h.log.Debug("still waiting for pairing approval", "requestId", id)
				}
				delay = min(delay, h.cfg.PairingRetry)
			case errors.As(err, &pe) && terminalDetails[detailCode(pe)]:
				return h.refused(pe, sentToken)
			case errors.As(err, &pe):
				h.log.Warn("gateway refused the connect; retrying", "code", pe.Code, "detail", detailCode(pe), "err", pe.Message)
			default:
				h.log.Warn("cannot reach the gateway; retrying", "err", err, "in", delay)
			}
			if !sleep(ctx, delay) {
				return nil
			}
			continue
		}
		lastRequest = ""
		hello := c.Hello()
		if tok := hello.Auth.DeviceToken; tok != "" {
			err := h.state.setToken(&deviceToken{Gateway: h.cfg.URL, Token: tok, Role: string(protocol.RoleNode),
				Scopes: hello.Auth.Scopes, IssuedAtMs: hello.Auth.IssuedAtMs})
			if err != nil {
				h.log.Warn("store device token", "err", err)
			}
		}
		fmt.Fprintf(h.out, "node connected to %s (device %s, node id %s)\n", h.cfg.URL, h.identity.ID, h.NodeID())
		h.log.Info("connected", "connId", hello.Server.ConnID, "commands", h.Commands())
		up := time.Now()
		h.setConnected(true)
		h.serve(ctx, c)
		h.setConnected(false)
		c.Close()
		if ctx.Err() != nil {
			return nil
		}
		if time.Since(up) >= stableAfter {
			attempt = 0
		}
		delay := h.backoff(attempt)
		attempt++
		h.log.Warn("gateway connection lost; reconnecting", "err", c.Err(), "in", delay)
		fmt.Fprintf(h.out, "gateway connection lost; reconnecting\n")
		if !sleep(ctx, delay) {
			return nil
		}
	}
}

// refused builds Run's final error for a refusal retrying cannot fix. A
// device token the gateway no longer accepts is forgotten.
func (h *Host) refused(pe *protocol.Error, sentToken bool) error {
	code := detailCode(pe)
	var msg string
	switch {
	case code == protocol.DetailAuthDeviceTokenMismatch && sentToken:
		if err := h.state.setToken(nil); err != nil {
			h.log.Warn("forget device token", "err", err)
		}
		msg = "the gateway no longer accepts this node's device token (revoked or rotated); it was forgotten: " +
			"start again with OPENCLAW_GATEWAY_TOKEN or OPENCLAW_GATEWAY_PASSWORD to pair the node again"
	case code == protocol.DetailAuthDeviceTokenMismatch:
		msg = "the gateway refused this node's device (revoked); pair it again"
	case code == protocol.DetailAuthTokenMissing || code == protocol.DetailAuthPasswordMissing:
		msg = "the gateway needs a shared secret: set OPENCLAW_GATEWAY_TOKEN or OPENCLAW_GATEWAY_PASSWORD"
	case code == protocol.DetailAuthTokenMismatch || code == protocol.DetailAuthPasswordMismatch:
		msg = "the gateway refused the shared secret: check OPENCLAW_GATEWAY_TOKEN / OPENCLAW_GATEWAY_PASSWORD"
	case code == protocol.DetailProtocolMismatch:
		msg = "the gateway speaks another protocol version"
	default:
		msg = "the gateway refused this node's device identity"
	}
	fmt.Fprintf(h.out, "node stopped: %s (%s: %s)\n", msg, code, pe.Message)
	return fmt.Errorf("%w: %s (%s)", ErrAuthRefused, msg, code)
}

// dial connects once; sentToken reports whether the stored device token
// was the credential.
func (h *Host) dial(ctx context.Context) (*client.Client, bool, error) {
	opts := client.Options{
		URL: h.cfg.URL, TLSFingerprint: h.cfg.TLSFingerprint, Token: h.cfg.Token, Password: h.cfg.Password,
		Role: protocol.RoleNode, Scopes: []string{},
		ClientID: "node-host", ClientMode: "node", DisplayName: h.cfg.DisplayName, Version: h.cfg.Version,
		InstanceID: h.NodeID(),
		Caps:       []string{"system"}, Commands: h.Commands(), PathEnv: os.Getenv("PATH"),
		Identity: h.identity, Logger: h.log, EventBuffer: eventBuffer,
	}
	sentToken := false
	if opts.Token == "" && opts.Password == "" {
		if tok := h.state.token(h.cfg.URL); tok != "" {
			opts.DeviceToken, sentToken = tok, true
		}
	}
	c, err := client.Dial(ctx, opts)
	return c, sentToken, err
}

// serve handles one connection's events until it ends. Invocations still
// running when it ends are cancelled (their results could not be
// delivered) and waited for.
func (h *Host) serve(ctx context.Context, c *client.Client) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	var eventsOff atomic.Bool // the gateway answered node.event with unknown method
	wg.Add(1)
	go func() {
		defer wg.Done()
		h.publishStats(ctx, c, &eventsOff)
	}()
	for {
		var ev protocol.Inbound
		var ok bool
		select {
		case <-ctx.Done():
			return
		case ev, ok = <-c.Events():
			if !ok {
				return
			}
		}
		switch ev.Event {
		case EventInvokeRequest:
			var req invokeRequest
			if err := json.Unmarshal(ev.Payload, &req); err != nil || req.ID == "" {
				h.log.Warn("ignoring malformed node.invoke.request", "err", err)
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				select {
				case h.sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
				ictx, queue := withEventQueue(ctx)
				res := h.invoke(ictx, req)
				<-h.sem
				h.sendResult(ctx, c, req.Command, res)
				for _, ev := range queue.take() {
					if err := h.sendEvent(ctx, c, &eventsOff, ev.event, ev.payload); err != nil {
						h.log.Debug("node.event not accepted", "event", ev.event, "err", err)
					}
				}
			}()
		case protocol.EventShutdown:
			h.log.Info("gateway is shutting down", "payload", string(ev.Payload))
		}
	}
}

func (h *Host) sendResult(ctx context.Context, c *client.Client, command string, res invokeResult) {
	ctx, cancel := context.WithTimeout(ctx, invokeResultSendTimeout)
	defer cancel()
	if err := c.Call(ctx, "node.invoke.result", res, nil); err != nil {
		h.log.Warn("send node.invoke.result", "id", res.ID, "command", command, "err", err)
		return
	}
	h.log.Debug("invoke answered", "id", res.ID, "command", command, "ok", res.OK)
}

// sendEvent publishes one node.event, unless the gateway has said on
// this connection that it does not know node.event.
func (h *Host) sendEvent(ctx context.Context, c *client.Client, off *atomic.Bool, event string, payload any) error {
	if off.Load() {
		return nil
	}
	data, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, invokeResultSendTimeout)
	defer cancel()
	err = c.Call(ctx, "node.event", map[string]any{"event": event, "payloadJSON": string(data)}, nil)
	if isUnknownMethod(err) {
		if !off.Swap(true) {
			h.log.Info("gateway does not take node.event; node events stop for this connection")
		}
		return nil
	}
	return err
}

// publishStats sends node.host.stats now and every StatsInterval until
// the connection ends or node.event turns out to be unknown.
func (h *Host) publishStats(ctx context.Context, c *client.Client, off *atomic.Bool) {
	t := time.NewTicker(h.cfg.StatsInterval)
	defer t.Stop()
	for !off.Load() {
		err := h.sendEvent(ctx, c, off, EventHostStats, readStats(h.procDir))
		if err != nil && ctx.Err() == nil {
			h.log.Debug("node.host.stats not accepted", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// backoff is the delay before reconnect attempt n (from 0): BackoffMin
// doubled n times, capped at BackoffMax, then jittered into [d/2, d].
func (h *Host) backoff(n int) time.Duration {
	return backoff.Policy{Min: h.cfg.BackoffMin, Max: h.cfg.BackoffMax, Jitter: true}.Delay(n)
}

// sleep waits d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
