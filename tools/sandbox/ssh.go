package sandbox

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	osexec "os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DefaultSSHRoot is ssh.workspaceRoot's default.
const DefaultSSHRoot = "/tmp/openclaw-sandboxes"

// sshTarget splits "user@host:port" into ssh's destination and port.
func sshTarget(t string) (dest, port string, err error) {
	t = strings.TrimSpace(t)
	if t == "" {
		return "", "", errors.New("the ssh sandbox needs agents.defaults.sandbox.ssh.target (user@host[:port])")
	}
	if strings.HasPrefix(t, "-") || strings.ContainsAny(t, " \t\n'\"\\;|&$`") {
		return "", "", fmt.Errorf("ssh target %q is not user@host[:port]", t)
	}
	dest = t
	if i := strings.LastIndexByte(t, ':'); i >= 0 && !strings.HasSuffix(t[:i], ":") {
		if _, err := strconv.Atoi(t[i+1:]); err == nil {
			dest, port = t[:i], t[i+1:]
		}
	}
	dest = strings.TrimSuffix(strings.Replace(dest, "@[", "@", 1), "]")
	dest = strings.TrimPrefix(dest, "[")
	return dest, port, nil
}

// sshBase is ssh's argv up to the remote command.
func (m *Manager) sshBase(b *Box, tty bool) ([]string, error) {
	dest, port, err := sshTarget(b.SSH.Target)
	if err != nil {
		return nil, err
	}
	prog := b.SSH.Command
	if prog == "" {
		prog = "ssh"
	}
	if p, err := m.lookPath(prog); err == nil {
		prog = p
	} else {
		return nil, fmt.Errorf("ssh sandbox: %w", err)
	}
	yesNo := func(v bool) string {
		if v {
			return "yes"
		}
		return "no"
	}
	a := []string{prog, "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=" + yesNo(b.SSH.StrictHostKeyChecking),
		"-o", "UpdateHostKeys=" + yesNo(b.SSH.UpdateHostKeys), "-o", "LogLevel=ERROR"}
	if b.SSH.IdentityFile != "" {
		a = append(a, "-o", "IdentitiesOnly=yes", "-i", expandHome(b.SSH.IdentityFile))
	}
	if b.SSH.CertificateFile != "" {
		a = append(a, "-o", "CertificateFile="+expandHome(b.SSH.CertificateFile))
	}
	if b.SSH.KnownHosts != "" {
		a = append(a, "-o", "UserKnownHostsFile="+expandHome(b.SSH.KnownHosts))
	}
	if port != "" {
		a = append(a, "-p", port)
	}
	if tty {
		a = append(a, "-tt")
	} else {
		a = append(a, "-T")
	}
	return append(a, "--", dest), nil
}

// remoteDir is the box's workspace on the remote host.
func remoteDir(b *Box) string {
	root := b.SSH.WorkspaceRoot
	if root == "" {
		root = DefaultSSHRoot
	}
	return path.Join(root, b.Key)
}

// ssh runs r in the remote workspace, seeding it first if needed.
func (m *Manager) ssh(ctx context.Context, b *Box, r Run) (Spawn, error) {
	if err := m.seed(ctx, b); err != nil {
		return Spawn{}, err
	}
	dir, err := innerDir(remoteDir(b), r.Workdir)
	if err != nil {
		// An absolute workdir under the local mount names means the
		// same place remotely.
		if d, err2 := innerDir(b.Mount(), r.Workdir); err2 == nil {
			dir = path.Join(remoteDir(b), strings.TrimPrefix(d, b.Mount()))
		} else {
			return Spawn{}, err
		}
	}
	argv, err := m.sshBase(b, r.PTY)
	if err != nil {
		return Spawn{}, err
	}
	// The remote login shell leads the run's session: its id, kept in
	// a file, lets Cleanup end the whole run when the client is killed
	// (without a terminal, a dropped connection does not).
	var rid [8]byte
	rand.Read(rid[:])
	pidFile := path.Join(path.Dir(remoteDir(b)), ".openclaw-runs", hex.EncodeToString(rid[:]))
	var cmd strings.Builder
	cmd.WriteString("mkdir -p " + shellQuote(path.Dir(pidFile)) + " && echo $$ > " + shellQuote(pidFile) + "; ")
	cmd.WriteString("cd " + shellQuote(dir) + " || exit 1; export OPENCLAW_SHELL=exec")
	for _, kv := range append(append([]string{}, b.Env...), r.Env...) {
		if k, v, ok := cutEnv(kv); ok {
			cmd.WriteString("; export " + k + "=" + shellQuote(v))
		}
	}
	cmd.WriteString("; exec /bin/sh -c " + shellQuote(r.Script))
	ws, err := PrepareWorkspace(b)
	if err != nil {
		return Spawn{}, err
	}
	stopArgv, err := m.sshBase(b, false)
	if err != nil {
		return Spawn{}, err
	}
	pf := shellQuote(pidFile)
	stop := "s=$(cat " + pf + " 2>/dev/null) && [ -n \"$s\" ] && pkill -KILL -s \"$s\"; rm -f " + pf
	cleanup := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		osexec.CommandContext(ctx, stopArgv[0], append(stopArgv[1:], stop)...).Run()
	}
	return Spawn{Argv: append(argv, cmd.String()), Env: os.Environ(), Dir: ws, Cleanup: cleanup}, nil
}

// seed creates the box's remote workspace from its local one, once:
// a remote workspace that exists is used as it is (OpenClaw's
// remote-canonical model).
func (m *Manager) seed(ctx context.Context, b *Box) error {
	id := b.SSH.Target + "\x00" + remoteDir(b)
	// One seed at a time: two first calls must not both find the remote
	// workspace missing and publish it twice.
	m.seedMu.Lock()
	defer m.seedMu.Unlock()
	m.mu.Lock()
	done := m.seeded[id]
	m.mu.Unlock()
	if done {
		return nil
	}
	ws, err := PrepareWorkspace(b)
	if err != nil {
		return err
	}
	var archive bytes.Buffer
	if err := tarTree(&archive, ws); err != nil {
		return fmt.Errorf("ssh sandbox: pack the workspace: %w", err)
	}
	argv, err := m.sshBase(b, false)
	if err != nil {
		return err
	}
	dir := shellQuote(remoteDir(b))
	script := "set -e; if [ -d " + dir + " ]; then cat >/dev/null; exit 0; fi; " +
		"tmp=" + dir + ".seed.$$; mkdir -p \"$tmp\"; tar -C \"$tmp\" -xf -; mv \"$tmp\" " + dir
	cmd := osexec.CommandContext(ctx, argv[0], append(argv[1:], script)...)
	cmd.Stdin = &archive
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("ssh sandbox: seed %s on %s: %w: %s", remoteDir(b), b.SSH.Target, err, strings.TrimSpace(stderr.String()))
	}
	m.mu.Lock()
	if m.seeded == nil {
		m.seeded = map[string]bool{}
	}
	m.seeded[id] = true
	m.mu.Unlock()
	return nil
}

// tarTree writes dir's folders and regular files (not links, devices or
// sockets) as a tar stream.
func tarTree(w io.Writer, dir string) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if !fi.IsDir() && !fi.Mode().IsRegular() {
			return nil
		}
		h, err := tar.FileInfoHeader(fi, "")
		if err != nil {
			return err
		}
		h.Name = filepath.ToSlash(rel)
		h.Uname, h.Gname, h.Uid, h.Gid = "", "", 0, 0
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if fi.IsDir() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, io.LimitReader(f, h.Size))
		return err
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~"); ok && (rest == "" || strings.HasPrefix(rest, "/")) {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}
