package gateway

import (
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/pluginhost"
	"github.com/openclaw-go/openclaw/tools"
)

var _ part = (*pluginhost.Host)(nil)

// buildPlugins builds the plugin wing (MCP servers, out-of-process
// plugins, skills, llm-task) once the agents exist; the tool registry
// is built from its tools next.
func (s *System) buildPlugins() {
	s.plugins = pluginhost.New(pluginhost.Options{
		Config:      func() *config.Snapshot { return s.current().snap },
		ConfigHooks: func() tools.Hooks { return s.current().hooks },
		Log:         s.log,
		StateDir:    s.opts.StateDir,
		Agents:      s.agents,
	})
	s.addPart(s.plugins)
}

// startPlugins hands the wing the tool registry built from its tools and
// starts the MCP servers and plugins under the gateway's background
// lifetime.
func (s *System) startPlugins() {
	runner := s.toolhost.Runner()
	s.plugins.UseTools(runner.Registry, runner, s.toolhost.Policy())
	s.plugins.Start(s.bg)
}
