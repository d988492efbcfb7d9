package nodes

import (
	"slices"
	"testing"
)

func TestPolicyDecide(t *testing.T) {
	headless := []string{"system.run", "system.run.prepare", "system.which", "system.execApprovals.get",
		"system.execApprovals.set", "browser.proxy", "fs.listDir", "file.fetch", "worker.exec.v1"}
	mac := []string{"system.run", "system.notify", "canvas.present", "camera.list", "camera.snap", "camera.clip", "screen.record", "location.get"}
	tests := []struct {
		name     string
		policy   Policy
		platform string
		command  string
		declared []string
		want     string // "" = allowed, else the refusal reason
	}{
		{"headless which", Policy{}, "linux", "system.which", headless, ""},
		{"headless run", Policy{}, "linux", "system.run", headless, ""},
		{"headless prepare", Policy{}, "linux", "system.run.prepare", headless, ""},
		{"headless approvals get", Policy{}, "linux", "system.execApprovals.get", headless, ""},
		{"windows run", Policy{}, "windows", "system.run", []string{"system.run"}, ""},
		{"undeclared", Policy{}, "linux", "system.notify", headless, "not-declared"},
		{"undeclared even if allowed", Policy{Allow: []string{"camera.snap"}}, "linux", "camera.snap", headless, "not-declared"},
		{"browser proxy not default", Policy{}, "linux", "browser.proxy", headless, "not-allowlisted"},
		{"browser proxy allowed", Policy{Allow: []string{"browser.proxy"}}, "linux", "browser.proxy", headless, ""},
		{"family wildcard", Policy{Allow: []string{"file.*"}}, "linux", "file.fetch", headless, ""},
		{"deny wins over default", Policy{Deny: []string{"system.run"}}, "linux", "system.run", headless, "denied"},
		{"deny wins over allow", Policy{Allow: []string{"fs.listDir"}, Deny: []string{"fs.listDir"}}, "linux", "fs.listDir", headless, "denied"},
		{"deny wildcard", Policy{Deny: []string{"system.*"}}, "linux", "system.which", headless, "denied"},
		{"deny star", Policy{Deny: []string{"*"}}, "linux", "system.which", headless, "denied"},
		{"worker private", Policy{Allow: []string{"worker.exec.v1"}}, "linux", "worker.exec.v1", headless, "private"},
		{"mac notify", Policy{}, "macos", "system.notify", mac, ""},
		{"mac canvas", Policy{}, "macOS 15.1", "canvas.present", mac, ""},
		{"mac camera list", Policy{}, "darwin", "camera.list", mac, ""},
		{"camera snap dangerous", Policy{}, "macos", "camera.snap", mac, "dangerous"},
		{"camera snap wildcard is not enough", Policy{Allow: []string{"camera.*", "*"}}, "macos", "camera.snap", mac, "dangerous"},
		{"camera snap exact allow", Policy{Allow: []string{"camera.snap"}}, "macos", "camera.snap", mac, ""},
		{"screen record exact allow then deny", Policy{Allow: []string{"screen.record"}, Deny: []string{"screen.*"}}, "macos", "screen.record", mac, "denied"},
		{"unknown platform no run", Policy{}, "plan9", "system.run", mac, "not-allowlisted"},
		{"unknown platform notify", Policy{}, "", "system.notify", mac, ""},
		{"ios no run", Policy{}, "iOS 18", "system.run", mac, "not-allowlisted"},
		{"ios location", Policy{}, "ios", "location.get", mac, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.policy.Decide(tt.platform, tt.command, tt.declared)
			if d.Allowed != (tt.want == "") || d.Reason != tt.want {
				t.Fatalf("Decide(%q, %q) = %+v, want reason %q", tt.platform, tt.command, d, tt.want)
			}
		})
	}
}

func TestPolicyEffective(t *testing.T) {
	declared := []string{"browser.proxy", "system.run", "system.which", "camera.snap", "worker.x"}
	got := Policy{Deny: []string{"system.run"}}.Effective("linux", declared)
	if want := []string{"system.which"}; !slices.Equal(got, want) {
		t.Fatalf("Effective = %v, want %v", got, want)
	}
	if got := (Policy{}).Effective("linux", nil); got == nil || len(got) != 0 {
		t.Fatalf("Effective(nil) = %#v, want an empty list", got)
	}
}

func TestPlatformClass(t *testing.T) {
	for in, want := range map[string]string{
		"linux": "linux", "Linux 6.1": "linux", "macos": "macos", "macOS": "macos", "darwin": "macos",
		"windows": "windows", "win32": "windows", "iOS": "ios", "iPadOS 17": "ios", "android": "android", "": "unknown", "freebsd": "unknown",
	} {
		if got := PlatformClass(in); got != want {
			t.Errorf("PlatformClass(%q) = %q, want %q", in, got, want)
		}
	}
}
