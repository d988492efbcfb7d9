package generate

import (
	"testing"

	"github.com/openclaw-go/openclaw/policy"
)

// TestGuardRuleCoversGenerationTools: the README's rule for keeping the
// paid tools from strangers matches all four, and MateClaw's names too.
func TestGuardRuleCoversGenerationTools(t *testing.T) {
	g, err := policy.NewGuard(policy.GuardConfig{DefaultPolicy: policy.ActionAllow,
		Rules: []policy.Rule{{Tool: "*_generate", Action: policy.ActionRequireApproval}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"image_generate", "video_generate", "music_generate", "model3d_generate", "ImageGenerateTool", "VideoGenerateTool", "MusicGenerateTool"} {
		if d := g.Check(name, []byte(`{"prompt":"x"}`)); d.Action != policy.ActionRequireApproval {
			t.Errorf("%s: %+v", name, d)
		}
	}
}
