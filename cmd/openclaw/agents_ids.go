package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// Agent ids follow OpenClaw's rule: lower case letters, digits, _ and -,
// at most 64, not starting with -. A name that is not already an id is
// normalized the way OpenClaw does it (lower case, every other run of
// characters becomes -, dashes trimmed at the ends), so `agents add "My
// Agent"` makes my-agent, and "../../x" cannot name a path.
var (
	canonicalAgentIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`) })
	agentIDJunkRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9_-]+`) })
)

// reservedAgentIDs are OpenClaw's system agents, which no config entry
// may take.
var reservedAgentIDs = map[string]bool{"openclaw": true, "crestodian": true}

// strictAgentID normalizes an agent id given on the command line; ok is
// false when nothing of it is usable.
func strictAgentID(raw string) (id string, ok bool) {
	s := strings.TrimSpace(raw)
	low := strings.ToLower(s)
	if canonicalAgentIDRE().MatchString(s) {
		return low, true
	}
	id = strings.Trim(agentIDJunkRE().ReplaceAllString(low, "-"), "-")
	if len(id) > 64 {
		id = strings.TrimRight(id[:64], "-")
	}
	return id, id != "" && config.ValidAgentID(id)
}

// newAgentID checks a name for `agents add`.
func newAgentID(raw string) (string, error) {
	id, ok := strictAgentID(raw)
	switch {
	case !ok:
		return "", usageErrorf("agent name %q has no valid id characters; use letters a-z, digits, _ or -", raw)
	case reservedAgentIDs[id]:
		return "", usageErrorf("%q is reserved for OpenClaw's system agent; choose another name", id)
	}
	return id, nil
}

// agentWorkspace is where an agent's workspace is, as the gateway
// resolves it: its own workspace key, else agents.defaults.workspace for
// the default agent, else <state>/workspace (default) or
// <state>/workspace-<id>.
func agentWorkspace(cfg *config.Config, stateDir, id string) string {
	e, _ := cfg.Agent(id)
	isDefault := id == cfg.DefaultAgentID()
	switch {
	case e.Workspace != "":
		return expandUserHome(e.Workspace)
	case isDefault && cfg.Agents.Defaults.Workspace != "":
		return expandUserHome(cfg.Agents.Defaults.Workspace)
	case isDefault:
		return filepath.Join(stateDir, "workspace")
	}
	return filepath.Join(stateDir, "workspace-"+id)
}

// expandUserHome expands a leading ~ as the gateway does for workspaces.
func expandUserHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	return p
}

// checkWorkspace refuses a workspace the agent's file tools would reach
// the gateway's own secrets through: one that is or holds the state
// directory (the token in the config, the device keys, the database) or
// the config file, and one inside the state directory other than the
// workspace directories OpenClaw puts there (<state>/workspace*). Paths
// are compared with symlinks resolved, so a link to ~/.openclaw is the
// same as ~/.openclaw.
func checkWorkspace(ws string, paths config.Paths) (string, error) {
	abs, err := filepath.Abs(expandUserHome(ws))
	if err != nil {
		return "", fmt.Errorf("workspace %q: %w", ws, err)
	}
	real, err := realPath(abs)
	if err != nil {
		return "", fmt.Errorf("workspace %q: %w", ws, err)
	}
	for _, p := range []struct{ what, path string }{{"the state directory", paths.StateDir}, {"the config file", paths.ConfigPath}} {
		rp, err := realPath(p.path)
		if err != nil {
			return "", fmt.Errorf("resolve %s %s: %w", p.what, p.path, err)
		}
		if within(real, rp) || within(abs, p.path) {
			return "", fmt.Errorf("workspace %s would hold %s (%s): the agent's file tools could read the gateway's token and keys there; choose a directory outside it, e.g. %s",
				ws, p.what, p.path, filepath.Join(paths.StateDir, "workspace-<id>"))
		}
	}
	stateReal, _ := realPath(paths.StateDir)
	for _, st := range []string{stateReal, paths.StateDir} {
		for _, w := range []string{real, abs} {
			if within(st, w) {
				rel, _ := filepath.Rel(st, w)
				top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
				if !strings.HasPrefix(top, "workspace") {
					return "", fmt.Errorf("workspace %s is inside the state directory %s but not one of its workspace directories; the gateway keeps secrets there. Use %s or a directory outside it",
						ws, paths.StateDir, filepath.Join(paths.StateDir, "workspace-<id>"))
				}
			}
		}
	}
	return abs, nil
}

// within reports whether path is dir or inside it; dir "is within" a
// workspace when the workspace contains it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// realPath resolves the symlinks of the longest part of p that exists and
// joins the rest, so a workspace yet to be made is judged by where it
// will be.
func realPath(p string) (string, error) {
	p = filepath.Clean(p)
	var rest []string
	for {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(append([]string{p}, rest...)...), nil
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}
