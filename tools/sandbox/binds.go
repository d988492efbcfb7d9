package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// ErrBlockedBind is wrapped by the error of a docker.binds entry that
// would expose what a sandbox must never see.
var ErrBlockedBind = errors.New("bind refused")

// blockedSources are host folders no bind may expose, nor contain: the
// system's configuration and kernel views, root's home, and the folders
// the container runtimes keep their control sockets in (a box holding
// the docker socket controls the host).
var blockedSources = []string{"/etc", "/proc", "/sys", "/dev", "/root", "/boot", "/run", "/var/run"}

// blockedHome are credential folders under the gateway user's home.
var blockedHome = []string{".aws", ".cargo", ".config", ".docker", ".gnupg", ".netrc", ".npm", ".ssh"}

// checkNetwork refuses the networks that put the box into someone
// else's: the host's own, and another container's unless allowed.
func checkNetwork(n string, allowJoin bool) error {
	switch {
	case n == "host":
		return errors.New(`sandbox docker.network "host" is refused: the box would share the gateway host's network; use "bridge" or a network name`)
	case strings.HasPrefix(n, "container:") && !allowJoin:
		return fmt.Errorf("sandbox docker.network %q joins another container's network: set docker.dangerouslyAllowContainerNamespaceJoin to allow it", n)
	case strings.HasPrefix(n, "-") || strings.ContainsAny(n, " \t\n"):
		return fmt.Errorf("sandbox docker.network %q is not a network name", n)
	}
	return nil
}

// checkEnv turns docker.env into sorted NAME=value pairs, refusing names
// a shell cannot export and values the container runtimes cannot carry.
func checkEnv(env map[string]string) ([]string, error) {
	var out []string
	for k, v := range env {
		if !envName(k) {
			return nil, fmt.Errorf("sandbox docker.env %q: a name is letters, digits and _, not starting with a digit", k)
		}
		if strings.ContainsAny(v, "\x00\n\r") {
			return nil, fmt.Errorf("sandbox docker.env %s: the value must be one line without NUL bytes", k)
		}
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out, nil
}

func envName(k string) bool {
	for i, r := range k {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return k != ""
}

// checkBinds parses and checks s.Binds. roots are the folders a source
// must lie in unless s.AllowExternalBinds; stateDir is the gateway's
// state folder, which holds its config and keys. A later entry for the
// same container path replaces an earlier one.
func checkBinds(s Settings, roots []string, stateDir string) ([]Bind, error) {
	if len(s.Binds) == 0 {
		return nil, nil
	}
	home := s.HomeDir
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	blocked := append([]string{}, blockedSources...)
	if home != "" {
		for _, h := range blockedHome {
			blocked = append(blocked, filepath.Join(home, h))
		}
	}
	var allowed []string
	for _, r := range roots {
		if r != "" {
			allowed = append(allowed, realish(filepath.Clean(r)))
		}
	}
	state := ""
	if stateDir != "" {
		state = realish(filepath.Clean(stateDir))
	}
	var out []Bind
	for _, spec := range s.Binds {
		b, err := checkBind(spec.Spec, blocked, allowed, state, s.AllowExternalBinds, s.AllowReservedTargets)
		if err != nil {
			key := spec.Key
			if key == "" {
				key = "docker.binds"
			}
			return nil, fmt.Errorf("sandbox %s %q: %w", key, spec.Spec, err)
		}
		out = slicesDeleteTarget(out, b.Container)
		out = append(out, b)
	}
	return out, nil
}

func slicesDeleteTarget(bs []Bind, target string) []Bind {
	kept := bs[:0]
	for _, b := range bs {
		if b.Container != target {
			kept = append(kept, b)
		}
	}
	return kept
}

// checkBind checks one "host:container[:mode]" entry.
func checkBind(spec string, blocked, allowed []string, state string, external, reserved bool) (Bind, error) {
	parts := strings.Split(spec, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return Bind{}, errors.New("want host:container[:ro|rw]")
	}
	b := Bind{Host: parts[0], Container: parts[1]}
	if len(parts) == 3 {
		switch parts[2] {
		case "ro":
			b.ReadOnly = true
		case "rw":
		default:
			return Bind{}, fmt.Errorf("mode %q: want ro or rw", parts[2])
		}
	}
	if !filepath.IsAbs(b.Host) || !path.IsAbs(b.Container) {
		return Bind{}, errors.New("both paths must be absolute")
	}
	if strings.ContainsAny(spec, ",\n\x00") {
		return Bind{}, errors.New("commas, newlines and NUL bytes are not allowed")
	}
	b.Host = filepath.Clean(b.Host)
	b.Container = path.Clean(b.Container)
	if b.Container == "/" {
		return Bind{}, fmt.Errorf("%w: the container path is the root", ErrBlockedBind)
	}
	if !reserved {
		for _, m := range []string{MountRW, MountRO} {
			if within(b.Container, m) || within(m, b.Container) {
				return Bind{}, fmt.Errorf("%w: %s would cover the sandbox's own %s (set docker.dangerouslyAllowReservedContainerTargets to allow it)", ErrBlockedBind, b.Container, m)
			}
		}
	}
	// Both the path as named and as its symlinks resolve: a link in an
	// allowed folder that leads to /var/run is /var/run.
	for _, src := range []string{b.Host, realish(b.Host)} {
		if base := filepath.Base(src); base == "docker.sock" || base == "podman.sock" || strings.HasSuffix(base, ".sock") {
			return Bind{}, fmt.Errorf("%w: %s is a container runtime's control socket, which would give the box the host", ErrBlockedBind, src)
		}
		for _, bl := range blocked {
			if within(src, bl) || within(bl, src) {
				return Bind{}, fmt.Errorf("%w: %s exposes %s", ErrBlockedBind, src, bl)
			}
		}
		if state != "" && within(state, src) {
			return Bind{}, fmt.Errorf("%w: %s exposes the gateway's state folder %s (its config and keys)", ErrBlockedBind, src, state)
		}
		if state != "" && within(src, state) && !inAny(src, allowed) {
			return Bind{}, fmt.Errorf("%w: %s is in the gateway's state folder %s (its config and keys)", ErrBlockedBind, src, state)
		}
		if !external && !inAny(src, allowed) {
			return Bind{}, fmt.Errorf("%w: %s is outside the agent's and the sandbox's workspaces (set docker.dangerouslyAllowExternalBindSources to allow it)", ErrBlockedBind, src)
		}
	}
	return b, nil
}

// within says whether p is dir or lies under it.
func within(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

func inAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if within(p, d) {
			return true
		}
	}
	return false
}

// realish resolves p's symlinks through its deepest existing folder, so
// that a path whose end does not exist yet still resolves its parents.
func realish(p string) string {
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}
