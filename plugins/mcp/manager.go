package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"time"

	"github.com/openclaw-go/openclaw/backoff"
	"github.com/openclaw-go/openclaw/plugins/supervisor"
	"github.com/openclaw-go/openclaw/plugins/toolset"
	"github.com/openclaw-go/openclaw/tools"
)

// Manager supervises the configured MCP servers and offers their tools.
// Lifecycle: NewManager, Sync (again on every config reload), Close.
type Manager struct {
	// MinBackoff and MaxBackoff bound the delay before restarting a server
	// that failed or died, doubling per consecutive failure (defaults 1 s
	// and 60 s). Set them before the first Sync.
	MinBackoff, MaxBackoff time.Duration

	log     *slog.Logger
	servers *supervisor.Group[ServerConfig, *conn]
	changes *toolset.Watch // calls onChange when Tools changes
}

// NewManager makes a Manager with no servers. onChange (may be nil) is
// called whenever the set of tools changes; the gateway then re-reads
// Tools into its registry.
func NewManager(log *slog.Logger, onChange func()) *Manager {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Manager{log: log.With("component", "mcp")}
	m.changes = toolset.NewWatch(m.Tools, onChange)
	// A server whose config changed in any way gets a new session.
	same := func(a, b ServerConfig) bool { return reflect.DeepEqual(a, b) }
	m.servers = supervisor.NewGroup("mcp server", same, m.start)
	return m
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

	err := m.servers.Sync(ctx, want)
	if errors.Is(err, supervisor.ErrClosed) {
		return fmt.Errorf("mcp: %w", err)
	}
	m.changes.Check()
	return err
}

// start makes the supervised session of one server; the Group runs it.
func (m *Manager) start(cfg ServerConfig) (*conn, *supervisor.Unit) {
	c := &conn{
		cfg:     cfg,
		log:     m.log.With("server", cfg.Name, "transport", cfg.transport()),
		changed: m.changes.Check,
	}
	c.unit = supervisor.NewUnit(c.log, "mcp server", backoff.Policy{Min: m.MinBackoff, Max: m.MaxBackoff}, c.runSession)
	return c, c.unit
}

// Tools returns the tools of every server that has listed them, sorted by
// name. A server that is reconnecting keeps its last list. When two
// servers' names sanitize alike, the first by server name wins.
func (m *Manager) Tools() []tools.Tool {
	var owners []toolset.Owner
	for _, c := range m.servers.Members() {
		owners = append(owners, toolset.Owner{Name: c.cfg.Name, Tools: c.toolList()})
	}
	return toolset.Merge(owners, func(tool, server, by string) {
		m.log.Warn("mcp tool name taken; skipped", "tool", tool, "server", server, "by", by)
	})
}

// Status reports every configured, enabled server, sorted by name.
func (m *Manager) Status() []ServerStatus {
	conns := m.servers.Members()
	out := make([]ServerStatus, 0, len(conns))
	for _, c := range conns {
		out = append(out, c.status())
	}
	return out
}

// Close stops every server and waits for them to exit. It is idempotent.
func (m *Manager) Close() { m.servers.Close() }
