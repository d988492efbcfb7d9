package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	osexec "os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sshServer is a real OpenSSH server on loopback, run by the test with
// its own host key and one authorized key.
type sshServer struct {
	port                 int
	user                 string
	identity, knownHosts string
}

func startSSHD(t *testing.T) sshServer {
	t.Helper()
	sshd, err := osexec.LookPath("sshd")
	if err != nil {
		sshd = "/usr/sbin/sshd"
	}
	if _, err := os.Stat(sshd); err != nil {
		t.Skip("sshd not installed (Debian: apt-get install openssh-server; scripts/test.sh installs it)")
	}
	for _, p := range []string{"ssh", "ssh-keygen"} {
		if _, err := osexec.LookPath(p); err != nil {
			t.Skipf("%s not installed", p)
		}
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keygen := func(name string) {
		if out, err := osexec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, name)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	keygen("host")
	keygen("client")
	pub, _ := os.ReadFile(filepath.Join(dir, "client.pub"))
	write(t, filepath.Join(dir, "authorized_keys"), string(pub))
	// The privilege separation folder sshd insists on.
	os.MkdirAll("/run/sshd", 0o755)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	conf := fmt.Sprintf(`ListenAddress 127.0.0.1
HostKey %s
AuthorizedKeysFile %s
PidFile %s
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowUsers %s
`, filepath.Join(dir, "host"), filepath.Join(dir, "authorized_keys"), filepath.Join(dir, "sshd.pid"), u.Username)
	write(t, filepath.Join(dir, "sshd_config"), conf)
	cmd := osexec.Command(sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"), "-p", fmt.Sprint(port))
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	hostPub, _ := os.ReadFile(filepath.Join(dir, "host.pub"))
	write(t, filepath.Join(dir, "known_hosts"), fmt.Sprintf("[127.0.0.1]:%d %s", port, hostPub))
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd did not listen: %s", log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return sshServer{port: port, user: u.Username, identity: filepath.Join(dir, "client"), knownHosts: filepath.Join(dir, "known_hosts")}
}

func (s sshServer) settings(root string) Settings {
	return Settings{Mode: ModeAll, WorkspaceAccess: AccessRW, Backend: BackendSSH, SSH: SSH{
		Target: fmt.Sprintf("%s@127.0.0.1:%d", s.user, s.port), WorkspaceRoot: root,
		StrictHostKeyChecking: true, IdentityFile: s.identity, KnownHosts: s.knownHosts,
	}}
}

// TestSSHSandbox: exec in a remote workspace over a real sshd: seeded
// once from the local workspace, then remote-canonical; the caller's
// environment, quoting and exit codes arrive intact.
func TestSSHSandbox(t *testing.T) {
	srv := startSSHD(t)
	h := newHost(t)
	remote := filepath.Join(t.TempDir(), "remote")
	c := Caller{AgentID: "main", SessionKey: "agent:main:x", AgentWorkspace: h.ws}
	b, err := Resolve(srv.settings(remote), c, h.state)
	if err != nil {
		t.Fatal(err)
	}
	m := &Manager{}
	run := func(r Run) (string, int) {
		t.Helper()
		sp, err := m.Command(context.Background(), b, r)
		if err != nil {
			t.Fatal(err)
		}
		cmd := osexec.Command(sp.Argv[0], sp.Argv[1:]...)
		cmd.Env, cmd.Dir = sp.Env, sp.Dir
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*osexec.ExitError); ok {
			return string(out), ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return string(out), 0
	}
	if out, code := run(Run{Script: "pwd; cat notes.md"}); code != 0 || !strings.Contains(out, filepath.Join(remote, b.Key)) || !strings.Contains(out, "agent notes") {
		t.Fatalf("first run: exit %d: %q", code, out)
	}
	// Remote-canonical: a local change after the seed is not seen, a
	// remote one stays.
	write(t, filepath.Join(h.ws, "notes.md"), "changed locally")
	if out, _ := run(Run{Script: "echo remote >> notes.md; cat notes.md"}); strings.Contains(out, "changed locally") || !strings.Contains(out, "agent notes") {
		t.Fatalf("reseeded: %q", out)
	}
	if out, code := run(Run{Script: `printf '%s|%s' "$GREETING" "$OPENCLAW_SHELL"; exit 3`, Env: []string{"GREETING=it's \"quoted\" $HOME"}}); code != 3 || out != `it's "quoted" $HOME|exec` {
		t.Fatalf("env and exit: %d %q", code, out)
	}
	if err := os.MkdirAll(filepath.Join(remote, b.Key, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, _ := run(Run{Script: "pwd", Workdir: "sub"}); strings.TrimSpace(out) != filepath.Join(remote, b.Key, "sub") {
		t.Fatalf("workdir: %q", out)
	}
	if _, err := m.Command(context.Background(), b, Run{Script: "pwd", Workdir: "../../etc"}); err == nil {
		t.Fatal("a workdir out of the remote workspace was accepted")
	}
	// A fresh manager (a restarted gateway) finds the remote workspace
	// and does not seed it again.
	m = &Manager{}
	if out, _ := run(Run{Script: "cat notes.md"}); !strings.Contains(out, "remote") {
		t.Fatalf("after restart: %q", out)
	}
}

// TestSSHSandboxRefusesUnknownHost: with strictHostKeyChecking, a server
// whose key is not known is refused before any command runs.
func TestSSHSandboxRefusesUnknownHost(t *testing.T) {
	srv := startSSHD(t)
	h := newHost(t)
	s := srv.settings(filepath.Join(t.TempDir(), "remote"))
	s.SSH.KnownHosts = filepath.Join(t.TempDir(), "empty_known_hosts")
	write(t, s.SSH.KnownHosts, "")
	b, err := Resolve(s, Caller{AgentID: "main", SessionKey: "agent:main:x", AgentWorkspace: h.ws}, h.state)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&Manager{}).Command(context.Background(), b, Run{Script: "true"}); err == nil || !strings.Contains(err.Error(), "seed") {
		t.Fatalf("unknown host key accepted: %v", err)
	}
}

// TestSSHSandboxKilledRun: killing the local ssh client of a run (a
// timeout, process kill) and calling Cleanup ends the remote command too.
func TestSSHSandboxKilledRun(t *testing.T) {
	srv := startSSHD(t)
	h := newHost(t)
	b, err := Resolve(srv.settings(filepath.Join(t.TempDir(), "remote")), Caller{AgentID: "main", SessionKey: "agent:main:x", AgentWorkspace: h.ws}, h.state)
	if err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("sleep %d", 3000+os.Getpid()%1000)
	sp, err := (&Manager{}).Command(context.Background(), b, Run{Script: marker + "; echo done"})
	if err != nil {
		t.Fatal(err)
	}
	cmd := osexec.Command(sp.Argv[0], sp.Argv[1:]...)
	cmd.Env, cmd.Dir = sp.Env, sp.Dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	remote := func() bool { return osexec.Command("pgrep", "-f", "^"+marker+"$").Run() == nil }
	for deadline := time.Now().Add(30 * time.Second); !remote(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the remote command did not start")
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	sp.Cleanup()
	for deadline := time.Now().Add(10 * time.Second); remote(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			osexec.Command("pkill", "-f", "^"+marker+"$").Run()
			t.Fatal("the remote command outlived its killed client")
		}
	}
}
