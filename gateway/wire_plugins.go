package gateway

import (
	"context"

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
	s.plugins.UseTools(s.tools.Registry, s.tools, s.policy)
	s.plugins.Start(s.bg)
}

// skillDirectory is the agents' SkillDirectory. The agents are built
// before the wing (it needs their workspaces), so this looks the wing up
// at each turn.
func (s *System) skillDirectory(ctx context.Context, agentID string) string {
	return s.plugins.SkillDirectory(ctx, agentID)
}
