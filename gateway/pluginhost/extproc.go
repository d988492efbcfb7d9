package pluginhost

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

// foundPlugins is what a config's plugins.load.paths hold: the plugins
// to run, and the ones that could not be read.
type foundPlugins struct {
	plugins []extproc.Plugin
	errs    []error
}

// discoverPlugins finds the plugins of plugins.load.paths, each enabled
// unless plugins.entries turns it off, with its entry's config. It only
// reads.
func discoverPlugins(snap *config.Snapshot) foundPlugins {
	manifests, errs := extproc.Discover(snap.Config.Plugins.Load.Paths)
	found := foundPlugins{errs: errs}
	for _, m := range manifests {
		entry := snap.Config.Plugins.Entries[m.ID]
		p := extproc.Plugin{Manifest: m, Enabled: (entry.Enabled == nil || *entry.Enabled) && snap.Config.Plugins.Permits(m.ID)}
		if raw, ok := config.Lookup(snap.Tree, "plugins", "entries", m.ID, "config"); ok {
			p.Config, _ = json.Marshal(raw)
		}
		found.plugins = append(found.plugins, p)
	}
	return found
}

// syncExtPlugins runs the found plugins that are enabled and stops the
// others.
func (h *Host) syncExtPlugins(found foundPlugins) {
	if !h.started() {
		return
	}
	for _, err := range found.errs {
		h.log.Error("plugin not loaded", "err", err)
	}
	h.goSync(func(ctx context.Context) {
		if err := h.ext.mgr.Sync(ctx, found.plugins); err != nil {
			h.log.Error("plugins not started", "err", err)
		}
	})
}

// refreshExtTools replaces the registered plugin tools with the current
// ones, skipping (and logging) a name that clashes.
func (h *Host) refreshExtTools() {
	if h.registry == nil {
		return
	}
	h.ext.mu.Lock()
	defer h.ext.mu.Unlock()
	reg := h.registry
	reg.Unregister(h.ext.names...)
	h.ext.names = h.ext.names[:0]
	for _, t := range h.ext.mgr.Tools() {
		if err := reg.Register(t); err != nil {
			h.log.Warn("plugin tool not registered", "err", err)
			continue
		}
		h.ext.names = append(h.ext.names, t.Spec().Name)
	}
	h.log.Info("plugin tools updated", "tools", len(h.ext.names))
}

// Hooks are the tool hooks the runner calls: the config's (tools.hooks)
// chained with the plugins'.
func (h *Host) Hooks() tools.Hooks {
	return chainedHooks{config: h.opts.ConfigHooks, plugins: h.ext.hooks}
}

// chainedHooks runs the config hooks (tools.hooks) and the plugins'
// hooks. Before a call, config hooks go first, so a redaction happens
// before any plugin sees the arguments; after it, plugins go first and
// the config's redaction has the last word. Plugins that are not running
// have no hooks.
type chainedHooks struct {
	config  func() tools.Hooks
	plugins tools.Hooks
}

var _ tools.Hooks = chainedHooks{}

func (h chainedHooks) BeforeTool(ctx context.Context, call tools.Call) (json.RawMessage, error) {
	args, err := h.config().BeforeTool(ctx, call)
	if err != nil {
		return nil, err
	}
	if args != nil {
		call.Args = args
	}
	more, err := h.plugins.BeforeTool(ctx, call)
	if err != nil {
		return nil, err
	}
	if more != nil {
		return more, nil
	}
	return args, nil
}

func (h chainedHooks) AfterTool(ctx context.Context, call tools.Call, res tools.Result) tools.Result {
	res = h.plugins.AfterTool(ctx, call, res)
	return h.config().AfterTool(ctx, call, res)
}
