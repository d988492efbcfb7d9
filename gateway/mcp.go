package gateway

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/plugins/mcp"
)

// mcpTools keeps the MCP servers' tools in the tool registry in step
// with what the servers offer.
type mcpTools struct {
	mgr *mcp.Manager

	mu    sync.Mutex
	names []string // the MCP tools registered now
}

// wireMCP builds the MCP client manager and serves mcp.status. Servers
// start in the background: a slow or broken one never delays the
// gateway's start, and its tools appear when it is ready.
func (s *System) wireMCP() {
	s.mcp.mgr = mcp.NewManager(s.log.With("component", "mcp"), s.refreshMCPTools)
	s.srv.Handle("mcp.status", rpc.Route{Scope: protocol.ScopeRead, Handler: s.handleMCPStatus})
	s.syncMCP(s.current().snap.Config)
}

// syncMCP starts, restarts and stops servers to match the config.
func (s *System) syncMCP(cfg *config.Config) {
	cfgs := mcpConfigs(cfg)
	s.bgWG.Add(1)
	go func() {
		defer s.bgWG.Done()
		if err := s.mcp.mgr.Sync(s.bg, cfgs); err != nil {
			s.log.Error("mcp servers not started", "err", err)
		}
	}()
}

func mcpConfigs(cfg *config.Config) []mcp.ServerConfig {
	var out []mcp.ServerConfig
	for _, name := range sortedNames(cfg.MCP.Servers) {
		m := cfg.MCP.Servers[name]
		out = append(out, mcp.ServerConfig{
			Name: name, Command: m.Command, Args: m.Args, Env: m.Env, Cwd: m.Cwd, URL: m.URL, Headers: m.Headers,
			Enabled: m.Enabled, ConnectTimeout: time.Duration(m.ConnectionTimeoutMs) * time.Millisecond,
			RequestTimeout: time.Duration(m.RequestTimeoutMs) * time.Millisecond,
			Include:        m.ToolFilter.Include, Exclude: m.ToolFilter.Exclude,
		})
	}
	return out
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// refreshMCPTools replaces the registered MCP tools with the servers'
// current ones. A tool whose name clashes with another is skipped (and
// logged), so one bad name cannot keep a server's other tools out.
func (s *System) refreshMCPTools() {
	if s.tools == nil {
		return
	}
	s.mcp.mu.Lock()
	defer s.mcp.mu.Unlock()
	reg := s.tools.Registry
	reg.Unregister(s.mcp.names...)
	s.mcp.names = s.mcp.names[:0]
	for _, t := range s.mcp.mgr.Tools() {
		if err := reg.Register(t); err != nil {
			s.log.Warn("mcp tool not registered", "err", err)
			continue
		}
		s.mcp.names = append(s.mcp.names, t.Spec().Name)
	}
	s.log.Info("mcp tools updated", "tools", len(s.mcp.names))
}

// handleMCPStatus answers mcp.status: each configured server with its
// state, disabled ones included.
func (s *System) handleMCPStatus(ctx context.Context, req *rpc.Request) (any, error) {
	live := map[string]mcp.ServerStatus{}
	for _, st := range s.mcp.mgr.Status() {
		live[st.Name] = st
	}
	cfg := s.current().snap.Config
	rows := []any{}
	for _, name := range sortedNames(cfg.MCP.Servers) {
		m := cfg.MCP.Servers[name]
		transport := "stdio"
		if m.URL != "" {
			transport = "streamable-http"
		}
		row := map[string]any{"name": name, "transport": transport, "enabled": m.IsEnabled(), "state": "stopped", "tools": 0}
		if st, ok := live[name]; ok {
			row["state"], row["tools"], row["restarts"] = st.State, st.Tools, st.Restarts
			if st.Error != "" {
				row["error"] = st.Error
			}
			if st.PID != 0 {
				row["pid"] = st.PID
			}
		}
		rows = append(rows, row)
	}
	return map[string]any{"servers": rows}, nil
}
