package toolhost

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/generate"
	"github.com/openclaw-go/openclaw/tools/message"
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

// fakeMessenger is the channels as the generation tools see them.
type fakeMessenger struct {
	message.Messenger
	bound bool
	sent  []string
}

func (m *fakeMessenger) Conversation(ctx context.Context, sessionKey, runID string) (message.Conversation, bool, error) {
	return message.Conversation{Channel: "telegram", ChatID: "42"}, m.bound, nil
}

func (m *fakeMessenger) SendFile(ctx context.Context, to message.Conversation, file, caption, key string) (any, error) {
	m.sent = append(m.sent, to.ChatID+":"+filepath.Base(file)+":"+key)
	return "ok", nil
}

func TestChatAttacher(t *testing.T) {
	for _, c := range []struct {
		name  string
		m     *fakeMessenger
		sent  bool
		calls int
	}{
		{"chat conversation", &fakeMessenger{bound: true}, true, 1},
		{"not a chat", &fakeMessenger{}, false, 0},
		{"no channels", nil, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var a chatAttacher
			if c.m != nil {
				a.m = c.m
			}
			sent, err := a.Attach(t.Context(), tools.Who{SessionKey: "agent:main:main", RunID: "r"}, "/tmp/x/cat.png", "", "r:c:0")
			if err != nil || sent != c.sent {
				t.Fatalf("sent %v, %v", sent, err)
			}
			if c.m != nil && (len(c.m.sent) != c.calls || (c.calls == 1 && c.m.sent[0] != "42:cat.png:r:c:0")) {
				t.Errorf("SendFile calls %v", c.m.sent)
			}
		})
	}
}
