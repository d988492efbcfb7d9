package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestBinds: docker.binds as Resolve checks them. The attacks (the docker
// socket, /etc, /proc, credential folders, the gateway's state folder, a
// symlink in the workspace that leads to /var/run, a folder that merely
// contains one of those) are refused with an error naming the key.
func TestBinds(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	state := filepath.Join(home, ".openclaw")
	ws := filepath.Join(state, "workspace")
	data := filepath.Join(ws, "data")
	ext := filepath.Join(root, "external")
	for _, d := range []string{data, ext, filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/var/run", filepath.Join(ws, "run-link")); err != nil {
		t.Fatal(err)
	}
	const key = "agents.defaults.sandbox.docker.binds[0]"
	for _, tc := range []struct {
		name     string
		binds    []string
		external bool
		reserved bool
		want     []Bind
		wantErr  string // fragment of the error, which also names the key
	}{
		{name: "a workspace folder, read-only", binds: []string{data + ":/data:ro"}, want: []Bind{{Host: data, Container: "/data", ReadOnly: true}}},
		{name: "no mode is rw", binds: []string{data + ":/data"}, want: []Bind{{Host: data, Container: "/data"}}},
		{name: "the last entry for a path wins", binds: []string{data + ":/data:ro", ws + "/x:/data:rw"}, want: []Bind{{Host: ws + "/x", Container: "/data"}}},
		{name: "the docker socket", binds: []string{"/var/run/docker.sock:/var/run/docker.sock"}, external: true, wantErr: "docker.sock"},
		{name: "the docker socket under /run", binds: []string{"/run/docker.sock:/d.sock"}, external: true, wantErr: "control socket"},
		{name: "a podman socket elsewhere", binds: []string{ext + "/podman.sock:/p.sock"}, external: true, wantErr: "control socket"},
		{name: "/etc", binds: []string{"/etc:/host-etc:ro"}, external: true, wantErr: "exposes /etc"},
		{name: "a file in /etc", binds: []string{"/etc/shadow:/s:ro"}, external: true, wantErr: "exposes /etc"},
		{name: "/proc", binds: []string{"/proc:/p"}, external: true, wantErr: "exposes /proc"},
		{name: "the root folder", binds: []string{"/:/host"}, external: true, wantErr: "exposes"},
		{name: "/var, which holds /var/run", binds: []string{"/var:/v"}, external: true, wantErr: "exposes /var/run"},
		{name: "ssh keys", binds: []string{home + "/.ssh:/keys:ro"}, external: true, wantErr: ".ssh"},
		{name: "the home holding them", binds: []string{home + ":/home"}, external: true, wantErr: "exposes"},
		{name: "the state folder", binds: []string{state + ":/state:ro"}, external: true, wantErr: "state folder"},
		{name: "the config in it", binds: []string{state + "/openclaw.json:/c.json:ro"}, external: true, wantErr: "state folder"},
		{name: "a symlink to /var/run", binds: []string{ws + "/run-link/docker.sock:/d"}, wantErr: "docker.sock"},
		{name: "a symlink to /var/run, a new leaf", binds: []string{ws + "/run-link/new/x:/d"}, wantErr: "/run"},
		{name: "outside the workspaces", binds: []string{ext + ":/ext"}, wantErr: "dangerouslyAllowExternalBindSources"},
		{name: "outside, allowed", binds: []string{ext + ":/ext:ro"}, external: true, want: []Bind{{Host: ext, Container: "/ext", ReadOnly: true}}},
		{name: "onto /workspace", binds: []string{data + ":/workspace"}, wantErr: "dangerouslyAllowReservedContainerTargets"},
		{name: "under /agent", binds: []string{data + ":/agent/x"}, wantErr: "dangerouslyAllowReservedContainerTargets"},
		{name: "onto /workspace, allowed", binds: []string{data + ":/workspace/data"}, reserved: true, want: []Bind{{Host: data, Container: "/workspace/data"}}},
		{name: "onto the container's root", binds: []string{data + ":/"}, reserved: true, wantErr: "root"},
		{name: "a relative source", binds: []string{"data:/data"}, wantErr: "absolute"},
		{name: "a bad mode", binds: []string{data + ":/data:z"}, wantErr: "want ro or rw"},
		{name: "docker's option syntax", binds: []string{data + ":/data:ro,z"}, wantErr: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Settings{Mode: ModeAll, WorkspaceAccess: AccessRW, Backend: BackendDocker, HomeDir: home,
				AllowExternalBinds: tc.external, AllowReservedTargets: tc.reserved}
			for i, b := range tc.binds {
				k := key
				if i > 0 {
					k = "agents.entries.main.sandbox.docker.binds[0]"
				}
				s.Binds = append(s.Binds, BindSpec{Spec: b, Key: k})
			}
			b, err := Resolve(s, Caller{AgentID: "main", SessionKey: "agent:main:x", AgentWorkspace: ws}, state)
			if tc.want != nil {
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(b.Binds, tc.want) {
					t.Fatalf("binds %+v, want %+v", b.Binds, tc.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted: %+v", b.Binds)
			}
			if !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "docker.binds[0]") {
				t.Fatalf("%v: want %q and the key", err, tc.wantErr)
			}
		})
	}
	t.Run("refusals wrap ErrBlockedBind", func(t *testing.T) {
		s := Settings{Mode: ModeAll, WorkspaceAccess: AccessRW, Backend: BackendDocker, HomeDir: home, AllowExternalBinds: true,
			Binds: []BindSpec{{Spec: "/var/run/docker.sock:/var/run/docker.sock", Key: key}}}
		_, err := Resolve(s, Caller{AgentID: "main", SessionKey: "x", AgentWorkspace: ws}, state)
		if !errors.Is(err, ErrBlockedBind) || !strings.Contains(err.Error(), key) {
			t.Fatalf("%v", err)
		}
	})
}

// TestNetworkAndEnv: docker.network and docker.env as Resolve checks them.
func TestNetworkAndEnv(t *testing.T) {
	for _, tc := range []struct {
		name    string
		s       Settings
		wantErr string
		net     string
		env     []string
	}{
		{name: "bridge", s: Settings{Network: "bridge"}, net: "bridge"},
		{name: "a named network", s: Settings{Network: "sbx-net"}, net: "sbx-net"},
		{name: "host is refused", s: Settings{Network: "host"}, wantErr: `"host" is refused`},
		{name: "another container's is refused", s: Settings{Network: "container:abc"}, wantErr: "dangerouslyAllowContainerNamespaceJoin"},
		{name: "another container's, allowed", s: Settings{Network: "container:abc", AllowContainerJoin: true}, net: "container:abc"},
		{name: "an option is no network", s: Settings{Network: "--privileged"}, wantErr: "not a network"},
		{name: "env sorted", s: Settings{Env: map[string]string{"LANG": "C.UTF-8", "API_KEY": "k y"}}, env: []string{"API_KEY=k y", "LANG=C.UTF-8"}},
		{name: "a bad env name", s: Settings{Env: map[string]string{"A-B": "x"}}, wantErr: "docker.env"},
		{name: "a leading digit", s: Settings{Env: map[string]string{"1A": "x"}}, wantErr: "docker.env"},
		{name: "a multi-line value", s: Settings{Env: map[string]string{"KEY": "a\nb"}}, wantErr: "one line"},
		{name: "a container prefix", s: Settings{Container: Container{Prefix: "team-a_sbx."}}},
		{name: "a prefix that is an option", s: Settings{Container: Container{Prefix: "-v"}}, wantErr: "containerPrefix"},
		{name: "a prefix with a slash", s: Settings{Container: Container{Prefix: "a/b"}}, wantErr: "containerPrefix"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			s.Mode, s.WorkspaceAccess, s.Backend = ModeAll, AccessRW, BackendDocker
			b, err := Resolve(s, Caller{AgentID: "main", SessionKey: "x", AgentWorkspace: "/ws"}, "/state")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b.NetworkName != tc.net || !slices.Equal(b.Env, tc.env) {
				t.Fatalf("network %q env %q, want %q %q", b.NetworkName, b.Env, tc.net, tc.env)
			}
		})
	}
}
