package doctor

import (
	"context"
	"fmt"
	"maps"
	osexec "os/exec"
	"runtime"
	"slices"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// checkSandbox: the sandbox runtime an agent's agents.*.sandbox names can
// run here. A sandboxed call whose backend cannot run is refused, never
// run on the host, so a missing bwrap or ssh target shows up here before
// an agent's exec fails.
func checkSandbox(_ context.Context, r *run) Check {
	c := Check{ID: "core/doctor/sandbox", Title: "Sandbox"}
	cfg := r.in.Config()
	if cfg == nil {
		c.Status, c.Detail = StatusSkip, "the config did not load"
		return c
	}
	pick := func(a, d string) string {
		if a != "" {
			return a
		}
		return d
	}
	d := cfg.Agents.Defaults.Sandbox
	backends := map[string][]string{} // backend → agents (or "defaults") that use it
	add := func(who string, s config.AgentSandbox) {
		mode := pick(s.Mode, d.Mode)
		if mode == "" || mode == "off" {
			return
		}
		b := pick(s.Backend, d.Backend)
		if b == "ssh" && pick(s.SSH.Target, d.SSH.Target) == "" {
			b = "ssh without a target"
		}
		backends[b] = append(backends[b], who)
	}
	add("agents.defaults", config.AgentSandbox{})
	for id, e := range cfg.Agents.Entries {
		add("agents.entries."+id, e.Sandbox)
	}
	if len(backends) == 0 {
		c.Status, c.Detail = StatusSkip, "no agent is sandboxed (agents.defaults.sandbox.mode is off)"
		return c
	}
	look := r.LookPath
	if look == nil {
		look = osexec.LookPath
	}
	var problems, found []string
	for _, b := range slices.Sorted(maps.Keys(backends)) {
		who := strings.Join(slices.Sorted(slices.Values(backends[b])), ", ")
		switch b {
		case "":
			if runtime.GOOS != "linux" {
				problems = append(problems, fmt.Sprintf("%s: the local sandbox runs on Linux only; set sandbox.backend", who))
			} else if p, err := look("bwrap"); err != nil {
				problems = append(problems, fmt.Sprintf("%s: the local sandbox needs bubblewrap (bwrap), which is not on PATH", who))
			} else {
				found = append(found, "local sandbox: "+p)
			}
		case "ssh", "docker", "podman":
			prog := b
			if p, err := look(prog); err != nil {
				problems = append(problems, fmt.Sprintf("%s: the %s backend needs %s on PATH", who, b, prog))
			} else {
				found = append(found, b+": "+p)
			}
		default:
			problems = append(problems, fmt.Sprintf("%s: sandbox backend %q cannot run here", who, b))
		}
	}
	if len(problems) > 0 {
		c.Status, c.Detail, c.Path = StatusWarn, strings.Join(problems, "\n"), "agents.defaults.sandbox"
		c.FixHint = "Install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap), set sandbox.backend to ssh, docker or podman, or set sandbox.mode off; until then sandboxed tool calls are refused."
		return c
	}
	c.Status, c.Detail = StatusOK, strings.Join(found, "\n")
	return c
}
