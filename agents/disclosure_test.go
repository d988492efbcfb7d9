package agents

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
	"github.com/openclaw-go/openclaw/tools"
)

type imageTool struct{ calls int }

func (t *imageTool) Spec() tools.Spec {
	return tools.Spec{Name: "image_generate", Description: "Draw a picture.\nLong details.", Tier: tools.TierExtension, Source: tools.SourceCore,
		Parameters: []byte(`{"type":"object","properties":{"prompt":{"type":"string"}}}`)}
}

func (t *imageTool) Call(ctx context.Context, c tools.Call) (tools.Result, error) {
	t.calls++
	return tools.Result{Text: "drawn"}, nil
}

func toolNames(r fakemodel.Recorded) []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}

func TestProgressiveDisclosure(t *testing.T) {
	f := newFixture(t, "", nil)
	img := &imageTool{}
	reg := tools.NewRegistry()
	if err := reg.Register(append(f.svc.SessionTools(), img)...); err != nil {
		t.Fatal(err)
	}
	st := storetest.Open(t, tools.Migrations())
	settings, _ := tools.LoadSettings(context.Background(), st.DB)
	f.svc.UseTools(&RegistryTools{Runner: &tools.Runner{Registry: reg, Settings: settings}})
	f.model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "x1", Name: "image_generate", Arguments: `{"prompt":"cat"}`}}},
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "x2", Name: "enable_tool", Arguments: `{"toolName":"image_generate"}`}}},
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "x3", Name: "image_generate", Arguments: `{"prompt":"cat"}`}}},
		fakemodel.Reply{Text: "here is your cat"},
	)
	res := f.run(t, StartRequest{Message: "draw a cat"})
	if res.Status != "ok" || img.calls != 1 {
		t.Fatalf("result %+v, image tool ran %d times", res, img.calls)
	}
	reqs := f.model.Requests()
	first, third := toolNames(reqs[0]), toolNames(reqs[2])
	if slices.Contains(first, "image_generate") || !slices.Contains(first, "enable_tool") {
		t.Fatalf("first step tools = %v: the extension tool must wait behind enable_tool", first)
	}
	var dir string
	for _, tl := range reqs[0].Tools {
		if tl.Name == "enable_tool" {
			dir = tl.Description
		}
	}
	if !strings.Contains(dir, "- image_generate (core): Draw a picture.") || strings.Contains(dir, "Long details") {
		t.Fatalf("enable_tool directory = %q", dir)
	}
	if !slices.Contains(third, "image_generate") || slices.Contains(third, "enable_tool") {
		t.Fatalf("after activation the tools are %v", third)
	}
	var early string
	for _, m := range f.transcript(t, "agent:main:main") {
		if m.ToolCallID == "x1" {
			early = m.Text
		}
	}
	if !strings.Contains(early, "call enable_tool") {
		t.Fatalf("calling a dormant tool answered %q", early)
	}
	// A disabled tool disappears from the directory too.
	settings.SetEnabled(context.Background(), "image_generate", false)
	full, dormant := f.svc.opts.Tools.(*RegistryTools).visible(context.Background(), &Turn{SessionID: "other"})
	if slices.ContainsFunc(append(full, dormant...), func(s tools.Spec) bool { return s.Name == "image_generate" }) {
		t.Fatal("a disabled tool is still offered")
	}
}

// The disclosure mode is asked at each turn: a config reload switching to
// "legacy" gives the next turn every tool in full.
func TestDisclosureModeFollowsReload(t *testing.T) {
	reg := tools.NewRegistry()
	if err := reg.Register(&imageTool{}); err != nil {
		t.Fatal(err)
	}
	st := storetest.Open(t, tools.Migrations())
	settings, _ := tools.LoadSettings(context.Background(), st.DB)
	legacy := false
	r := &RegistryTools{Runner: &tools.Runner{Registry: reg, Settings: settings}, Legacy: func() bool { return legacy }}
	names := func() []string {
		var out []string
		for _, tl := range r.Tools(context.Background(), &Turn{AgentID: "main", SessionID: "s1"}) {
			out = append(out, tl.Name)
		}
		return out
	}
	if got := names(); slices.Contains(got, "image_generate") {
		t.Fatalf("progressive mode advertises %v", got)
	}
	legacy = true
	if got := names(); !slices.Contains(got, "image_generate") || slices.Contains(got, EnableToolName) {
		t.Fatalf("after switching to legacy the tools are %v", got)
	}
}
