package extproc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/openclaw-go/openclaw/backoff"
	"github.com/openclaw-go/openclaw/plugins/supervisor"
	"github.com/openclaw-go/openclaw/plugins/toolset"
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

	log     *slog.Logger
	plugs   *supervisor.Group[Plugin, *proc]
	changes *toolset.Watch // calls onChange when Tools changes
}

// NewManager makes a Manager with no plugins. onChange (may be nil) is
// called whenever the set of tools changes; the gateway then re-reads
// Tools into its registry.
func NewManager(log *slog.Logger, onChange func()) *Manager {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Manager{log: log.With("component", "plugins")}
	m.changes = toolset.NewWatch(m.Tools, onChange)
	m.plugs = supervisor.NewGroup("plugin", Plugin.same, m.start)
	return m
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

	err := m.plugs.Sync(ctx, want)
	if errors.Is(err, supervisor.ErrClosed) {
		return fmt.Errorf("plugins: %w", err)
	}
	m.changes.Check()
	return err
}

// start makes the supervised process of one plugin; the Group runs it.
func (m *Manager) start(q Plugin) (*proc, *supervisor.Unit) {
	st := m.StartTimeout
	if st <= 0 {
		st = 10 * time.Second
	}
	p := &proc{
		plug:         q,
		log:          m.log.With("plugin", q.Manifest.ID),
		startTimeout: st,
		changed:      m.changes.Check,
	}
	p.unit = supervisor.NewUnit(p.log, "plugin", backoff.Policy{Min: m.MinBackoff, Max: m.MaxBackoff}, p.runOnce)
	return p, p.unit
}

func (m *Manager) hookTimeout() time.Duration {
	if m.HookTimeout > 0 {
		return m.HookTimeout
	}
	return HookTimeout
}

// procs returns the running plugins in id order.
func (m *Manager) procs() []*proc { return m.plugs.Members() }

// Tools returns the tools of every plugin that has registered, sorted by
// name. A restarting plugin keeps its last list. When two plugins' names
// sanitize alike, the first by plugin id wins.
func (m *Manager) Tools() []tools.Tool {
	var owners []toolset.Owner
	for _, p := range m.procs() {
		owners = append(owners, toolset.Owner{Name: p.plug.Manifest.ID, Tools: p.toolList()})
	}
	return toolset.Merge(owners, func(tool, plugin, by string) {
		m.log.Warn("plugin tool name taken; skipped", "tool", tool, "plugin", plugin, "by", by)
	})
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
func (m *Manager) Close() { m.plugs.Close() }
