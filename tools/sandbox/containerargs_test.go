package sandbox

import (
	"slices"
	"testing"
)

// TestContainerArgs: the docker.* keys as they reach the CLI's argv.
func TestContainerArgs(t *testing.T) {
	base := func() *Box {
		return &Box{Backend: BackendDocker, Key: "agent-main", Access: AccessRW, Workspace: "/ws"}
	}
	for _, tc := range []struct {
		name   string
		box    func(*Box)
		run    Run
		want   []string // runs of consecutive arguments that must appear
		absent []string // single arguments that must not
	}{
		{name: "the safe defaults", box: func(*Box) {},
			want: []string{"--network", "none", "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--read-only",
				"--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--tmpfs", "/run", "-v", "/ws:/workspace"},
			absent: []string{"--user", "--memory", "--pids-limit", "--cpus", "--privileged"}},
		{name: "readOnlyRoot false", box: func(b *Box) { b.Container.WritableRoot = true }, absent: []string{"--read-only"}},
		{name: "tmpfs and capDrop replace the defaults", box: func(b *Box) {
			b.Container.Tmpfs, b.Container.CapDrop = []string{"/scratch"}, []string{"NET_RAW"}
		}, want: []string{"--cap-drop", "NET_RAW", "--security-opt"}, absent: []string{"ALL", "/var/tmp"}},
		{name: "user", box: func(b *Box) { b.Container.User = "1000:1000" }, want: []string{"--user", "1000:1000"}},
		{name: "limits", box: func(b *Box) {
			b.Container.PidsLimit, b.Container.Memory, b.Container.MemorySwap, b.Container.Cpus = 256, "1g", "2g", 1.5
		}, want: []string{"--pids-limit", "256", "--memory", "1g", "--memory-swap", "2g", "--cpus", "1.5"}},
		{name: "profiles", box: func(b *Box) { b.Container.Seccomp, b.Container.Apparmor = "/p.json", "openclaw" },
			want: []string{"--security-opt", "seccomp=/p.json", "--security-opt", "apparmor=openclaw"}},
		{name: "dns and hosts", box: func(b *Box) { b.Container.DNS, b.Container.ExtraHosts = []string{"1.1.1.1"}, []string{"svc:10.0.0.5"} },
			want: []string{"--dns", "1.1.1.1", "--add-host", "svc:10.0.0.5"}},
		{name: "gpus", box: func(b *Box) { b.Container.Gpus = "all" }, want: []string{"--gpus", "all"}},
		{name: "a named network", box: func(b *Box) { b.Network, b.NetworkName = true, "sbx-net" }, want: []string{"--network", "sbx-net"}},
		{name: "binds after the workspace", box: func(b *Box) {
			b.Binds = []Bind{{Host: "/src", Container: "/src", ReadOnly: true}, {Host: "/out", Container: "/out"}}
		}, want: []string{"-v", "/ws:/workspace", "-v", "/src:/src:ro", "-v", "/out:/out"}},
		{name: "ro workspace", box: func(b *Box) { b.Access = AccessRO }, want: []string{"-v", "/ws:/agent:ro", "-w", "/agent"}},
		{name: "config env, then the run's", box: func(b *Box) { b.Env = []string{"LANG=C.UTF-8", "X=config"} },
			run: Run{Env: []string{"X=run"}}, want: []string{"-e", "LANG=C.UTF-8", "-e", "X=config", "-e", "X=run", "--"}},
		{name: "the script after the image", box: func(*Box) {}, run: Run{Script: "echo 'hi'; --rm"},
			want: []string{"--", "img", "/bin/sh", "-c", "echo 'hi'; --rm"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := base()
			tc.box(b)
			r := tc.run
			a := containerArgs(b, "/ws", "n", "img", b.Mount(), r)
			if !containsRun(a, tc.want) {
				t.Fatalf("%q\nlacks %q", a, tc.want)
			}
			// Everything but the script comes before the image.
			img := slices.Index(a, "img")
			for _, x := range tc.absent {
				if slices.Contains(a[:img], x) {
					t.Fatalf("%q has %q", a, x)
				}
			}
			if a[0] != "run" || !slices.Contains(a, "--pull=never") || !slices.Contains(a, "--rm") {
				t.Fatalf("%q", a)
			}
		})
	}
}

// containsRun says whether want appears in a as consecutive arguments.
func containsRun(a, want []string) bool {
	if len(want) == 0 {
		return true
	}
	for i := range a {
		if i+len(want) <= len(a) && slices.Equal(a[i:i+len(want)], want) {
			return true
		}
	}
	return false
}
