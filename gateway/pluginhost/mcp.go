package pluginhost

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
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

// syncMCP starts, restarts and stops servers to match cfgs.
func (h *Host) syncMCP(cfgs []mcp.ServerConfig) {
	h.goSync(func(ctx context.Context) {
		if err := h.mcp.mgr.Sync(ctx, cfgs); err != nil {
			h.log.Error("mcp servers not started", "err", err)
		}
	})
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
func (h *Host) refreshMCPTools() {
	if h.registry == nil {
		return
	}
	h.mcp.mu.Lock()
	defer h.mcp.mu.Unlock()
	reg := h.registry
	reg.Unregister(h.mcp.names...)
	h.mcp.names = h.mcp.names[:0]
	for _, t := range h.mcp.mgr.Tools() {
		if err := reg.Register(t); err != nil {
			h.log.Warn("mcp tool not registered", "err", err)
			continue
		}
		h.mcp.names = append(h.mcp.names, t.Spec().Name)
	}
	h.log.Info("mcp tools updated", "tools", len(h.mcp.names))
}

// MCPStatus is the answer of mcp.status. Its fields are in the order of
// their JSON names, as the map it replaced was sent.
type MCPStatus struct {
	Servers []MCPServer `json:"servers"`
}

// MCPServer is one configured server in mcp.status. Restarts, PID and
// Error are there only for a server that runs (PID for a stdio one,
// Error after a failure).
type MCPServer struct {
	Enabled   bool   `json:"enabled"`
	Error     string `json:"error,omitempty"`
	Name      string `json:"name"`
	PID       int    `json:"pid,omitempty"`
	Restarts  *int   `json:"restarts,omitempty"`
	State     string `json:"state"`
	Tools     int    `json:"tools"`
	Transport string `json:"transport"`
}

// handleMCPStatus answers mcp.status: each configured server with its
// state, disabled ones included. It reads no params, so whatever a
// client sends is ignored.
func (h *Host) handleMCPStatus(ctx context.Context, req *rpc.Request) (any, error) {
	return h.mcpStatus(), nil
}

func (h *Host) mcpStatus() MCPStatus {
	live := map[string]mcp.ServerStatus{}
	for _, st := range h.mcp.mgr.Status() {
		live[st.Name] = st
	}
	cfg := h.opts.Config().Config
	rows := []MCPServer{}
	for _, name := range sortedNames(cfg.MCP.Servers) {
		m := cfg.MCP.Servers[name]
		transport := "stdio"
		if m.URL != "" {
			transport = "streamable-http"
		}
		row := MCPServer{Name: name, Transport: transport, Enabled: m.IsEnabled(), State: "stopped"}
		if st, ok := live[name]; ok {
			restarts := st.Restarts
			row.State, row.Tools, row.Restarts = string(st.State), st.Tools, &restarts
			row.Error, row.PID = st.Error, st.PID
		}
		rows = append(rows, row)
	}
	return MCPStatus{Servers: rows}
}
