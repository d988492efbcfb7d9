package toolhost

import (
	"context"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/generate"
	"github.com/openclaw-go/openclaw/tools/message"
	"github.com/openclaw-go/openclaw/tools/netguard"
)

// generateTools builds image_generate, video_generate, music_generate and
// model3d_generate. Keys, models and the network policy are read from
// the running config at each call; result URLs may reach what
// browser.ssrfPolicy allows (as in OpenClaw, whose docs point LAN image
// endpoints there).
func (h *Host) generateTools(workspace func(tools.Who) (string, error)) []tools.Tool {
	return generate.Tools(generate.Config{
		Workspace:   workspace,
		Credentials: func(p string) generate.Credentials { return generateCredentials(h.cfg(), p, h.opts.Getenv) },
		Models:      func(k generate.Kind) generate.Models { return generateModels(h.cfg(), k) },
		Attach:      chatAttacher{h.opts.Messenger},
		Publish:     h.publishFor,
		Network:     func() netguard.Policy { return browserPolicy(h.cfg().Browser) },
		MaxBytes: func(generate.Kind) int64 {
			return int64(h.cfg().Agents.Defaults.MediaMaxMb) << 20 // 0: the tool's default
		},
		PollInterval: h.opts.GeneratePoll,
	})
}

// generateEnv are the environment variables holding each provider's key,
// in OpenClaw's order.
var generateEnv = map[string][]string{
	"openai":  {"OPENAI_API_KEY"},
	"runway":  {"RUNWAYML_API_SECRET", "RUNWAY_API_KEY"},
	"minimax": {"MINIMAX_API_KEY"},
	"meshy":   {"MESHY_API_KEY"},
}

// generateCredentials finds a generation provider's key and endpoint:
// models.providers.<id>.apiKey and baseUrl, else the provider's
// environment variables. MiniMax's baseUrl is its chat endpoint, so, as in
// OpenClaw, its media host comes from MINIMAX_API_HOST instead.
func generateCredentials(cfg *config.Config, provider string, getenv func(string) string) generate.Credentials {
	var c generate.Credentials
	if p, ok := cfg.Models.Providers[provider]; ok {
		c.APIKey, c.BaseURL = p.APIKey.Value, p.BaseURL
	}
	if provider == "minimax" {
		c.BaseURL = getenv("MINIMAX_API_HOST")
	}
	for _, env := range generateEnv[provider] {
		if c.APIKey != "" {
			break
		}
		c.APIKey = getenv(env)
	}
	return c
}

// generateModels is agents.defaults.mediaModels.<kind>; model3d has no
// key in OpenClaw's config, so it always picks by key.
func generateModels(cfg *config.Config, kind generate.Kind) generate.Models {
	var m config.MediaModelRef
	switch kind {
	case generate.KindImage:
		m = cfg.Agents.Defaults.MediaModels.Image
	case generate.KindVideo:
		m = cfg.Agents.Defaults.MediaModels.Video
	case generate.KindMusic:
		m = cfg.Agents.Defaults.MediaModels.Music
	}
	return generate.Models{Primary: m.Primary, Fallbacks: m.Fallbacks, Timeout: time.Duration(m.TimeoutMs) * time.Millisecond}
}

// chatAttacher sends generated files the way send_file does, to the chat
// the conversation is in.
type chatAttacher struct{ m message.Messenger }

func (a chatAttacher) Attach(ctx context.Context, who tools.Who, file, caption, key string) (bool, error) {
	if a.m == nil {
		return false, nil
	}
	conv, ok, err := a.m.Conversation(ctx, who.SessionKey, who.RunID)
	if err != nil || !ok {
		return false, err
	}
	if _, err := a.m.SendFile(ctx, conv, file, caption, key); err != nil {
		return false, err
	}
	return true, nil
}
