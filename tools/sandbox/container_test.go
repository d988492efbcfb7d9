package sandbox

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// tinyImage imports a throwaway image holding only dash, cat and touch
// with their loader and libc, built from the host's own files, so the
// docker backend is tested without pulling anything.
func tinyImage(t *testing.T, docker string) string {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the test image is built from an amd64 Linux host's files")
	}
	files := map[string]string{ // in the image: on the host
		"bin/sh": "/bin/dash", "bin/cat": "/bin/cat", "bin/touch": "/bin/touch",
		"lib/x86_64-linux-gnu/libc.so.6": "/lib/x86_64-linux-gnu/libc.so.6",
		"lib64/ld-linux-x86-64.so.2":     "/lib64/ld-linux-x86-64.so.2",
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, d := range []string{"bin", "lib", "lib/x86_64-linux-gnu", "lib64", "tmp", "etc", "proc", "dev", "sys", "workspace", "agent"} {
		tw.WriteHeader(&tar.Header{Name: d + "/", Typeflag: tar.TypeDir, Mode: 0o755})
	}
	for in, host := range files {
		b, err := os.ReadFile(host) // follows the links to the real file
		if err != nil {
			t.Skipf("the test image needs %s: %v", host, err)
		}
		tw.WriteHeader(&tar.Header{Name: in, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(b))})
		tw.Write(b)
	}
	tw.Close()
	var id [4]byte
	rand.Read(id[:])
	tag := "openclaw-sandbox-test:" + hex.EncodeToString(id[:])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := osexec.CommandContext(ctx, docker, "import", "-", tag)
	cmd.Stdin = &buf
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("docker cannot import a local image here (%v: %s); the docker backend never pulls, so its test needs a working daemon", err, out)
	}
	t.Cleanup(func() { osexec.Command(docker, "rmi", "-f", tag).Run() })
	return tag
}

// TestDockerSandbox: the docker backend through the real CLI and daemon,
// on a local image (no registry is reached: the run uses --pull=never).
func TestDockerSandbox(t *testing.T) {
	docker, err := osexec.LookPath("docker")
	if err != nil {
		t.Skip("docker CLI not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := osexec.CommandContext(ctx, docker, "info").Run(); err != nil {
		t.Skipf("no docker daemon: %v", err)
	}
	image := tinyImage(t, docker)
	h := newHost(t)
	for _, tc := range []struct {
		name, access, script, want, leak string
		created                          string
	}{
		{name: "rw reads the workspace", access: "rw", script: "cat /workspace/notes.md", want: "agent notes"},
		{name: "the host config is not there", access: "rw", script: "cat " + h.config, leak: h.secret},
		{name: "the root is read-only", access: "rw", script: "touch /etc/pwned && echo wrote", leak: "wrote"},
		{name: "ro refuses writes", access: "ro", script: "touch /agent/new.md && echo wrote", leak: "wrote", created: filepath.Join(h.ws, "new.md")},
		{name: "no network", access: "rw", script: "cat /proc/net/dev", leak: "eth0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := h.box(t, tc.access)
			b.Backend, b.Image = BackendDocker, image
			out, _ := runIn(t, b, tc.script)
			if tc.want != "" && !strings.Contains(out, tc.want) {
				t.Fatalf("%q lacks %q", out, tc.want)
			}
			if tc.leak != "" && strings.Contains(out, tc.leak) {
				t.Fatalf("the container reached %q: %s", tc.leak, out)
			}
			if tc.created != "" {
				if _, err := os.Stat(tc.created); err == nil {
					t.Fatalf("%s was created on the host", tc.created)
				}
			}
		})
	}
	t.Run("a killed run leaves no container", func(t *testing.T) {
		b := h.box(t, "rw")
		b.Backend, b.Image = BackendDocker, image
		sp, err := (&Manager{}).Command(context.Background(), b, Run{Script: "read line"})
		if err != nil {
			t.Fatal(err)
		}
		cmd := osexec.Command(sp.Argv[0], sp.Argv[1:]...)
		cmd.Env, cmd.Dir = sp.Env, sp.Dir
		stdin, _ := cmd.StdinPipe() // never written: the container waits
		defer stdin.Close()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		name := sp.Argv[slices.Index(sp.Argv, "--name")+1]
		running := func() bool {
			out, _ := osexec.Command(docker, "ps", "-aq", "--filter", "name="+name).Output()
			return strings.TrimSpace(string(out)) != ""
		}
		for deadline := time.Now().Add(30 * time.Second); !running(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the container did not start")
			}
		}
		cmd.Process.Kill()
		cmd.Wait()
		sp.Cleanup()
		if running() {
			osexec.Command(docker, "rm", "-f", name).Run()
			t.Fatal("the container outlived its killed CLI")
		}
	})
}

// TestDockerSandboxKeys: docker.* keys in a real container: a read-only
// bind, the config's env, user, memory and pids limits, and a
// setupCommand that runs once for the scope while its result stays.
func TestDockerSandboxKeys(t *testing.T) {
	docker, err := osexec.LookPath("docker")
	if err != nil {
		t.Skip("docker CLI not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := osexec.CommandContext(ctx, docker, "info").Run(); err != nil {
		t.Skipf("no docker daemon: %v", err)
	}
	image := tinyImage(t, docker)
	h := newHost(t)
	write(t, filepath.Join(h.ws, "ref", "doc.md"), "reference")
	box := func(t *testing.T, s Settings) *Box {
		s.Mode, s.WorkspaceAccess, s.Backend, s.Image = ModeAll, AccessRW, BackendDocker, image
		// Each test its own scope, so setup images do not mix.
		b, err := Resolve(s, Caller{AgentID: "main", SessionKey: "agent:main:" + t.Name(), AgentWorkspace: h.ws}, h.state)
		if err != nil {
			t.Fatal(err)
		}
		b.Key += "-" + strings.ReplaceAll(t.Name(), "/", "-")
		return b
	}
	cgroupFile := func(v1, v2 string) string {
		return "cat /sys/fs/cgroup/" + v2 + " 2>/dev/null || cat /sys/fs/cgroup/" + v1
	}
	for _, tc := range []struct {
		name, script string
		s            Settings
		want, leak   string
	}{
		{name: "a read-only bind", s: Settings{Binds: []BindSpec{{Spec: filepath.Join(h.ws, "ref") + ":/ref:ro"}}},
			script: "cat /ref/doc.md; touch /ref/new && echo wrote", want: "reference", leak: "wrote"},
		{name: "env", s: Settings{Env: map[string]string{"LANG": "C.UTF-8", "GREETING": "it's $HOME"}},
			script: `printf '%s|%s' "$LANG" "$GREETING"`, want: "C.UTF-8|it's $HOME"},
		{name: "user", s: Settings{Container: Container{User: "1234:1234"}}, script: "cat /proc/self/status", want: "Uid:\t1234"},
		{name: "memory", s: Settings{Container: Container{Memory: "64m"}},
			script: cgroupFile("memory/memory.limit_in_bytes", "memory.max"), want: "67108864"},
		{name: "pids", s: Settings{Container: Container{PidsLimit: 64}}, script: cgroupFile("pids/pids.max", "pids.max"), want: "64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := runIn(t, box(t, tc.s), tc.script)
			if !strings.Contains(out, tc.want) || (tc.leak != "" && strings.Contains(out, tc.leak)) {
				t.Fatalf("%q: want %q, not %q", out, tc.want, tc.leak)
			}
		})
	}
	t.Run("setupCommand runs once", func(t *testing.T) {
		b := box(t, Settings{Container: Container{WritableRoot: true, SetupCommand: "touch /setup-marker; echo ran >> /workspace/setup.log"}})
		os.Remove(filepath.Join(h.ws, "setup.log"))
		for i := 0; i < 2; i++ {
			out, code := runIn(t, b, "cat /setup-marker && cat /workspace/setup.log")
			if code != 0 || strings.Count(out, "ran") != 1 {
				t.Fatalf("run %d: exit %d: %q", i, code, out)
			}
		}
		// The kept image goes with the test.
		out, _ := osexec.Command(docker, "images", "-q", "openclaw-sandbox-setup").Output()
		for _, id := range strings.Fields(string(out)) {
			osexec.Command(docker, "rmi", "-f", id).Run()
		}
	})
	t.Run("setupCommand on a missing image", func(t *testing.T) {
		b := box(t, Settings{Container: Container{SetupCommand: "true"}})
		b.Image = "openclaw-sandbox-test:missing"
		if _, err := (&Manager{}).Command(context.Background(), b, Run{Script: "true"}); err == nil || !strings.Contains(err.Error(), "not present") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("a failing setupCommand refuses the run", func(t *testing.T) {
		b := box(t, Settings{Container: Container{SetupCommand: "touch /x"}}) // the root is read-only
		if _, err := (&Manager{}).Command(context.Background(), b, Run{Script: "true"}); err == nil || !strings.Contains(err.Error(), "setupCommand") {
			t.Fatalf("%v", err)
		}
	})
}
