package toolhost

import (
	"context"
	"log/slog"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools"
)

type namedTool struct{ spec tools.Spec }

func (t namedTool) Spec() tools.Spec { return t.spec }
func (t namedTool) Call(context.Context, tools.Call) (tools.Result, error) {
	return tools.Result{Text: "ran"}, nil
}

// policyHost is a tool host with only what the policy needs: the config
// and a registry of the named core tools.
func policyHost(t *testing.T, names ...string) *policyAdapter {
	t.Helper()
	snap, err := config.Parse("openclaw.json", []byte(`{}`), config.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	pc, err := PolicyConfig(snap.Config)
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	for _, n := range names {
		if err := reg.Register(namedTool{tools.Spec{Name: n, Source: tools.SourceCore}}); err != nil {
			t.Fatal(err)
		}
	}
	h := &Host{opts: Options{Live: func() Live { return Live{Snap: snap, Policy: pc} }}, log: slog.New(slog.DiscardHandler),
		runner: &tools.Runner{Registry: reg}}
	return &policyAdapter{h: h}
}

// A chat's tools block (carried by the run as ToolsAllow/ToolsDeny)
// removes tools for that chat alone: a prompt-injected model in a group
// whose tools.deny names exec cannot run it, though the same agent can
// elsewhere.
func TestChatToolLimits(t *testing.T) {
	p := policyHost(t, "exec", "read", "web_fetch")
	tests := []struct {
		name        string
		allow, deny []string
		tool        string
		want        bool
	}{
		{"no limits", nil, nil, "exec", true},
		{"denied by name", nil, []string{"exec"}, "exec", false},
		{"denied by group", nil, []string{"group:runtime"}, "exec", false},
		{"denied by glob", nil, []string{"web_*"}, "web_fetch", false},
		{"other tool stays", nil, []string{"exec"}, "read", true},
		{"allowlist keeps", []string{"read"}, nil, "read", true},
		{"allowlist removes", []string{"read"}, nil, "exec", false},
		{"deny wins over allow", []string{"exec", "read"}, []string{"exec"}, "exec", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			who := tools.Who{AgentID: "main", SessionKey: "agent:main:telegram:group:-100", ToolsAllow: tt.allow, ToolsDeny: tt.deny}
			ok, why := p.Allowed(context.Background(), who, tools.Spec{Name: tt.tool, Source: tools.SourceCore})
			if ok != tt.want {
				t.Errorf("Allowed(%s) = %v (%s), want %v", tt.tool, ok, why, tt.want)
			}
		})
	}
}
