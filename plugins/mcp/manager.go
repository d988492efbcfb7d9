package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// Manager supervises the configured MCP servers and offers their tools.
// Lifecycle: NewManager, Sync (again on every config reload), Close.
type Manager struct {
	// MinBackoff and MaxBackoff bound the delay before restarting a server
	// that failed or died, doubling per consecutive failure (defaults 1 s
	// and 60 s). Set them before the first Sync.
	MinBackoff, MaxBackoff time.Duration

	log      *slog.Logger
	onChange func()
	root     context.Context
	stop     context.CancelFunc

	mu      sync.Mutex
	servers map[string]*conn
	closed  bool

	notifyMu sync.Mutex // serializes onChange
	lastSig  string
}

// NewManager makes a Manager with no servers. onChange (may be nil) is
// called whenever the set of tools changes; the gateway then re-reads
// Tools into its registry.
func NewManager(log *slog.Logger, onChange func()) *Manager {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// The Manager's root lifetime; every session hangs off it.
	root, stop := context.WithCancel(context.Background())
	return &Manager{
		log: log.With("component", "mcp"), onChange: onChange,
		root: root, stop: stop, servers: map[string]*conn{},
	}
}

// Sync makes the running servers match cfgs: new and changed servers are
// started, removed and disabled ones stopped; unchanged ones keep their
// sessions. Servers connect in the background; Status reports progress.
// Invalid configs are all reported and nothing changes. ctx bounds the
// wait for stopped servers to exit.
func (m *Manager) Sync(ctx context.Context, cfgs []ServerConfig) error {
	want := map[string]ServerConfig{}
	var errs []error
	for _, c := range cfgs {
		if err := c.validate(); err != nil {
			errs = append(errs, err)
			continue
		}
		if _, dup := want[c.Name]; dup {
			errs = append(errs, fmt.Errorf("mcp server %q: configured twice", c.Name))
			continue
		}
		if c.enabled() {
			want[c.Name] = c
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}

	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return errors.New("mcp: manager closed")
	}
	var stopping []*conn
	for name, c := range m.servers {
		if cfg, ok := want[name]; !ok || !reflect.DeepEqual(cfg, c.cfg) {
			stopping = append(stopping, c)
			delete(m.servers, name)
		}
	}
	for name, cfg := range want {
		if _, ok := m.servers[name]; !ok {
			m.servers[name] = m.start(cfg)
		}
	}
	m.mu.Unlock()

	err := m.wait(ctx, stopping)
	m.notify()
	return err
}

// start launches the supervisor of one server; m.mu is held.
func (m *Manager) start(cfg ServerConfig) *conn {
	ctx, cancel := context.WithCancel(m.root)
	c := &conn{
		cfg:     cfg,
		log:     m.log.With("server", cfg.Name, "transport", cfg.transport()),
		backoff: m.backoff,
		stable:  m.backoff(64),
		changed: m.notify,
		cancel:  cancel,
		done:    make(chan struct{}),
		state:   StateConnecting,
		since:   time.Now(),
	}
	go c.run(ctx)
	return c
}

// wait stops conns and waits for their sessions to close.
func (m *Manager) wait(ctx context.Context, conns []*conn) error {
	for _, c := range conns {
		c.cancel()
	}
	for _, c := range conns {
		select {
		case <-c.done:
		case <-ctx.Done():
			return fmt.Errorf("stop mcp server %q: %w", c.cfg.Name, ctx.Err())
		}
	}
	return nil
}

func (m *Manager) backoff(attempt int) time.Duration {
	lo, hi := m.MinBackoff, m.MaxBackoff
	if lo <= 0 {
		lo = time.Second
	}
	if hi <= 0 {
		hi = time.Minute
	}
	d := lo
	for range attempt {
		if d *= 2; d >= hi {
			return hi
		}
	}
	return min(d, hi)
}

// Tools returns the tools of every server that has listed them, sorted by
// name. A server that is reconnecting keeps its last list. When two
// servers' names sanitize alike, the first by server name wins.
func (m *Manager) Tools() []tools.Tool {
	m.mu.Lock()
	conns := make([]*conn, 0, len(m.servers))
	for _, c := range m.servers {
		conns = append(conns, c)
	}
	m.mu.Unlock()
	slices.SortFunc(conns, func(a, b *conn) int { return strings.Compare(a.cfg.Name, b.cfg.Name) })

	var out []tools.Tool
	seen := map[string]string{}
	for _, c := range conns {
		for _, t := range c.toolList() {
			n := lower(t.Spec().Name)
			if other, dup := seen[n]; dup {
				m.log.Warn("mcp tool name taken; skipped", "tool", t.Spec().Name, "server", c.cfg.Name, "by", other)
				continue
			}
			seen[n] = c.cfg.Name
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b tools.Tool) int { return strings.Compare(a.Spec().Name, b.Spec().Name) })
	return out
}

// Status reports every configured, enabled server, sorted by name.
func (m *Manager) Status() []ServerStatus {
	m.mu.Lock()
	out := make([]ServerStatus, 0, len(m.servers))
	for _, c := range m.servers {
		out = append(out, c.status())
	}
	m.mu.Unlock()
	slices.SortFunc(out, func(a, b ServerStatus) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Close stops every server and waits for them to exit. It is idempotent.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	conns := make([]*conn, 0, len(m.servers))
	for name, c := range m.servers {
		conns = append(conns, c)
		delete(m.servers, name)
	}
	m.mu.Unlock()
	m.stop()
	for _, c := range conns {
		<-c.done
	}
}

// notify calls onChange if the tool set differs from the last one
// reported. Refreshes that list the same tools stay silent.
func (m *Manager) notify() {
	m.notifyMu.Lock()
	defer m.notifyMu.Unlock()
	sig := signature(m.Tools())
	if sig == m.lastSig {
		return
	}
	m.lastSig = sig
	if m.onChange != nil {
		m.onChange()
	}
}

func signature(ts []tools.Tool) string {
	h := sha256.New()
	for _, t := range ts {
		s := t.Spec()
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", s.Name, s.Description, s.Parameters)
	}
	return hex.EncodeToString(h.Sum(nil))
}
