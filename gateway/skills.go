package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/plugins/skills"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/shell"
)

// workspaceSkills is the workspace folder of an agent's own skills. Only
// skill_manage writes there (a person approves each change by default):
// the file tools leave it alone, or a write would be a skill without the
// approval.
const workspaceSkills = "skills"

// skillCatalog finds an agent's skills: its workspace's skills/, then
// <state dir>/skills, then skills.load.extraDirs, gated by what this
// machine has and by skills.entries.<name>.enabled. It is cheap, so it
// runs at each use and sees skills added or edited a moment ago.
func (s *System) skillCatalog(agentID string) skills.Catalog {
	cfg := s.current().snap.Config
	var srcs []skills.Source
	if ws, err := s.agents.Workspace(agentID); err == nil {
		srcs = append(srcs, skills.Source{Dir: filepath.Join(ws, workspaceSkills), Origin: skills.OriginWorkspace})
	}
	srcs = append(srcs, skills.Source{Dir: filepath.Join(s.opts.StateDir, "skills"), Origin: skills.OriginManaged})
	for _, d := range cfg.Skills.Load.ExtraDirs {
		srcs = append(srcs, skills.Source{Dir: d, Origin: skills.OriginExtra})
	}
	return skills.Discover(srcs, os.Getenv, exec.LookPath, runtime.GOOS).WithDisabled(func(name string) bool {
		e, ok := cfg.Skills.Entries[name]
		return ok && !e.IsEnabled()
	})
}

// skillDirectory is the agent's skill directory for its system prompt.
// An agent whose policy takes load_skill away gets none (tools.deny:
// ["load_skill"] is how skills are switched off, as MateClaw's
// load-skill-tool.enabled does).
func (s *System) skillDirectory(agentID string) string {
	if t, ok := s.tools.Registry.Get("load_skill"); ok {
		if allowed, _ := s.policy.Allowed(context.Background(), tools.Who{AgentID: agentID}, t.Spec()); !allowed {
			return ""
		}
	}
	return skills.Directory(s.skillCatalog(agentID), 0)
}

// skillTools builds load_skill, skill_file, skill_script and
// skill_manage.
func (s *System) skillTools(workspace func(tools.Who) (string, error)) []tools.Tool {
	catalog := func(who tools.Who) skills.Catalog { return s.skillCatalog(who.AgentID) }
	return []tools.Tool{
		skills.LoadSkillTool(catalog),
		skills.SkillFileTool(catalog),
		skills.SkillScriptTool(catalog, skillRunner{s}),
		skills.SkillManageTool(func(who tools.Who) (string, error) {
			ws, err := workspace(who)
			if err != nil {
				return "", err
			}
			return filepath.Join(ws, workspaceSkills), nil
		}),
	}
}

// skillRunner runs skill scripts as the exec tool does, through the same
// runner: tool policy (an agent without exec cannot run scripts), Tool
// Guard, exec approvals and the dangerous-command checks all apply. The
// script runs from the workspace; SKILL_DIR names its own folder.
type skillRunner struct{ s *System }

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
	res := r.s.tools.Run(shell.WithGatewayEnv(ctx, env), tools.Call{ID: "skill-script", Name: "exec", Args: raw, Who: who})
	if res.IsError {
		return res.Text, "", 1, nil
	}
	return res.Text, "", 0, nil
}

// handleSkillsStatus answers skills.status {agentId?}: every skill found
// for the agent, with why an unavailable one is.
func (s *System) handleSkillsStatus(ctx context.Context, req *rpc.Request) (any, error) {
	var p struct {
		AgentID string `json:"agentId"`
	}
	if err := req.Decode(&p); err != nil {
		return nil, err
	}
	agentID := p.AgentID
	if agentID == "" {
		agentID = s.current().snap.Config.DefaultAgentID()
	}
	out := []any{}
	for _, e := range s.skillCatalog(agentID).All() {
		out = append(out, map[string]any{"name": e.Name, "description": e.Description, "origin": e.Origin, "path": e.Path,
			"available": e.Status == skills.StatusAvailable, "status": e.Status, "reason": e.Reason, "scripts": e.Scripts})
	}
	return map[string]any{"agentId": agentID, "skills": out}, nil
}
