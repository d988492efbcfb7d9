package gateway

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/plugins/extproc"
	"github.com/openclaw-go/openclaw/tools"
)

// extPlugins keeps the out-of-process plugins' tools in the registry.
type extPlugins struct {
	mgr   *extproc.Manager
	hooks extproc.Hooks

	mu    sync.Mutex
	names []string
}

// wireExtPlugins builds the plugin manager. Plugins start in the
// background, like MCP servers: a broken one never delays the gateway.
func (s *System) wireExtPlugins() {
	s.ext.mgr = extproc.NewManager(s.log.With("component", "plugins"), s.refreshExtTools)
	s.ext.hooks = s.ext.mgr.Hooks()
	s.syncExtPlugins(s.current().snap)
}

// syncExtPlugins finds the plugins of plugins.load.paths and runs the
// ones plugins.entries does not turn off, each with its entry's config.
func (s *System) syncExtPlugins(snap *config.Snapshot) {
	manifests, errs := extproc.Discover(snap.Config.Plugins.Load.Paths)
	for _, err := range errs {
		s.log.Error("plugin not loaded", "err", err)
	}
	var ps []extproc.Plugin
	for _, m := range manifests {
		entry := snap.Config.Plugins.Entries[m.ID]
		p := extproc.Plugin{Manifest: m, Enabled: entry.Enabled == nil || *entry.Enabled}
		if raw, ok := lookup(snap.Tree, "plugins", "entries", m.ID, "config"); ok {
			p.Config, _ = json.Marshal(raw)
		}
		ps = append(ps, p)
	}
	s.bgWG.Add(1)
	go func() {
		defer s.bgWG.Done()
		if err := s.ext.mgr.Sync(s.bg, ps); err != nil {
			s.log.Error("plugins not started", "err", err)
		}
	}()
}

// refreshExtTools replaces the registered plugin tools with the current
// ones, skipping (and logging) a name that clashes.
func (s *System) refreshExtTools() {
	if s.tools == nil {
		return
	}
	s.ext.mu.Lock()
	defer s.ext.mu.Unlock()
	reg := s.tools.Registry
	reg.Unregister(s.ext.names...)
	s.ext.names = s.ext.names[:0]
	for _, t := range s.ext.mgr.Tools() {
		if err := reg.Register(t); err != nil {
			s.log.Warn("plugin tool not registered", "err", err)
			continue
		}
		s.ext.names = append(s.ext.names, t.Spec().Name)
	}
	s.log.Info("plugin tools updated", "tools", len(s.ext.names))
}

// chainedHooks runs the config hooks (tools.hooks) and the plugins'
// hooks. Before a call, config hooks go first, so a redaction happens
// before any plugin sees the arguments; after it, plugins go first and
// the config's redaction has the last word.
type chainedHooks struct{ s *System }

func (h chainedHooks) BeforeTool(ctx context.Context, call tools.Call) (json.RawMessage, error) {
	args, err := h.s.current().hooks.BeforeTool(ctx, call)
	if err != nil {
		return nil, err
	}
	if args != nil {
		call.Args = args
	}
	if h.s.ext.mgr == nil {
		return args, nil
	}
	more, err := h.s.ext.hooks.BeforeTool(ctx, call)
	if err != nil {
		return nil, err
	}
	if more != nil {
		return more, nil
	}
	return args, nil
}

func (h chainedHooks) AfterTool(ctx context.Context, call tools.Call, res tools.Result) tools.Result {
	if h.s.ext.mgr != nil {
		res = h.s.ext.hooks.AfterTool(ctx, call, res)
	}
	return h.s.current().hooks.AfterTool(ctx, call, res)
}
