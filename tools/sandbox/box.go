package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Modes, scopes and workspace access, as OpenClaw names them.
const (
	ModeOff     = "off"
	ModeNonMain = "non-main"
	ModeAll     = "all"

	ScopeAgent   = "agent"
	ScopeSession = "session"
	ScopeShared  = "shared"

	AccessNone = "none"
	AccessRO   = "ro"
	AccessRW   = "rw"
)

// Backends. The config's backend "" is BackendLocal.
const (
	BackendLocal  = "local"
	BackendSSH    = "ssh"
	BackendDocker = "docker"
	BackendPodman = "podman"
)

// Where the workspace appears inside a local or container box.
const (
	MountRW = "/workspace" // workspaceAccess rw, and the private workspace of none
	MountRO = "/agent"     // workspaceAccess ro
)

// Settings are one agent's effective agents.*.sandbox keys (the agent's
// over the defaults), with the config's own defaults not yet applied.
type Settings struct {
	Mode, Scope, WorkspaceAccess string
	// WorkspaceRoot holds the private workspaces of access none.
	WorkspaceRoot string
	// Backend is the config's: "" (local), ssh, docker, podman, ...
	Backend string
	// Network is docker.network: "" or "none" cuts the box off.
	Network string
	// Image is docker.image, for the container backends.
	Image string
	SSH   SSH
	// Container is the rest of docker.*, for the container backends.
	Container Container
	// Env is docker.env, set in every backend's box.
	Env map[string]string
	// Binds are docker.binds, the defaults' then the agent's, each with
	// the key it came from for errors.
	Binds []BindSpec
	// The docker.dangerously* switches.
	AllowExternalBinds, AllowReservedTargets, AllowContainerJoin bool
	// HomeDir is the gateway user's home, for the credential folders
	// binds may not expose; "" is os.UserHomeDir.
	HomeDir string
}

// Container is agents.*.sandbox.docker beyond image and network. The
// zero value is the safe default: a read-only root, the default tmpfs
// folders, every capability dropped, no setup.
type Container struct {
	WritableRoot bool     // readOnlyRoot false
	Tmpfs        []string // nil: /tmp, /var/tmp, /run
	CapDrop      []string // nil: ALL
	User         string
	SetupCommand string
	PidsLimit    int
	Memory       string
	MemorySwap   string
	Cpus         float64
	Seccomp      string
	Apparmor     string
	DNS          []string
	ExtraHosts   []string
	Gpus         string
	// Prefix starts the containers' names; "" is DefaultContainerPrefix.
	Prefix string
}

// BindSpec is one docker.binds entry as configured.
type BindSpec struct {
	Spec string // "host:container[:ro|rw]"
	Key  string // where it was set, e.g. agents.defaults.sandbox.docker.binds[0]
}

// SSH is agents.*.sandbox.ssh.
type SSH struct {
	Target, Command, WorkspaceRoot            string
	StrictHostKeyChecking, UpdateHostKeys     bool
	IdentityFile, CertificateFile, KnownHosts string
}

// Caller is who a box is resolved for.
type Caller struct {
	AgentID    string
	SessionKey string
	// MainSession is the agent's main session key, agent:<id>:main (or
	// the session.mainKey in place of main); "" means that default.
	MainSession string
	// AgentWorkspace is the agent's own workspace on the host.
	AgentWorkspace string
	// GlobalScope: session.scope is "global", whose one session
	// ("global") counts as main.
	GlobalScope bool
}

// Box is one caller's sandbox.
type Box struct {
	Backend string
	// Key names the sandbox among its scope: "agent-<id>",
	// "session-<hash>" or "shared". It is safe as a folder name.
	Key    string
	Access string
	// Workspace is the host folder the box works in: the agent's
	// workspace for ro and rw, the private one under WorkspaceRoot for
	// none. The file tools act on it (read-only for ro).
	Workspace string
	// Network gives the box the network (docker.network not "none").
	Network bool
	// NetworkName is docker.network for the container backends when
	// Network is set: "bridge", a network name or container:<id>.
	NetworkName string
	Image       string
	SSH         SSH
	Container   Container
	// Env are the box's own NAME=value pairs (docker.env), sorted; a
	// run's own env comes after them and wins.
	Env []string
	// Binds are the checked docker.binds, one per container path.
	Binds []Bind
}

// Bind is one extra host folder in a box.
type Bind struct {
	Host, Container string
	ReadOnly        bool
}

// ReadOnly says the file tools must not change the box's workspace.
func (b *Box) ReadOnly() bool { return b.Access == AccessRO }

// Mount is where the workspace appears inside a local or container box.
func (b *Box) Mount() string {
	if b.Access == AccessRO {
		return MountRO
	}
	return MountRW
}

// IsMain says whether c's session is its agent's main session, the one
// mode non-main leaves on the host. A call with no session (an
// operator's tools.invoke) counts as main.
func (c Caller) IsMain() bool {
	switch {
	case c.SessionKey == "":
		return true
	case c.GlobalScope && c.SessionKey == "global":
		return true
	}
	main := c.MainSession
	if main == "" {
		main = "agent:" + c.AgentID + ":main"
	}
	return strings.EqualFold(c.SessionKey, main)
}

// ErrUnsupported is returned for a backend this gateway cannot run. The
// call is refused: a sandboxed caller never falls back to the host.
var ErrUnsupported = errors.New("sandbox backend not supported here")

// Resolve says whether c runs sandboxed under s and, if so, its Box; nil
// means the host. stateDir gives the default workspace root.
func Resolve(s Settings, c Caller, stateDir string) (*Box, error) {
	switch s.Mode {
	case "", ModeOff:
		return nil, nil
	case ModeNonMain:
		if c.IsMain() {
			return nil, nil
		}
	case ModeAll:
	default:
		return nil, fmt.Errorf("sandbox mode %q: want off, non-main or all", s.Mode)
	}
	b := &Box{Access: s.WorkspaceAccess, Image: s.Image, SSH: s.SSH}
	if b.Access == "" {
		b.Access = AccessNone
	}
	switch b.Access {
	case AccessNone, AccessRO, AccessRW:
	default:
		return nil, fmt.Errorf("sandbox workspaceAccess %q: want none, ro or rw", b.Access)
	}
	switch s.Backend {
	case "":
		b.Backend = BackendLocal
	case BackendSSH, BackendDocker, BackendPodman:
		b.Backend = s.Backend
	default:
		return nil, fmt.Errorf("sandbox backend %q: %w (use ssh, docker, podman, or leave it unset for the local bwrap sandbox)", s.Backend, ErrUnsupported)
	}
	b.Network = s.Network != "" && s.Network != "none"
	if b.Network {
		if err := checkNetwork(s.Network, s.AllowContainerJoin); err != nil {
			return nil, err
		}
		b.NetworkName = s.Network
	}
	b.Container = s.Container
	if p := s.Container.Prefix; p != "" && !containerName(p) {
		return nil, fmt.Errorf("sandbox docker.containerPrefix %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", p)
	}
	env, err := checkEnv(s.Env)
	if err != nil {
		return nil, err
	}
	b.Env = env
	switch s.Scope {
	case "", ScopeAgent:
		b.Key = "agent-" + safeName(c.AgentID)
	case ScopeSession:
		b.Key = "session-" + safeName(c.SessionKey)
	case ScopeShared:
		b.Key = "shared"
	default:
		return nil, fmt.Errorf("sandbox scope %q: want agent, session or shared", s.Scope)
	}
	if b.Access == AccessNone {
		root := expandHome(s.WorkspaceRoot)
		if root == "" {
			root = filepath.Join(stateDir, "sandboxes")
		}
		b.Workspace = filepath.Join(root, b.Key)
	} else {
		if c.AgentWorkspace == "" {
			return nil, errors.New("sandbox: the agent has no workspace")
		}
		b.Workspace = c.AgentWorkspace
	}
	root := expandHome(s.WorkspaceRoot)
	if root == "" {
		root = filepath.Join(stateDir, "sandboxes")
	}
	binds, err := checkBinds(s, []string{c.AgentWorkspace, root, b.Workspace}, stateDir)
	if err != nil {
		return nil, err
	}
	b.Binds = binds
	return b, nil
}

// safeName makes a folder name of an id or session key: its plain
// characters (at most 40) and a hash of the whole, so that distinct keys
// never share a folder and no key climbs out of the root.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 40 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	sum := sha256.Sum256([]byte(s))
	return b.String() + "-" + hex.EncodeToString(sum[:4])
}
