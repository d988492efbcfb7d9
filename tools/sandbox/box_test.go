package sandbox

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	state := "/state"
	agent := Caller{AgentID: "main", SessionKey: "agent:main:main", AgentWorkspace: "/ws/main"}
	group := Caller{AgentID: "main", SessionKey: "agent:main:telegram:group:42", AgentWorkspace: "/ws/main"}
	for _, tc := range []struct {
		name    string
		s       Settings
		c       Caller
		want    *Box // nil: on the host
		wantErr string
	}{
		{name: "off by default", s: Settings{}, c: group},
		{name: "off", s: Settings{Mode: "off"}, c: group},
		{name: "non-main leaves main on the host", s: Settings{Mode: "non-main"}, c: agent},
		{name: "non-main: no session is the operator's main", s: Settings{Mode: "non-main"}, c: Caller{AgentID: "main", AgentWorkspace: "/ws"}},
		{name: "non-main sandboxes a group", s: Settings{Mode: "non-main"}, c: group,
			want: &Box{Backend: BackendLocal, Key: "agent-main-" + hash8("main"), Access: AccessNone, Workspace: "/state/sandboxes/agent-main-" + hash8("main")}},
		{name: "non-main with session.mainKey", s: Settings{Mode: "non-main"}, c: Caller{AgentID: "main", SessionKey: "agent:main:home", MainSession: "agent:main:home"}},
		{name: "non-main: the default main key is not main when mainKey differs", s: Settings{Mode: "non-main", WorkspaceAccess: "rw"},
			c:    Caller{AgentID: "main", SessionKey: "agent:main:main", MainSession: "agent:main:home", AgentWorkspace: "/ws"},
			want: &Box{Backend: BackendLocal, Key: "agent-main-" + hash8("main"), Access: AccessRW, Workspace: "/ws"}},
		{name: "global scope's session is main", s: Settings{Mode: "non-main"}, c: Caller{AgentID: "main", SessionKey: "global", GlobalScope: true}},
		{name: "all sandboxes main", s: Settings{Mode: "all", WorkspaceAccess: "ro"}, c: agent,
			want: &Box{Backend: BackendLocal, Key: "agent-main-" + hash8("main"), Access: AccessRO, Workspace: "/ws/main"}},
		{name: "session scope", s: Settings{Mode: "all", Scope: "session", WorkspaceRoot: "/sb"}, c: group,
			want: &Box{Backend: BackendLocal, Key: "session-agent_main_telegram_group_42-" + hash8(group.SessionKey), Access: AccessNone,
				Workspace: "/sb/session-agent_main_telegram_group_42-" + hash8(group.SessionKey)}},
		{name: "shared scope", s: Settings{Mode: "all", Scope: "shared"}, c: group,
			want: &Box{Backend: BackendLocal, Key: "shared", Access: AccessNone, Workspace: "/state/sandboxes/shared"}},
		{name: "network from docker.network", s: Settings{Mode: "all", WorkspaceAccess: "rw", Network: "bridge"}, c: group,
			want: &Box{Backend: BackendLocal, Key: "agent-main-" + hash8("main"), Access: AccessRW, Workspace: "/ws/main", Network: true, NetworkName: "bridge"}},
		{name: "network none", s: Settings{Mode: "all", WorkspaceAccess: "rw", Network: "none"}, c: group,
			want: &Box{Backend: BackendLocal, Key: "agent-main-" + hash8("main"), Access: AccessRW, Workspace: "/ws/main"}},
		{name: "ssh", s: Settings{Mode: "all", WorkspaceAccess: "rw", Backend: "ssh", SSH: SSH{Target: "u@h"}}, c: group,
			want: &Box{Backend: BackendSSH, Key: "agent-main-" + hash8("main"), Access: AccessRW, Workspace: "/ws/main", SSH: SSH{Target: "u@h"}}},
		{name: "openshell is refused, not run on the host", s: Settings{Mode: "all", Backend: "openshell"}, c: group, wantErr: "not supported"},
		{name: "bad mode", s: Settings{Mode: "most"}, c: group, wantErr: "want off, non-main or all"},
		{name: "bad access", s: Settings{Mode: "all", WorkspaceAccess: "wo"}, c: group, wantErr: "want none, ro or rw"},
		{name: "bad scope", s: Settings{Mode: "all", Scope: "global"}, c: group, wantErr: "want agent, session or shared"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolve(tc.s, tc.c, state)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want == nil && got != nil:
				t.Fatalf("sandboxed %+v, want the host", got)
			case tc.want != nil && (got == nil || !reflect.DeepEqual(got, tc.want)):
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func hash8(s string) string { return safeName(s)[strings.LastIndexByte(safeName(s), '-')+1:] }

// TestSafeName: a key never climbs out of the sandbox root, and keys
// that read alike stay apart.
func TestSafeName(t *testing.T) {
	for _, k := range []string{"../../etc", "a/b", "..", "agent:x:main", strings.Repeat("z", 300)} {
		n := safeName(k)
		if strings.ContainsAny(n, "/.:") || len(n) > 50 || filepath.Base(n) != n {
			t.Errorf("safeName(%q) = %q", k, n)
		}
	}
	if safeName("a:b") == safeName("a/b") {
		t.Error("distinct keys share a folder")
	}
}

func TestInnerDir(t *testing.T) {
	for _, tc := range []struct{ mount, workdir, want, err string }{
		{"/workspace", "", "/workspace", ""},
		{"/workspace", "src", "/workspace/src", ""},
		{"/workspace", "/workspace/src/../lib", "/workspace/lib", ""},
		{"/workspace", "../etc", "", "outside"},
		{"/workspace", "/etc", "", "outside"},
		{"/workspace", "/workspacex", "", "outside"},
		{"/agent", "a/../../x", "", "outside"},
	} {
		got, err := innerDir(tc.mount, tc.workdir)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %s: %q, %v", tc.mount, tc.workdir, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s %s: %q, %v; want %q", tc.mount, tc.workdir, got, err, tc.want)
		}
	}
}

func TestSSHTarget(t *testing.T) {
	for _, tc := range []struct{ in, dest, port string }{
		{"u@h", "u@h", ""},
		{"u@h:2222", "u@h", "2222"},
		{"h:22", "h", "22"},
		{"u@[::1]:2222", "u@::1", "2222"},
	} {
		d, p, err := sshTarget(tc.in)
		if err != nil || d != tc.dest || p != tc.port {
			t.Errorf("%q: %q %q %v", tc.in, d, p, err)
		}
	}
	for _, bad := range []string{"", "-oProxyCommand=x", "u@h;rm", "u@h $(x)"} {
		if _, _, err := sshTarget(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestUnsupportedIsSentinel(t *testing.T) {
	_, err := Resolve(Settings{Mode: "all", Backend: "crabbox"}, Caller{AgentID: "a", SessionKey: "x"}, "/s")
	if !errors.Is(err, ErrUnsupported) {
		t.Fatal(err)
	}
}
