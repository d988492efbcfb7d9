package toolhost

import (
	"reflect"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools/sandbox"
)

// TestSandboxSettingsDocker: how the defaults' and an agent's docker.*
// keys combine: scalars and lists are replaced by the agent's, env and
// binds merge (each bind named by the key it came from), readOnlyRoot
// defaults to true, and scope "shared" ignores the agent's keys.
func TestSandboxSettingsDocker(t *testing.T) {
	no := false
	for _, tc := range []struct {
		name       string
		def, agent config.AgentSandbox
		want       func(s sandbox.Settings) bool
	}{
		{name: "defaults", want: func(s sandbox.Settings) bool {
			return !s.Container.WritableRoot && s.Container.Tmpfs == nil && s.Env == nil && s.Binds == nil
		}},
		{name: "the agent's scalars win",
			def:   config.AgentSandbox{Docker: config.SandboxDocker{User: "1000:1000", Memory: "1g", Cpus: 2, PidsLimit: 100}},
			agent: config.AgentSandbox{Docker: config.SandboxDocker{Memory: "2g", ReadOnlyRoot: &no, Tmpfs: []string{"/scratch"}}},
			want: func(s sandbox.Settings) bool {
				c := s.Container
				return c.User == "1000:1000" && c.Memory == "2g" && c.Cpus == 2 && c.PidsLimit == 100 && c.WritableRoot &&
					reflect.DeepEqual(c.Tmpfs, []string{"/scratch"})
			}},
		{name: "env and binds merge",
			def:   config.AgentSandbox{Docker: config.SandboxDocker{Env: map[string]string{"A": "1", "B": "1"}, Binds: []string{"/a:/a:ro"}}},
			agent: config.AgentSandbox{Docker: config.SandboxDocker{Env: map[string]string{"B": "2"}, Binds: []string{"/b:/b"}, DangerouslyAllowExternalBindSources: true}},
			want: func(s sandbox.Settings) bool {
				return reflect.DeepEqual(s.Env, map[string]string{"A": "1", "B": "2"}) && s.AllowExternalBinds &&
					reflect.DeepEqual(s.Binds, []sandbox.BindSpec{
						{Spec: "/a:/a:ro", Key: "agents.defaults.sandbox.docker.binds[0]"},
						{Spec: "/b:/b", Key: "agents.entries.main.sandbox.docker.binds[0]"}})
			}},
		{name: "shared scope ignores the agent's docker keys",
			def:   config.AgentSandbox{Scope: "shared", Docker: config.SandboxDocker{Binds: []string{"/a:/a"}}},
			agent: config.AgentSandbox{Docker: config.SandboxDocker{Binds: []string{"/b:/b"}, SetupCommand: "x"}},
			want: func(s sandbox.Settings) bool {
				return len(s.Binds) == 1 && s.Binds[0].Spec == "/a:/a" && s.Container.SetupCommand == ""
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &config.Config{}
			cfg.Agents.Defaults.Sandbox = tc.def
			cfg.Agents.Entries = map[string]config.AgentEntry{"main": {Sandbox: tc.agent}}
			if s := SandboxSettings(cfg, "main"); !tc.want(s) {
				t.Fatalf("%+v", s)
			}
		})
	}
}
