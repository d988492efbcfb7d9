package sandbox

import (
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"runtime"
)

var lookPath = osexec.LookPath

// systemDirs are the host folders a shell needs, mounted read-only (or
// recreated as the symlinks they are on merged-/usr systems).
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// etcFiles are the few /etc entries programs expect: the loader's cache,
// the alternatives links, certificates, time zone, name service. Not
// passwd's neighbours shadow or sudoers, not the rest of /etc.
var etcFiles = []string{
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
	"/etc/ssl", "/etc/ca-certificates", "/etc/ca-certificates.conf", "/etc/localtime",
	"/etc/nsswitch.conf", "/etc/hosts", "/etc/host.conf", "/etc/services", "/etc/protocols",
	"/etc/mime.types", "/etc/bash.bashrc", "/etc/profile", "/etc/inputrc",
}

// ErrNoBwrap says the local sandbox cannot start: bubblewrap is missing.
var ErrNoBwrap = errors.New("the local sandbox needs bubblewrap (bwrap); install it (Debian and Ubuntu: apt-get install bubblewrap) or set agents.defaults.sandbox.backend")

// local runs r under bwrap: an empty root with the system folders
// read-only, a private /tmp, /proc and /dev, and the workspace at its
// mount; every namespace unshared (the network too, unless b.Network),
// the environment cleared, the whole box killed when the run ends.
func (m *Manager) local(b *Box, r Run) (Spawn, error) {
	if runtime.GOOS != "linux" {
		return Spawn{}, fmt.Errorf("the local sandbox runs on Linux only; set agents.defaults.sandbox.backend: %w", ErrUnsupported)
	}
	bwrap, err := m.lookPath("bwrap")
	if err != nil {
		return Spawn{}, ErrNoBwrap
	}
	ws, err := PrepareWorkspace(b)
	if err != nil {
		return Spawn{}, err
	}
	dir, err := innerDir(b.Mount(), r.Workdir)
	if err != nil {
		return Spawn{}, err
	}
	return Spawn{Argv: append([]string{bwrap}, bwrapArgs(b, ws, dir, r)...), Env: []string{"PATH=/usr/bin:/bin"}, Dir: ws}, nil
}

// bwrapArgs are bwrap's arguments for r in b, whose workspace is the
// host folder ws, starting in dir inside the box.
func bwrapArgs(b *Box, ws, dir string, r Run) []string {
	a := bwrapBox(b, ws, dir, !r.PTY, nil)
	if r.PTY {
		a = append(a, "--setenv", "TERM", "xterm-256color")
	}
	for _, kv := range append(append([]string{}, b.Env...), r.Env...) {
		if k, v, ok := cutEnv(kv); ok {
			a = append(a, "--setenv", k, v)
		}
	}
	return append(a, "--", "/bin/sh", "-c", r.Script)
}

// bwrapBox are bwrap's arguments for the box itself, up to the program:
// namespaces, mounts (extraEtc besides etcFiles), the working folder and
// the cleared environment. newSession detaches the box from the
// caller's terminal.
func bwrapBox(b *Box, ws, dir string, newSession bool, extraEtc []string) []string {
	a := []string{"--die-with-parent", "--unshare-all", "--cap-drop", "ALL", "--hostname", "openclaw-sandbox"}
	if b.Network {
		a = append(a, "--share-net")
	}
	if newSession {
		// A new session: the command cannot push keystrokes into a
		// terminal it inherited (TIOCSTI).
		a = append(a, "--new-session")
	}
	for _, d := range systemDirs {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(d); err == nil {
				a = append(a, "--symlink", target, d)
			}
		case fi.IsDir():
			a = append(a, "--ro-bind", d, d)
		}
	}
	for _, f := range append(append([]string{}, etcFiles...), extraEtc...) {
		a = append(a, "--ro-bind-try", f, f)
	}
	if b.Network {
		a = append(a, "--ro-bind-try", "/etc/resolv.conf", "/etc/resolv.conf")
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/var/tmp")
	home := b.Mount()
	if b.Access == AccessRO {
		a = append(a, "--ro-bind", ws, MountRO)
		home = "/tmp"
	} else {
		a = append(a, "--bind", ws, MountRW)
	}
	for _, bd := range b.Binds {
		if bd.ReadOnly {
			a = append(a, "--ro-bind", bd.Host, bd.Container)
		} else {
			a = append(a, "--bind", bd.Host, bd.Container)
		}
	}
	return append(a, "--chdir", dir, "--clearenv",
		"--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin",
		"--setenv", "HOME", home, "--setenv", "TMPDIR", "/tmp", "--setenv", "OPENCLAW_SHELL", "exec")
}

// browserEtc are the /etc entries Chromium reads besides etcFiles: its
// fonts, and the launcher settings of the distribution's wrapper.
var browserEtc = []string{"/etc/fonts", "/etc/chromium", "/etc/chromium.d", "/etc/chromium-browser"}

// BrowserCommand wraps argv, a Chromium command line, in b's local box,
// so that what the browser can open (file: URLs, uploads) is what the
// box's commands see: the system folders, the workspace at its mount
// and a private /tmp, where the browser's profile must live. The box
// shares the host's network whatever docker.network says: the gateway
// reaches the browser's DevTools port, and the browser its network
// guard's proxy, on the host's loopback. Only the local backend can
// hold a browser.
func (m *Manager) BrowserCommand(b *Box, argv []string) ([]string, error) {
	if b.Backend != BackendLocal {
		return nil, fmt.Errorf("the browser runs in a sandbox only with the local backend, not %q: %w", b.Backend, ErrUnsupported)
	}
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("the local sandbox runs on Linux only: %w", ErrUnsupported)
	}
	bwrap, err := m.lookPath("bwrap")
	if err != nil {
		return nil, ErrNoBwrap
	}
	ws, err := PrepareWorkspace(b)
	if err != nil {
		return nil, err
	}
	nb := *b
	nb.Network = true
	// No new session: the browser stays in the process group the
	// browser tool starts it in, which is how it stops it and its helpers.
	a := append([]string{bwrap}, bwrapBox(&nb, ws, b.Mount(), false, browserEtc)...)
	return append(append(a, "--setenv", "HOME", "/tmp", "--"), argv...), nil
}

func cutEnv(kv string) (k, v string, ok bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], i > 0
		}
	}
	return "", "", false
}
