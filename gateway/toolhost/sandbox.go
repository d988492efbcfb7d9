package toolhost

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
	"github.com/openclaw-go/openclaw/tools/sandbox"
)

// SandboxSettings are agentID's effective agents.*.sandbox keys: the
// agent's own over agents.defaults.sandbox, key by key. Under scope
// "shared" an agent's docker and ssh keys are ignored, as in OpenClaw.
func SandboxSettings(cfg *config.Config, agentID string) sandbox.Settings {
	d := cfg.Agents.Defaults.Sandbox
	e := cfg.Agents.Entries[agentID].Sandbox
	pick := func(agent, def string) string {
		if agent != "" {
			return agent
		}
		return def
	}
	pickBool := func(agent, def *bool, dflt bool) bool {
		switch {
		case agent != nil:
			return *agent
		case def != nil:
			return *def
		}
		return dflt
	}
	s := sandbox.Settings{
		Mode: pick(e.Mode, d.Mode), Scope: pick(e.Scope, d.Scope), WorkspaceAccess: pick(e.WorkspaceAccess, d.WorkspaceAccess),
		WorkspaceRoot: pick(e.WorkspaceRoot, d.WorkspaceRoot), Backend: pick(e.Backend, d.Backend),
	}
	if s.Scope == sandbox.ScopeShared {
		e.Docker, e.SSH = config.SandboxDocker{}, config.SandboxSSH{}
	}
	s.Network, s.Image = pick(e.Docker.Network, d.Docker.Network), pick(e.Docker.Image, d.Docker.Image)
	dd, ed := d.Docker, e.Docker
	pickList := func(agent, def []string) []string {
		if agent != nil {
			return agent
		}
		return def
	}
	pickNum := func(agent, def float64) float64 {
		if agent != 0 {
			return agent
		}
		return def
	}
	s.Container = sandbox.Container{
		WritableRoot: !pickBool(ed.ReadOnlyRoot, dd.ReadOnlyRoot, true),
		Tmpfs:        pickList(ed.Tmpfs, dd.Tmpfs),
		CapDrop:      pickList(ed.CapDrop, dd.CapDrop),
		User:         pick(ed.User, dd.User),
		SetupCommand: pick(ed.SetupCommand, dd.SetupCommand),
		PidsLimit:    int(pickNum(float64(ed.PidsLimit), float64(dd.PidsLimit))),
		Memory:       pick(ed.Memory, dd.Memory),
		MemorySwap:   pick(ed.MemorySwap, dd.MemorySwap),
		Cpus:         pickNum(ed.Cpus, dd.Cpus),
		Seccomp:      pick(ed.SeccompProfile, dd.SeccompProfile),
		Apparmor:     pick(ed.ApparmorProfile, dd.ApparmorProfile),
		DNS:          pickList(ed.DNS, dd.DNS),
		ExtraHosts:   pickList(ed.ExtraHosts, dd.ExtraHosts),
		Gpus:         pick(ed.Gpus, dd.Gpus),
		Prefix:       pick(ed.ContainerPrefix, dd.ContainerPrefix),
	}
	// env and binds merge: the agent's add to the defaults'.
	if len(dd.Env)+len(ed.Env) > 0 {
		s.Env = map[string]string{}
		maps.Copy(s.Env, dd.Env)
		maps.Copy(s.Env, ed.Env)
	}
	for i, spec := range dd.Binds {
		s.Binds = append(s.Binds, sandbox.BindSpec{Spec: spec, Key: fmt.Sprintf("agents.defaults.sandbox.docker.binds[%d]", i)})
	}
	for i, spec := range ed.Binds {
		s.Binds = append(s.Binds, sandbox.BindSpec{Spec: spec, Key: fmt.Sprintf("agents.entries.%s.sandbox.docker.binds[%d]", agentID, i)})
	}
	// A break-glass switch set at either level is set.
	s.AllowExternalBinds = ed.DangerouslyAllowExternalBindSources || dd.DangerouslyAllowExternalBindSources
	s.AllowReservedTargets = ed.DangerouslyAllowReservedContainerTargets || dd.DangerouslyAllowReservedContainerTargets
	s.AllowContainerJoin = ed.DangerouslyAllowContainerNamespaceJoin || dd.DangerouslyAllowContainerNamespaceJoin
	s.SSH = sandbox.SSH{
		Target: pick(e.SSH.Target, d.SSH.Target), Command: pick(e.SSH.Command, d.SSH.Command),
		WorkspaceRoot:         pick(e.SSH.WorkspaceRoot, d.SSH.WorkspaceRoot),
		StrictHostKeyChecking: pickBool(e.SSH.StrictHostKeyChecking, d.SSH.StrictHostKeyChecking, true),
		UpdateHostKeys:        pickBool(e.SSH.UpdateHostKeys, d.SSH.UpdateHostKeys, true),
		IdentityFile:          pick(e.SSH.IdentityFile, d.SSH.IdentityFile),
		CertificateFile:       pick(e.SSH.CertificateFile, d.SSH.CertificateFile),
		KnownHosts:            pick(e.SSH.KnownHostsFile, d.SSH.KnownHostsFile),
	}
	return s
}

// box is the sandbox who's tool calls run in, nil for the host.
func (h *Host) box(who tools.Who) (*sandbox.Box, error) {
	cfg := h.cfg()
	s := SandboxSettings(cfg, who.AgentID)
	if s.Mode == "" || s.Mode == sandbox.ModeOff {
		return nil, nil
	}
	ws, err := h.opts.Agents.Workspace(who.AgentID)
	if err != nil {
		return nil, err
	}
	c := sandbox.Caller{AgentID: who.AgentID, SessionKey: who.SessionKey, AgentWorkspace: ws,
		MainSession: sessions.MainKey(who.AgentID, cfg.Session.MainKey), GlobalScope: cfg.Session.Scope == "global"}
	return sandbox.Resolve(s, c, h.opts.StateDir)
}

// sandboxed says whether who runs sandboxed, for the policy chain's
// sandbox layer. A sandbox that cannot be resolved counts as one: the
// tighter policy, and exec refuses to run.
func (h *Host) sandboxed(who tools.Who) bool {
	b, err := h.box(who)
	return b != nil || err != nil
}

// errSSHFiles refuses the workspace tools other than the file tools in
// an ssh sandbox, whose workspace lives on the remote host: they would
// otherwise act on the local copy, which the sandbox no longer reads.
var errSSHFiles = errors.New("the ssh sandbox keeps its workspace on the remote host; only read, write, edit and apply_patch reach it there, use exec for the rest")

// toolWorkspace is the folder a caller's workspace tools act in: its
// sandbox's (the private one for workspaceAccess "none") or its agent's.
func (h *Host) toolWorkspace(who tools.Who) (string, error) {
	b, err := h.box(who)
	switch {
	case err != nil:
		return "", err
	case b == nil:
		return h.opts.Agents.Workspace(who.AgentID)
	case b.Backend == sandbox.BackendSSH:
		return "", errSSHFiles
	}
	return sandbox.PrepareWorkspace(b)
}

// remoteFiles is the remote workspace of a caller in an ssh sandbox, for
// the file tools; nil for everyone else.
func (h *Host) remoteFiles(who tools.Who) (fs.Remote, error) {
	b, err := h.box(who)
	if err != nil {
		return nil, err
	}
	if b == nil || b.Backend != sandbox.BackendSSH {
		return nil, nil
	}
	return h.sandboxes.Files(b), nil
}

// readOnly is why who's file tools may not write: a sandbox with
// workspaceAccess "ro".
func (h *Host) readOnly(who tools.Who) string {
	if b, err := h.box(who); err == nil && b != nil && b.ReadOnly() {
		return `this session's sandbox sees the workspace read-only (agents.defaults.sandbox.workspaceAccess "ro")`
	}
	return ""
}

// mount is the workspace's path inside who's sandbox, "" on the host.
func (h *Host) mount(who tools.Who) string {
	if b, err := h.box(who); err == nil && b != nil {
		return b.Mount()
	}
	return ""
}

// elevatedAllowed is OpenClaw's gate on exec's elevated flag:
// tools.elevated.enabled, and the sender listed under their channel in
// allowFrom (plain, or with an id:, from: or e164: prefix; "*" for anyone
// on that channel); then the agent's own tools.elevated, which can only
// narrow: enabled false refuses, and an allowFrom of its own must list
// the sender too. A call from no chat (an operator's) is looked up under
// "webchat", OpenClaw's name for its own clients.
func elevatedAllowed(cfg *config.Config, who tools.Who) bool {
	el := cfg.Tools.Elevated
	if !el.Enabled {
		return false
	}
	channel := who.Channel
	if channel == "" {
		channel = "webchat"
	}
	if !senderListed(el.AllowFrom[channel], who.SenderID) {
		return false
	}
	agent := cfg.Agents.Entries[who.AgentID].Tools.Elevated
	if agent.Enabled != nil && !*agent.Enabled {
		return false
	}
	if len(agent.AllowFrom) > 0 && !senderListed(agent.AllowFrom[channel], who.SenderID) {
		return false
	}
	return true
}

func senderListed(list []string, sender string) bool {
	for _, entry := range list {
		entry = strings.TrimSpace(entry)
		for _, prefix := range []string{"id:", "from:", "e164:"} {
			entry = strings.TrimPrefix(entry, prefix)
		}
		if entry == "*" || sender != "" && entry == sender {
			return true
		}
	}
	return false
}
