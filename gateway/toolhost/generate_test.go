package toolhost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools/generate"
)

func loadConfig(t *testing.T, src string, env map[string]string) *config.Config {
	t.Helper()
	p := filepath.Join(t.TempDir(), "openclaw.json")
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	snap, err := config.Load(p, config.LoadOptions{Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range snap.Warnings {
		if strings.HasPrefix(w.Path, "agents.defaults.mediaModels") {
			t.Errorf("mediaModels warned about: %v", w)
		}
	}
	return snap.Config
}

func TestGenerateCredentials(t *testing.T) {
	cfg := loadConfig(t, `{
  models: { providers: {
    openai: { baseUrl: "https://proxy.example/v1", apiKey: "sk-config", models: [] },
    minimax: { baseUrl: "https://api.minimax.io/anthropic", apiKey: "mm-config", models: [] },
  } },
}`, nil)
	env := map[string]string{"OPENAI_API_KEY": "sk-env", "RUNWAY_API_KEY": "rw-alias", "MINIMAX_API_HOST": "https://api.minimaxi.com", "MESHY_API_KEY": "msy"}
	cases := []struct {
		provider string
		want     generate.Credentials
	}{
		{"openai", generate.Credentials{BaseURL: "https://proxy.example/v1", APIKey: "sk-config"}},
		{"runway", generate.Credentials{APIKey: "rw-alias"}},
		// MiniMax's baseUrl is its chat endpoint: media go to MINIMAX_API_HOST.
		{"minimax", generate.Credentials{BaseURL: "https://api.minimaxi.com", APIKey: "mm-config"}},
		{"meshy", generate.Credentials{APIKey: "msy"}},
		{"nobody", generate.Credentials{}},
	}
	for _, c := range cases {
		t.Run(c.provider, func(t *testing.T) {
			if got := generateCredentials(cfg, c.provider, func(k string) string { return env[k] }); got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
	env["RUNWAYML_API_SECRET"] = "rw-canonical"
	if got := generateCredentials(cfg, "runway", func(k string) string { return env[k] }); got.APIKey != "rw-canonical" {
		t.Errorf("RUNWAYML_API_SECRET does not come first: %+v", got)
	}
}

func TestGenerateModels(t *testing.T) {
	cfg := loadConfig(t, `{
  agents: { defaults: { mediaModels: {
    image: { primary: "openai/gpt-image-1.5", fallbacks: ["openai/gpt-image-2"], timeoutMs: 180000 },
    video: "runway/gen4_turbo",
  } } },
}`, nil)
	img := generateModels(cfg, generate.KindImage)
	if img.Primary != "openai/gpt-image-1.5" || len(img.Fallbacks) != 1 || img.Timeout != 180*time.Second {
		t.Errorf("image %+v", img)
	}
	if v := generateModels(cfg, generate.KindVideo); v.Primary != "runway/gen4_turbo" || v.Timeout != 0 {
		t.Errorf("video %+v", v)
	}
	if m := generateModels(cfg, generate.KindModel3D); m.Primary != "" {
		t.Errorf("model3d %+v", m)
	}
}
