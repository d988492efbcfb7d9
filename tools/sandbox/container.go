package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	osexec "os/exec"
	"time"
)

// DefaultImage is docker.image's default, OpenClaw's sandbox image.
const DefaultImage = "openclaw-sandbox:bookworm-slim"

// container runs r in a throwaway container of b's image through the
// docker or podman CLI: the workspace bind-mounted at its mount, no
// network unless b.Network, every capability dropped, no new privileges,
// a read-only root with a private /tmp. The image must be present: the
// run is started with --pull=never.
func (m *Manager) container(b *Box, r Run) (Spawn, error) {
	prog, err := m.lookPath(b.Backend)
	if err != nil {
		return Spawn{}, fmt.Errorf("the %s sandbox needs the %s CLI: %w", b.Backend, b.Backend, err)
	}
	ws, err := PrepareWorkspace(b)
	if err != nil {
		return Spawn{}, err
	}
	dir, err := innerDir(b.Mount(), r.Workdir)
	if err != nil {
		return Spawn{}, err
	}
	image := b.Image
	if image == "" {
		image = DefaultImage
	}
	network := "none"
	if b.Network {
		network = "bridge"
	}
	mount := ws + ":" + b.Mount()
	if b.Access == AccessRO {
		mount += ":ro"
	}
	var id [8]byte
	rand.Read(id[:])
	name := "openclaw-sandbox-" + hex.EncodeToString(id[:])
	a := []string{prog, "run", "--rm", "-i", "--pull=never", "--name", name, "--network", network, "--cap-drop", "ALL",
		"--security-opt", "no-new-privileges", "--read-only", "--tmpfs", "/tmp", "-v", mount, "-w", dir,
		"-e", "OPENCLAW_SHELL=exec", "-e", "HOME=/tmp"}
	if r.PTY {
		a = append(a, "-t")
	}
	for _, kv := range r.Env {
		a = append(a, "-e", kv)
	}
	a = append(a, "--", image, "/bin/sh", "-c", r.Script)
	// Killing the CLI (a timeout, process kill, the turn's end) does not
	// stop its container; removing it by name does, and is a no-op after
	// --rm already did.
	cleanup := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		osexec.CommandContext(ctx, prog, "rm", "-f", name).Run()
	}
	return Spawn{Argv: a, Env: os.Environ(), Dir: ws, Cleanup: cleanup}, nil
}
