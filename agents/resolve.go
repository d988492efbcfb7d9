package agents

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// resolvedAgent is one agent with its defaults applied.
type resolvedAgent struct {
	ID          string
	Name        string
	Description string
	Workspace   string
	Identity    config.AgentIdentity
	// File is what the workspace's IDENTITY.md says; the config's
	// identity wins field by field, as in OpenClaw.
	File fileIdentity
	// Models is the model chain, primary first, as "provider/model".
	Models []string
	// AllowAgents are the agents it may spawn as sub-agents.
	AllowAgents    []string
	SubagentModels []string
	IsDefault      bool
	// Workspace files in the system prompt: the cut per file and for all
	// (0: none), and when they go in (contextInjection).
	BootstrapMaxChars      int
	BootstrapTotalMaxChars int
	ContextInjection       string
}

// WorkspaceDir is the workspace directory of agent id ("" for the
// default agent) under cfg, as the gateway resolves it; ok is false for
// an agent that is not configured. The CLI uses it to confine files it
// names (message send --media) the way the agent's tools are confined.
func WorkspaceDir(cfg *config.Config, stateDir, id string) (dir string, ok bool) {
	a, ok := resolveAgent(cfg, stateDir, id)
	return a.Workspace, ok
}

// resolveAgent applies agents.defaults to an entry. ok is false for an
// agent that is not configured.
func resolveAgent(cfg *config.Config, stateDir, id string) (resolvedAgent, bool) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		id = cfg.DefaultAgentID()
	}
	e, ok := cfg.Agent(id)
	if !ok {
		return resolvedAgent{}, false
	}
	d := cfg.Agents.Defaults
	a := resolvedAgent{
		ID: id, Name: e.Name, Description: e.Description, Identity: e.Identity,
		IsDefault: id == cfg.DefaultAgentID(),
	}
	if a.Name == "" {
		a.Name = id
	}
	switch {
	case e.Workspace != "":
		a.Workspace = expandHome(e.Workspace)
	case a.IsDefault && d.Workspace != "":
		a.Workspace = expandHome(d.Workspace)
	case a.IsDefault:
		a.Workspace = filepath.Join(stateDir, "workspace")
	default:
		a.Workspace = filepath.Join(stateDir, "workspace-"+id)
	}
	a.File = readIdentityFile(a.Workspace)
	a.Models = e.Model.Chain()
	if len(a.Models) == 0 {
		a.Models = d.Model.Chain()
	}
	a.AllowAgents = e.Subagents.AllowAgents
	if len(a.AllowAgents) == 0 {
		a.AllowAgents = d.Subagents.AllowAgents
	}
	a.BootstrapMaxChars = cmp.Or(e.BootstrapMaxChars, d.BootstrapMaxChars)
	a.BootstrapTotalMaxChars = cmp.Or(e.BootstrapTotalMaxChars, d.BootstrapTotalMaxChars)
	a.ContextInjection = cmp.Or(e.ContextInjection, d.ContextInjection, "always")
	a.SubagentModels = e.Subagents.Model.Chain()
	if len(a.SubagentModels) == 0 {
		a.SubagentModels = d.Subagents.Model.Chain()
	}
	return a, true
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	return p
}

// displayName is the agent's name and where it came from, in OpenClaw's
// order: the config's identity ("config"), IDENTITY.md ("workspace"),
// then the entry's name or id ("default").
func (a resolvedAgent) displayName() (name, source string) {
	switch {
	case a.Identity.Name != "":
		return a.Identity.Name, "config"
	case a.File.Name != "":
		return a.File.Name, "workspace"
	}
	return a.Name, "default"
}

// emoji is the config's identity emoji, else IDENTITY.md's.
func (a resolvedAgent) emoji() string {
	if a.Identity.Emoji != "" {
		return a.Identity.Emoji
	}
	return a.File.Emoji
}

// avatar is the config's identity avatar, else IDENTITY.md's.
func (a resolvedAgent) avatar() string {
	if a.Identity.Avatar != "" {
		return a.Identity.Avatar
	}
	return a.File.Avatar
}
