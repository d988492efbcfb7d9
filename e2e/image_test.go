package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// TestImageToolThroughInvoke: the image tool on the real binary reads a
// workspace image, sends its bytes to agents.defaults.imageModel (a fake
// model speaking the Anthropic format, while the agent's own model speaks
// OpenAI's), and refuses what it must.
func TestImageToolThroughInvoke(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	workspace := t.TempDir()
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 1016)...)
	for name, data := range map[string][]byte{"shots/login.png": png, "notes.png": []byte("not a picture\n")} {
		path := filepath.Join(workspace, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	g := startGateway(t, gatewayOpts{Config: fmt.Sprintf(`{
  gateway: { mode: "local" },
  models: { providers: {
    chat: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] },
    vision: { baseUrl: %q, api: "anthropic-messages", models: [{ id: "see-1" }] },
  } },
  agents: { defaults: { model: "chat/echo-1", imageModel: "vision/see-1", workspace: %q } },
}`, model.URL()+"/v1", model.URL(), workspace)})
	c := ourClient(t, g)
	steps := []struct {
		name, args string
		wantOK     bool
		want       string
	}{
		{"workspace image", `{"image":"shots/login.png","prompt":"What does the screen show?"}`, true,
			"echo: What does the screen show? [images: image/png 1024 bytes]"},
		{"default prompt", `{"images":["shots/login.png"]}`, true, "echo: Describe the image. [images: image/png 1024 bytes]"},
		{"not an image", `{"image":"notes.png"}`, false, "notes.png is not a PNG, JPEG, GIF or WebP image"},
		{"outside the workspace", `{"image":"../../etc/passwd"}`, false, "outside the workspace"},
		{"too big", `{"image":"shots/login.png","maxBytesMb":0.0005}`, false, "shots/login.png is 1024 bytes, over the 524 bytes limit"},
		{"private URL", `{"image":"http://127.0.0.1:1/x.png"}`, false, "blocked by network guard"},
	}
	for _, s := range steps {
		t.Logf("step %s", s.name)
		ok, text := invokeTool(t, c, "image", s.args)
		if ok != s.wantOK || !strings.Contains(text, s.want) {
			t.Fatalf("%s: ok=%v %q; want ok=%v containing %q", s.name, ok, text, s.wantOK, s.want)
		}
	}
	var vision int
	for _, r := range model.Requests() {
		if r.API == "anthropic" && r.Model == "see-1" {
			vision++
		}
	}
	if vision != 2 {
		t.Fatalf("the image model got %d requests, want 2 (one per successful call)", vision)
	}
}
