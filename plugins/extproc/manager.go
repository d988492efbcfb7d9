package extproc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// Plugin is one plugin as configured: its manifest, its config block
// (plugins.entries.<id>.config, sent in initialize) and whether it runs.
type Plugin struct {
	Manifest Manifest
	Config   json.RawMessage
	Enabled  bool
}

// same reports whether a running plugin can be kept for q.
func (p Plugin) same(q Plugin) bool {
	a, b := p.Manifest, q.Manifest
	return a.ID == b.ID && a.Dir == b.Dir && a.Command == b.Command &&
		slices.Equal(a.Args, b.Args) && maps.Equal(a.Env, b.Env) &&
		bytes.Equal(bytes.TrimSpace(p.Config), bytes.TrimSpace(q.Config))
}

// Manager supervises plugin processes and offers their tools and hooks.
// Lifecycle: NewManager, set the tuning fields, Sync (again on every
// config reload), Close.
type Manager struct {
	// MinBackoff and MaxBackoff bound the delay before restarting a plugin
	// that failed or died, doubling per consecutive failure (defaults 1 s
	// and 60 s).
	MinBackoff, MaxBackoff time.Duration
	// HookTimeout bounds one hook call (default 2 s); a slower plugin is
	// skipped for that call.
	HookTimeout time.Duration
	// StartTimeout bounds initialize and tools/list (default 10 s).
	StartTimeout time.Duration

	log      *slog.Logger
	onChange func()
	root     context.Context
	stop     context.CancelFunc

	mu     sync.Mutex
	plugs  map[string]*proc
	closed bool

	notifyMu sync.Mutex // serializes onChange
	lastSig  string
}

// NewManager makes a Manager with no plugins. onChange (may be nil) is
// called whenever the set of tools changes; the gateway then re-reads
// Tools into its registry.
func NewManager(log *slog.Logger, onChange func()) *Manager {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// The Manager's root lifetime; every plugin process hangs off it.
	root, stop := context.WithCancel(context.Background())
	return &Manager{
		log: log.With("component", "plugins"), onChange: onChange,
		root: root, stop: stop, plugs: map[string]*proc{},
	}
}

// Sync makes the running plugins match ps: new and changed ones start,
// removed and disabled ones stop (their tools go), unchanged ones keep
// their process. Plugins start in the background; Status reports
// progress. Invalid entries are all reported and nothing changes. ctx
// bounds the wait for stopped plugins to exit.
func (m *Manager) Sync(ctx context.Context, ps []Plugin) error {
	want := map[string]Plugin{}
	var errs []error
	for _, p := range ps {
		if err := p.Manifest.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("plugin %q: %w", p.Manifest.ID, err))
			continue
		}
		if _, dup := want[p.Manifest.ID]; dup {
			errs = append(errs, fmt.Errorf("plugin %q: configured twice", p.Manifest.ID))
			continue
		}
		if len(bytes.TrimSpace(p.Config)) > 0 && !json.Valid(p.Config) {
			errs = append(errs, fmt.Errorf("plugin %q: config is not valid JSON", p.Manifest.ID))
			continue
		}
		if p.Enabled {
			want[p.Manifest.ID] = p
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}

	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return errors.New("plugins: manager closed")
	}
	var stopping []*proc
	for id, p := range m.plugs {
		if q, ok := want[id]; !ok || !p.plug.same(q) {
			stopping = append(stopping, p)
			delete(m.plugs, id)
		}
	}
	for id, q := range want {
		if _, ok := m.plugs[id]; !ok {
			m.plugs[id] = m.start(q)
		}
	}
	m.mu.Unlock()

	err := m.wait(ctx, stopping)
	m.notify()
	return err
}

// start launches the supervisor of one plugin; m.mu is held.
func (m *Manager) start(q Plugin) *proc {
	ctx, cancel := context.WithCancel(m.root)
	st := m.StartTimeout
	if st <= 0 {
		st = 10 * time.Second
	}
	p := &proc{
		plug:         q,
		log:          m.log.With("plugin", q.Manifest.ID),
		backoff:      m.backoff,
		stable:       m.backoff(64),
		startTimeout: st,
		changed:      m.notify,
		cancel:       cancel,
		done:         make(chan struct{}),
		state:        StateStarting,
		since:        time.Now(),
	}
	go p.run(ctx)
	return p
}

// wait stops procs and waits for their processes to be reaped.
func (m *Manager) wait(ctx context.Context, ps []*proc) error {
	for _, p := range ps {
		p.cancel()
	}
	for _, p := range ps {
		select {
		case <-p.done:
		case <-ctx.Done():
			return fmt.Errorf("stop plugin %q: %w", p.plug.Manifest.ID, ctx.Err())
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

func (m *Manager) hookTimeout() time.Duration {
	if m.HookTimeout > 0 {
		return m.HookTimeout
	}
	return HookTimeout
}

// procs returns the running plugins in id order.
func (m *Manager) procs() []*proc {
	m.mu.Lock()
	ps := slices.Collect(maps.Values(m.plugs))
	m.mu.Unlock()
	slices.SortFunc(ps, func(a, b *proc) int { return strings.Compare(a.plug.Manifest.ID, b.plug.Manifest.ID) })
	return ps
}

// Tools returns the tools of every plugin that has registered, sorted by
// name. A restarting plugin keeps its last list. When two plugins' names
// sanitize alike, the first by plugin id wins.
func (m *Manager) Tools() []tools.Tool {
	var out []tools.Tool
	seen := map[string]string{}
	for _, p := range m.procs() {
		for _, t := range p.toolList() {
			n := strings.ToLower(t.Spec().Name)
			if other, dup := seen[n]; dup {
				m.log.Warn("plugin tool name taken; skipped", "tool", t.Spec().Name, "plugin", p.plug.Manifest.ID, "by", other)
				continue
			}
			seen[n] = p.plug.Manifest.ID
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b tools.Tool) int { return strings.Compare(a.Spec().Name, b.Spec().Name) })
	return out
}

// Hooks returns the plugins' hooks; it follows later Syncs, so the
// gateway takes it once.
func (m *Manager) Hooks() Hooks { return Hooks{m: m} }

// Status reports every enabled plugin, sorted by id.
func (m *Manager) Status() []Status {
	var out []Status
	for _, p := range m.procs() {
		out = append(out, p.status())
	}
	return out
}

// Close stops every plugin and waits for its process to be reaped. It is
// idempotent.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	ps := slices.Collect(maps.Values(m.plugs))
	clear(m.plugs)
	m.mu.Unlock()
	m.stop()
	for _, p := range ps {
		<-p.done
	}
}

// notify calls onChange if the tool set differs from the last one
// reported, so a restart that lists the same tools stays silent.
func (m *Manager) notify() {
	m.notifyMu.Lock()
	defer m.notifyMu.Unlock()
	h := sha256.New()
	for _, t := range m.Tools() {
		s := t.Spec()
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", s.Name, s.Description, s.Parameters)
	}
	sig := hex.EncodeToString(h.Sum(nil))
	if sig == m.lastSig {
		return
	}
	m.lastSig = sig
	if m.onChange != nil {
		m.onChange()
	}
}
