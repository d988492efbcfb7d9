package pluginhost

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/plugins/skills"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/shell"
)

// WorkspaceSkills is the workspace folder of an agent's own skills. Only
// skill_manage writes there (a person approves each change by default):
// the file tools leave it alone, or a write would be a skill without the
// approval.
const WorkspaceSkills = "skills"

// skillCatalog finds an agent's skills: its workspace's skills/, then
// <state dir>/skills, then skills.load.extraDirs, gated by what this
// machine has and by skills.entries.<name>.enabled. It is cheap, so it
// runs at each use and sees skills added or edited a moment ago.
func (h *Host) skillCatalog(agentID string) skills.Catalog {
	cfg := h.opts.Config().Config
	var srcs []skills.Source
	allow := expandHomes(cfg.Skills.Load.AllowSymlinkTargets)
	if ws, err := h.opts.Agents.Workspace(agentID); err == nil {
		srcs = append(srcs, skills.Source{Dir: filepath.Join(ws, WorkspaceSkills), Origin: skills.OriginWorkspace,
			Contained: true, AllowTargets: allow})
	}
	srcs = append(srcs, skills.Source{Dir: filepath.Join(h.opts.StateDir, "skills"), Origin: skills.OriginManaged})
	for _, d := range cfg.Skills.Load.ExtraDirs {
		srcs = append(srcs, skills.Source{Dir: d, Origin: skills.OriginExtra, Contained: true, AllowTargets: allow})
	}
	c := skills.Discover(srcs, os.Getenv, exec.LookPath, runtime.GOOS)
	c = c.WithEnv(func(name string) map[string]string { return skillEnv(cfg, c, name) }, os.Getenv, exec.LookPath, runtime.GOOS)
	c = c.WithDisabled(func(name string) bool {
		e, ok := cfg.Skills.Entries[name]
		return ok && !e.IsEnabled()
	})
	if names, limited := cfg.AgentSkills(agentID); limited {
		// agents.defaults.skills or the agent's own skills: the rest are
		// not this agent's, in its directory or through its tools.
		c = c.WithUnavailable(func(name string) bool { return !slices.Contains(names, name) }, "not in this agent's skills")
	}
	return c
}

// skillEnv is what skills.entries.<name> gives the skill's scripts: its
// env, and its apiKey in the skill's primaryEnv variable.
func skillEnv(cfg *config.Config, c skills.Catalog, name string) map[string]string {
	se, ok := cfg.Skills.Entries[name]
	if !ok {
		return nil
	}
	out := maps.Clone(se.Env)
	if key := se.APIKey.Value; key != "" {
		if e, ok := c.Get(name); ok && e.PrimaryEnv != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[e.PrimaryEnv] = key
		}
	}
	return out
}

// expandHomes expands a leading "~/" (config paths are written so).
func expandHomes(in []string) []string {
	home, _ := os.UserHomeDir()
	out := make([]string, 0, len(in))
	for _, p := range in {
		if home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
		out = append(out, p)
	}
	return out
}

// SkillDirectory is the agent's skill directory for its system prompt.
// An agent whose policy takes load_skill away gets none (tools.deny:
// ["load_skill"] is how skills are switched off, as MateClaw's
// load-skill-tool.enabled does). Before UseTools there is no policy to
// ask, so there is no directory either.
func (h *Host) SkillDirectory(ctx context.Context, agentID string) string {
	if h.registry == nil || h.policy == nil {
		return ""
	}
	if t, ok := h.registry.Get("load_skill"); ok {
		if allowed, _ := h.policy.Allowed(ctx, tools.Who{AgentID: agentID}, t.Spec()); !allowed {
			return ""
		}
	}
	return skills.Directory(h.skillCatalog(agentID), h.opts.Config().Config.Skills.Limits.MaxSkillsPromptChars)
}

// SkillCommands lists the agent's skills as slash commands, reserved
// (the built-in commands) kept clear. Like SkillDirectory, none when the
// agent's policy takes load_skill away: the command asks the model to
// load the skill.
func (h *Host) SkillCommands(ctx context.Context, agentID string, reserved []string) []skills.Command {
	if h.registry == nil || h.policy == nil {
		return nil
	}
	if t, ok := h.registry.Get("load_skill"); ok {
		if allowed, _ := h.policy.Allowed(ctx, tools.Who{AgentID: agentID}, t.Spec()); !allowed {
			return nil
		}
	}
	return skills.Commands(h.skillCatalog(agentID), reserved)
}

// SkillTools builds load_skill, skill_file, skill_script and
// skill_manage; workspace finds the caller's workspace.
func (h *Host) SkillTools(workspace func(tools.Who) (string, error)) []tools.Tool {
	catalog := func(who tools.Who) skills.Catalog { return h.skillCatalog(who.AgentID) }
	return []tools.Tool{
		skills.LoadSkillTool(catalog),
		skills.SkillFileTool(catalog),
		skills.SkillScriptTool(catalog, skillRunner{h}),
		skills.SkillManageTool(func(who tools.Who) (string, error) {
			ws, err := workspace(who)
			if err != nil {
				return "", err
			}
			return filepath.Join(ws, WorkspaceSkills), nil
		}),
	}
}

// skillRunner runs skill scripts as the exec tool does, through the same
// runner: tool policy (an agent without exec cannot run scripts), Tool
// Guard, exec approvals and the dangerous-command checks all apply. The
// script runs from the workspace; SKILL_DIR names its own folder.
type skillRunner struct{ h *Host }

func (r skillRunner) Run(ctx context.Context, who tools.Who, argv []string, dir string, env []string, timeout time.Duration) (string, string, int, error) {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	secs := int(timeout / time.Second)
	yield := int(timeout / time.Millisecond) // stay in the foreground for the whole run
	args := map[string]any{"command": strings.Join(quoted, " "), "timeoutSeconds": secs, "yieldMs": yield}
	raw, err := json.Marshal(args)
	if err != nil {
		return "", "", 0, fmt.Errorf("skill script arguments: %w", err)
	}
	// SKILL_NAME and SKILL_DIR are the gateway's, not the model's: they go
	// beside the command, so an allowlisted script runs unasked.
	res := r.h.runner.Run(shell.WithGatewayEnv(ctx, env), tools.Call{ID: "skill-script", Name: "exec", Args: raw, Who: who})
	if res.IsError {
		return res.Text, "", 1, nil
	}
	return res.Text, "", 0, nil
}

// skillsStatusParams is the params of skills.status. It is an alias of an
// unnamed struct type on purpose: a decode error names the field as
// ".agentId", as the handler's anonymous struct always did.
type skillsStatusParams = struct {
	AgentID string `json:"agentId"`
}

// SkillsStatus is the answer of skills.status.
type SkillsStatus struct {
	AgentID string        `json:"agentId"`
	Skills  []SkillStatus `json:"skills"`
}

// SkillStatus is one skill found for the agent. Its fields are in the
// order of their JSON names, as the map it replaced was sent.
type SkillStatus struct {
	Available   bool          `json:"available"`
	Description string        `json:"description"`
	Name        string        `json:"name"`
	Origin      string        `json:"origin"`
	Path        string        `json:"path"`
	Reason      string        `json:"reason"`
	Scripts     []string      `json:"scripts"`
	Status      skills.Status `json:"status"`
}

// skillsStatus answers skills.status {agentId?}: every skill found for
// the agent, with why an unavailable one is.
func (h *Host) skillsStatus(ctx context.Context, req *rpc.Request, p skillsStatusParams) (SkillsStatus, error) {
	agentID := p.AgentID
	if agentID == "" {
		agentID = h.opts.Config().Config.DefaultAgentID()
	}
	out := []SkillStatus{}
	for _, e := range h.skillCatalog(agentID).All() {
		out = append(out, SkillStatus{Name: e.Name, Description: e.Description, Origin: e.Origin, Path: e.Path,
			Available: e.Status == skills.StatusAvailable, Status: e.Status, Reason: e.Reason, Scripts: e.Scripts})
	}
	return SkillsStatus{AgentID: agentID, Skills: out}, nil
}
