package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/gateway/toolhost"
	"github.com/openclaw-go/openclaw/tools/generate/generatetest"
)

// TestGenerateToolsInATurn: in one agent turn the model enables
// video_generate, music_generate and model3d_generate (extension tier)
// and calls each against its provider's fake: Runway's and Meshy's jobs
// are polled until they are done, MiniMax answers at once, and each
// result is saved in the workspace and offered as a download link.
func TestGenerateToolsInATurn(t *testing.T) {
	// One fake per provider, so each job's polls are its own.
	runway, minimax, meshy := generatetest.New(t), generatetest.New(t), generatetest.New(t)
	model := fakemodel.New(t)
	// MiniMax's key and media host come from the gateway's environment,
	// the others' from models.providers.
	env := map[string]string{"MINIMAX_API_KEY": generatetest.Key, "MINIMAX_API_HOST": minimax.BaseURL("minimax")}
	extra := fmt.Sprintf(`models: { providers: {
    fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] },
    runway: { baseUrl: %q, apiKey: %q, models: [] },
    meshy: { baseUrl: %q, apiKey: %q, models: [] },
  } },
  browser: { ssrfPolicy: { allowedHostnames: ["127.0.0.1"] } },`,
		model.URL()+"/v1", runway.BaseURL("runway"), generatetest.Key, meshy.BaseURL("meshy"), generatetest.Key)
	r, c := startWithConfigEnv(t, model, extra, env, func(o *Options) {
		// The fakes answer at once; the real providers are asked every 5 s.
		o.toolhost = func(th *toolhost.Options) { th.GeneratePoll = time.Millisecond }
	})

	model.Script(
		calls([3]string{"e1", "enable_tool", `{"toolName":"video_generate"}`},
			[3]string{"e2", "enable_tool", `{"toolName":"music_generate"}`},
			[3]string{"e3", "enable_tool", `{"toolName":"model3d_generate"}`}),
		calls([3]string{"v1", "video_generate", `{"prompt":"a lobster surfing at sunset","model":"runway/gen4.5","aspectRatio":"9:16","durationSeconds":5,"filename":"surf"}`}),
		calls([3]string{"m1", "music_generate", `{"prompt":"upbeat synthwave","instrumental":true,"filename":"theme"}`}),
		calls([3]string{"d1", "model3d_generate", `{"prompt":"a small wooden chair","filename":"chair"}`}),
		fakemodel.Reply{Text: "All three are ready."},
	)
	res := runTurn(t, c, model, "make a clip, a theme and a chair", "gen-1")

	ws := filepath.Join(r.dir, "workspace")
	cases := []struct {
		call, tool, file string
		want             []byte
		fake             *generatetest.Fake
		submit           string // the provider's submit path
		polls            int    // 0: no job to poll
		model            string
	}{
		{"v1", "video_generate", "generated/surf.mp4", generatetest.MP4, runway, "/v1/text_to_video", 3, "runway/gen4.5"},
		{"m1", "music_generate", "generated/theme.mp3", generatetest.MP3, minimax, "/v1/music_generation", 0, "minimax/music-2.6"},
		{"d1", "model3d_generate", "generated/chair.glb", generatetest.GLB, meshy, "/openapi/v2/text-to-3d", 3, "meshy/"},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			var out struct {
				Model string `json:"model"`
				Files []struct {
					Path      string `json:"path"`
					Delivered string `json:"delivered"`
					URL       string `json:"url"`
				} `json:"files"`
			}
			if err := json.Unmarshal([]byte(res[tc.call]), &out); err != nil || len(out.Files) != 1 {
				t.Fatalf("the model saw %q (%v)", res[tc.call], err)
			}
			f := out.Files[0]
			if f.Path != tc.file || f.Delivered != "link" || !strings.Contains(f.URL, "/files/") || !strings.HasPrefix(out.Model, tc.model) {
				t.Fatalf("result %+v", out)
			}
			got, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(f.Path)))
			if err != nil || !bytes.Equal(got, tc.want) {
				t.Fatalf("saved %s: %d bytes, %v", f.Path, len(got), err)
			}
			if tc.fake.Body(tc.submit) == nil {
				t.Fatalf("nothing was submitted to %s: %v", tc.submit, tc.fake.Requests())
			}
			// The job said it was still running until the last poll: the
			// tool waited for it rather than giving up or taking the
			// first answer.
			if n := tc.fake.Polls(); n != tc.polls {
				t.Errorf("polled %d times, want %d", n, tc.polls)
			}
		})
	}
	if b := runway.Body("/v1/text_to_video"); b["promptText"] != "a lobster surfing at sunset" || b["ratio"] != "720:1280" {
		t.Errorf("runway was asked %v", b)
	}
	if b := minimax.Body("/v1/music_generation"); b["is_instrumental"] != true || b["prompt"] != "upbeat synthwave" {
		t.Errorf("minimax was asked %v", b)
	}
}
