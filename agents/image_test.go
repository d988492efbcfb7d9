package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/image"
)

// TestImageToolThroughFakeModel runs the image tool with the service as its
// Analyzer against the fake model, over both wire formats, and checks that
// the image bytes reached the model with the types read from their content.
func TestImageToolThroughFakeModel(t *testing.T) {
	model := fakemodel.New(t)
	dir := t.TempDir()
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 92)...)
	jpeg := append([]byte("\xff\xd8\xff\xe0"), make([]byte, 196)...)
	for name, data := range map[string][]byte{"a.png": png, "b.jpg": jpeg} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, api, base string
	}{
		{"openai", "openai-completions", model.URL() + "/v1"},
		{"anthropic", "anthropic-messages", model.URL()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf(`{
				models: { providers: { vision: { baseUrl: %q, api: %q, models: [{ id: "see-1" }] } } },
				agents: { defaults: { model: "vision/see-1", imageModel: { primary: "vision/see-1" } } },
			}`, tc.base, tc.api)
			snap, err := config.Parse("openclaw.json", []byte(src), config.LoadOptions{Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatalf("config: %v", err)
			}
			for _, w := range snap.Warnings {
				t.Errorf("config warning: %s", w) // imageModel is implemented now
			}
			svc := New(snap.Config, Options{StateDir: t.TempDir()})
			tool := image.Tool(image.Config{Workspace: func(tools.Who) (string, error) { return dir, nil }, Analyzer: svc})
			before := len(model.Requests())
			res, err := tool.Call(context.Background(), tools.Call{Name: "image", Who: tools.Who{AgentID: "main"},
				Args: json.RawMessage(`{"prompt":"Which is which?","images":["a.png","b.jpg"]}`)})
			if err != nil || res.IsError {
				t.Fatalf("call: %v %+v", err, res)
			}
			want := "echo: Which is which? [images: image/png 100 bytes, image/jpeg 200 bytes]"
			if res.Text != want {
				t.Fatalf("answer %q, want %q", res.Text, want)
			}
			reqs := model.Requests()[before:]
			if len(reqs) != 1 || reqs[0].API != strings.Split(tc.api, "-")[0] || reqs[0].Model != "see-1" {
				t.Fatalf("requests = %+v", reqs)
			}
			imgs := reqs[0].Messages[0].Images
			if len(imgs) != 2 || string(imgs[0].Data) != string(png) || string(imgs[1].Data) != string(jpeg) ||
				imgs[0].MediaType != "image/png" || imgs[1].MediaType != "image/jpeg" {
				t.Fatalf("images that arrived = %+v", imgs)
			}
		})
	}
}

func TestAnalyzeWithoutImageModel(t *testing.T) {
	cfg := configFor(t, `{models:{providers:{fake:{baseUrl:"http://127.0.0.1:1/v1"}}}, agents:{defaults:{model:"fake/echo-1"}}}`)
	svc := New(cfg, Options{StateDir: t.TempDir()})
	_, err := svc.Analyze(context.Background(), "main", "Describe the image.", []image.Image{{MediaType: "image/png", Data: []byte("\x89PNG")}})
	if !errors.Is(err, image.ErrNoImageModel) {
		t.Fatalf("err = %v, want ErrNoImageModel (not a call to the agent's own model)", err)
	}
}

// TestAnalyzeTimeout: imageModel.timeoutMs bounds the whole call, retries
// and fallbacks included.
func TestAnalyzeTimeout(t *testing.T) {
	model := fakemodel.New(t)
	model.Script(fakemodel.Reply{Text: "late", Delay: 10 * time.Second})
	cfg := configFor(t, fmt.Sprintf(`{models:{providers:{vision:{baseUrl:"%s/v1"}}},
		agents:{defaults:{imageModel:{primary:"vision/see-1", timeoutMs:200}}}}`, model.URL()))
	svc := New(cfg, Options{StateDir: t.TempDir()})
	start := time.Now()
	_, err := svc.Analyze(context.Background(), "main", "Describe the image.", []image.Image{{MediaType: "image/png", Data: []byte("\x89PNG")}})
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v; want a timeout well before the reply", err, time.Since(start))
	}
}
