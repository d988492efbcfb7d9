package sandbox

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// Spawn is how to start one command in a box: the program and its
// arguments, the environment of that program (the box's own environment
// is set inside Argv), and the host folder to start it in.
type Spawn struct {
	Argv []string
	Env  []string
	Dir  string
	// Cleanup, when set, is called once a killed program has ended: it
	// stops what the run left behind (the container of a killed docker
	// CLI, the remote command of a killed ssh client).
	Cleanup func()
}

// Run is one command for a box.
type Run struct {
	// Script is the shell line, run with /bin/sh -c.
	Script string
	// Workdir is where to run, relative to the box's workspace or an
	// absolute path inside its mount; "" is the workspace itself.
	Workdir string
	// Env are extra NAME=value pairs, already checked by the caller.
	Env []string
	// PTY: the caller gives the command a terminal.
	PTY bool
}

// Manager builds the commands of every box and remembers which remote
// workspaces it has seeded.
type Manager struct {
	// LookPath finds bwrap, ssh, docker, podman; nil is a PATH search.
	LookPath func(string) (string, error)

	seedMu sync.Mutex // held while a remote workspace is seeded
	mu     sync.Mutex
	seeded map[string]bool // ssh target + key
}

// Command prepares r to run in b. The local backend creates b's
// workspace if it is missing; the ssh backend seeds the remote one on
// first use.
func (m *Manager) Command(ctx context.Context, b *Box, r Run) (Spawn, error) {
	if len(b.Binds) > 0 && b.Backend == BackendSSH {
		return Spawn{}, fmt.Errorf("sandbox docker.binds: the ssh backend has no host folders to mount: %w", ErrUnsupported)
	}
	switch b.Backend {
	case BackendLocal:
		return m.local(b, r)
	case BackendSSH:
		return m.ssh(ctx, b, r)
	case BackendDocker, BackendPodman:
		return m.container(ctx, b, r)
	}
	return Spawn{}, fmt.Errorf("sandbox backend %q: %w", b.Backend, ErrUnsupported)
}

func (m *Manager) lookPath(name string) (string, error) {
	if m.LookPath != nil {
		return m.LookPath(name)
	}
	return lookPath(name)
}

// PrepareWorkspace creates b's host workspace (0700) if it is missing and
// returns its real path, symlinks resolved.
func PrepareWorkspace(b *Box) (string, error) {
	if err := os.MkdirAll(b.Workspace, 0o700); err != nil {
		return "", fmt.Errorf("sandbox workspace: %w", err)
	}
	real, err := filepath.EvalSymlinks(b.Workspace)
	if err != nil {
		return "", fmt.Errorf("sandbox workspace: %w", err)
	}
	return real, nil
}

// innerDir is the working folder inside a box mounted at mount: workdir
// relative to it, or absolute inside it. Anything climbing out is refused.
func innerDir(mount, workdir string) (string, error) {
	if workdir == "" {
		return mount, nil
	}
	p := workdir
	if !path.IsAbs(p) {
		p = path.Join(mount, filepath.ToSlash(p))
	}
	p = path.Clean(p)
	if p != mount && !strings.HasPrefix(p, mount+"/") {
		return "", fmt.Errorf("workdir %q is outside the sandbox workspace %s", workdir, mount)
	}
	return p, nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
