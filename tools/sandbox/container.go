package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	osexec "os/exec"
	"strconv"
	"strings"
	"time"
)

// DefaultImage is docker.image's default, OpenClaw's sandbox image.
const DefaultImage = "openclaw-sandbox:bookworm-slim"

// DefaultContainerPrefix is docker.containerPrefix's default.
const DefaultContainerPrefix = "openclaw-sbx-"

// containerName says whether p may start a container's name, as docker
// and podman accept them.
func containerName(p string) bool {
	for i, r := range p {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case (r == '.' || r == '_' || r == '-') && i > 0:
		default:
			return false
		}
	}
	return p != "" && len(p) <= 64
}

// container runs r in a throwaway container of b's image through the
// docker or podman CLI: the workspace bind-mounted at its mount, no
// network unless b.Network, every capability dropped, no new privileges,
// a read-only root with private tmpfs folders (docker.* may loosen these
// and add limits and binds). The image must be present: runs start with
// --pull=never. A setupCommand runs first, once per scope and
// configuration (see setupImage).
func (m *Manager) container(ctx context.Context, b *Box, r Run) (Spawn, error) {
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
	if b.Container.SetupCommand != "" {
		if image, err = m.setupImage(ctx, prog, b, ws, image); err != nil {
			return Spawn{}, err
		}
	}
	var id [8]byte
	rand.Read(id[:])
	prefix := b.Container.Prefix
	if prefix == "" {
		prefix = DefaultContainerPrefix
	}
	name := prefix + hex.EncodeToString(id[:])
	a := append([]string{prog}, containerArgs(b, ws, name, image, dir, r)...)
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

// containerArgs are the CLI's arguments that run r in b as the container
// name of image, with the host workspace ws, starting in dir.
func containerArgs(b *Box, ws, name, image, dir string, r Run) []string {
	a := append([]string{"run", "--rm", "-i", "--pull=never", "--name", name}, containerFlags(b, ws)...)
	a = append(a, "-w", dir, "-e", "OPENCLAW_SHELL=exec", "-e", "HOME=/tmp")
	if r.PTY {
		a = append(a, "-t")
	}
	for _, kv := range b.Env {
		a = append(a, "-e", kv)
	}
	for _, kv := range r.Env {
		a = append(a, "-e", kv)
	}
	return append(a, "--", image, "/bin/sh", "-c", r.Script)
}

// defaultTmpfs are docker.tmpfs's default.
var defaultTmpfs = []string{"/tmp", "/var/tmp", "/run"}

// containerFlags are the box's isolation, limits and mounts, shared by
// its runs and its setup container.
func containerFlags(b *Box, ws string) []string {
	c := b.Container
	network := "none"
	if b.Network {
		network = b.NetworkName
		if network == "" {
			network = "bridge"
		}
	}
	a := []string{"--network", network}
	capDrop := c.CapDrop
	if capDrop == nil {
		capDrop = []string{"ALL"}
	}
	for _, cp := range capDrop {
		a = append(a, "--cap-drop", cp)
	}
	a = append(a, "--security-opt", "no-new-privileges")
	if c.Seccomp != "" {
		a = append(a, "--security-opt", "seccomp="+c.Seccomp)
	}
	if c.Apparmor != "" {
		a = append(a, "--security-opt", "apparmor="+c.Apparmor)
	}
	if !c.WritableRoot {
		a = append(a, "--read-only")
	}
	tmpfs := c.Tmpfs
	if tmpfs == nil {
		tmpfs = defaultTmpfs
	}
	for _, t := range tmpfs {
		a = append(a, "--tmpfs", t)
	}
	if c.User != "" {
		a = append(a, "--user", c.User)
	}
	if c.PidsLimit > 0 {
		a = append(a, "--pids-limit", strconv.Itoa(c.PidsLimit))
	}
	if c.Memory != "" {
		a = append(a, "--memory", c.Memory)
	}
	if c.MemorySwap != "" {
		a = append(a, "--memory-swap", c.MemorySwap)
	}
	if c.Cpus > 0 {
		a = append(a, "--cpus", strconv.FormatFloat(c.Cpus, 'f', -1, 64))
	}
	for _, d := range c.DNS {
		a = append(a, "--dns", d)
	}
	for _, h := range c.ExtraHosts {
		a = append(a, "--add-host", h)
	}
	if c.Gpus != "" {
		a = append(a, "--gpus", c.Gpus)
	}
	mount := ws + ":" + b.Mount()
	if b.Access == AccessRO {
		mount += ":ro"
	}
	a = append(a, "-v", mount)
	for _, bd := range b.Binds {
		v := bd.Host + ":" + bd.Container
		if bd.ReadOnly {
			v += ":ro"
		}
		a = append(a, "-v", v)
	}
	return a
}

// setupImage runs b's setupCommand once for its scope and configuration
// and returns the image later runs start from. Runs are throwaway
// containers, so what the command leaves behind (installed packages) is
// kept by committing its container as a local image named after a hash
// of everything it depended on; a changed command, image or setting gets
// a new one, and a restarted gateway finds the old one.
func (m *Manager) setupImage(ctx context.Context, prog string, b *Box, ws, image string) (string, error) {
	// The base image's id, not only its name: a rebuilt image under the
	// same tag must get a fresh setup.
	idOut, err := osexec.CommandContext(ctx, prog, "image", "inspect", "--format", "{{.Id}}", image).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("sandbox docker.image %q is not present on this host (nothing is pulled; build or load it first): %w: %s", image, err, tail(string(idOut), 500))
	}
	sum := sha256.New()
	for _, part := range append([]string{b.Backend, b.Key, image, strings.TrimSpace(string(idOut)), b.Container.SetupCommand}, containerFlags(b, ws)...) {
		sum.Write([]byte(part))
		sum.Write([]byte{0})
	}
	for _, kv := range b.Env {
		sum.Write([]byte(kv + "\x00"))
	}
	tag := "openclaw-sandbox-setup:" + hex.EncodeToString(sum.Sum(nil)[:12])
	// One setup at a time, so two first runs do not both set up.
	m.seedMu.Lock()
	defer m.seedMu.Unlock()
	if osexec.CommandContext(ctx, prog, "image", "inspect", tag).Run() == nil {
		return tag, nil
	}
	var id [8]byte
	rand.Read(id[:])
	prefix := b.Container.Prefix
	if prefix == "" {
		prefix = DefaultContainerPrefix
	}
	name := prefix + "setup-" + hex.EncodeToString(id[:])
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		osexec.CommandContext(ctx, prog, "rm", "-f", name).Run()
	}()
	a := append([]string{"run", "--pull=never", "--name", name}, containerFlags(b, ws)...)
	a = append(a, "-w", b.Mount(), "-e", "HOME=/tmp")
	for _, kv := range b.Env {
		a = append(a, "-e", kv)
	}
	a = append(a, "--", image, "/bin/sh", "-lc", b.Container.SetupCommand)
	var out bytes.Buffer
	cmd := osexec.CommandContext(ctx, prog, a...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("sandbox docker.setupCommand in %s: %w: %s", image, err, tail(out.String(), 2000))
	}
	if o, err := osexec.CommandContext(ctx, prog, "commit", name, tag).CombinedOutput(); err != nil {
		return "", fmt.Errorf("sandbox docker.setupCommand: keep its result as %s: %w: %s", tag, err, strings.TrimSpace(string(o)))
	}
	return tag, nil
}

// tail is the last n bytes of s, for an error.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}
